"""The record vocabulary: the words a record is written in, each kept here once.

Severities, lifecycle statuses and their default, and the JSON-log fields a message is read from. Every
layer above (models, checks, index, matcher, site, releases) imports these names instead of spelling the
words again. The scenario vocabulary of each executor family lives beside it, in ``records/scenarios``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

__all__ = [
    "DEFAULT_STATUS",
    "LOG_MESSAGE_FIELDS",
    "SEVERITIES",
    "SEVERITY_RANK",
    "STATUSES",
    "Severity",
    "Status",
    "is_active",
    "status_of",
]

#: Severities, worst first (the order lists and summaries print them in).
Severity = Literal["critical", "error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "error", "warning", "info")
#: How bad each severity is, for ``--fail-on`` and "worst seen": info 0 up to critical 3.
SEVERITY_RANK: Mapping[str, int] = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}

#: Lifecycle statuses; a record without ``status`` is active.
Status = Literal["active", "withdrawn", "superseded"]
STATUSES: tuple[Status, ...] = ("active", "withdrawn", "superseded")
DEFAULT_STATUS: Status = "active"

#: Fields of a JSON log line whose text is matched besides the raw line, in the order they are tried.
LOG_MESSAGE_FIELDS: tuple[str, ...] = ("message", "msg", "error", "err")


def status_of(record: Mapping[str, Any]) -> Any:
    """A record's lifecycle status: its ``status``, or the default when it has none.

    A record that does not conform yet may hold anything there; callers compare, they do not trust the type.
    """
    return record.get("status", DEFAULT_STATUS)


def is_active(record: Mapping[str, Any]) -> bool:
    """Whether a record is active (no ``status``, or ``"active"``)."""
    return bool(status_of(record) == DEFAULT_STATUS)
