"""Clauses of a record's prose fields, so that scenarios can say which clause they prove."""

from __future__ import annotations

import re

__all__ = ["CLAUSE_FIELDS", "clauses"]

CLAUSE_FIELDS = ("triggerScenarios", "commonSituations")
_BREAK = re.compile(r"(?<=[.;])\s+")


def clauses(text: str) -> list[str]:
    """The clauses of a text: split after each '.' or ';' that whitespace follows.

    Scenarios refer to them 1-based, e.g. ``commonSituations:2``.
    """
    return [part.strip() for part in _BREAK.split(text) if part.strip()]
