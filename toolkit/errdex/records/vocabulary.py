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
    "DRAFT_STATUS",
    "LOG_MESSAGE_FIELDS",
    "PROSE_FIELDS",
    "RETIRED_STATUSES",
    "SEVERITIES",
    "SEVERITY_RANK",
    "STATUSES",
    "Severity",
    "Status",
    "empty_prose",
    "is_active",
    "is_draft",
    "is_harvested_only",
    "is_retired",
    "status_of",
]

#: Severities, worst first (the order lists and summaries print them in).
Severity = Literal["critical", "error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "error", "warning", "info")
#: How bad each severity is, for ``--fail-on`` and "worst seen": info 0 up to critical 3.
SEVERITY_RANK: Mapping[str, int] = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}

#: Lifecycle statuses; a record without ``status`` is active. ``draft`` (format version 4): written by
#: ``errdex harvest`` from the code, its prose not written yet; it becomes ``active`` once documented.
Status = Literal["active", "withdrawn", "superseded", "draft"]
STATUSES: tuple[Status, ...] = ("active", "withdrawn", "superseded", "draft")
#: The statuses of a record taken out of use (kept, no longer recommended, skipped by matching).
RETIRED_STATUSES: tuple[Status, ...] = ("withdrawn", "superseded")
DRAFT_STATUS: Status = "draft"
DEFAULT_STATUS: Literal["active"] = "active"
#: The prose a contributor writes; a draft may leave each empty ("" or []), an active record may not.
PROSE_FIELDS: tuple[str, ...] = ("documentation", "commonSituations", "solutions", "exampleFix", "typeGuard",
                                 "tryCatchPattern", "preventionTips")

#: Fields of a JSON log line whose text is matched besides the raw line, in the order they are tried.
LOG_MESSAGE_FIELDS: tuple[str, ...] = ("message", "msg", "error", "err")


def status_of(record: Mapping[str, Any]) -> Any:
    """A record's lifecycle status: its ``status``, or the default when it has none.

    A record that does not conform yet may hold anything there; callers compare, they do not trust the type.
    """
    return record.get("status", DEFAULT_STATUS)


def is_active(record: Mapping[str, Any]) -> bool:
    """Whether a record is active (no ``status``, or ``"active"``); a draft is not."""
    return bool(status_of(record) == DEFAULT_STATUS)


def is_draft(record: Mapping[str, Any]) -> bool:
    """Whether a record is a draft: harvested from the code, not documented yet."""
    return bool(status_of(record) == DRAFT_STATUS)


def is_retired(record: Mapping[str, Any]) -> bool:
    """Whether a record is withdrawn or superseded (what matching skips unless asked)."""
    return status_of(record) in RETIRED_STATUSES


def empty_prose(record: Mapping[str, Any]) -> list[str]:
    """The prose fields of a record that are missing or empty (``""``, blank, ``[]``), in field order."""
    empty = []
    for name in PROSE_FIELDS:
        value = record.get(name)
        if value is None or (isinstance(value, str) and not value.strip()) or (isinstance(value, list) and not value):
            empty.append(name)
    return empty


def is_harvested_only(record: Mapping[str, Any]) -> bool:
    """Whether a record holds only what harvest wrote: a draft, or a withdrawn record whose prose is all empty
    (a draft retired because its code vanished, never documented). Checks lenient with drafts are with it."""
    if is_draft(record):
        return True
    return status_of(record) == "withdrawn" and len(empty_prose(record)) == len(PROSE_FIELDS)
