"""How a record's ``schemaVersion`` reads: whether it can name a version, and how a message shows it.

Kept apart from :mod:`errdex.records.versions` (which needs the models) so the loader can use it without
importing pydantic on a cached load.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["is_version_number", "shown_version"]


def is_version_number(value: Any) -> bool:
    """A ``schemaVersion`` that can name a version: an integer (not ``true``, ``3.0``, a list or an object)."""
    return isinstance(value, int) and not isinstance(value, bool)


def shown_version(value: Any) -> str:
    """A ``schemaVersion`` as the file writes it (``null``, ``"3"``, ``[3]``), cut short, for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
