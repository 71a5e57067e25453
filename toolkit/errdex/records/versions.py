"""Moving one record between format versions, in memory.

Version 3 is version 2 plus a required ``scenarios`` list and three optional
lifecycle fields (``status``, ``statusReason``, ``supersededBy``). Going up
adds ``"scenarios": []``. Going down removes every version-3 field; a field
that holds something other than its default (a scenario, a status other than
``active``, a reason, a successor) is data that is lost, and is reported as a
:class:`Loss`.

Version 4 is version 3 plus the ``draft`` status, in which the prose fields may
be empty. Going up changes only ``schemaVersion``. Going down refuses a draft
(:class:`DraftRefused`), with or without ``allow_loss``: version 3 has no such
status, and a draft's empty prose is not valid there; dropping the status would
publish an undocumented record as active. Document the draft (status
``active``) or move it out first. A withdrawn record whose prose is empty (a
draft that ``errdex sync --retire-vanished`` withdrew; version 4 allows it) is
refused the same way: version 3 requires the prose of every record, and
nothing could be dropped to make it valid there.

Files are rewritten by :mod:`errdex.records.migrate`; the loader brings what it
loads up to :data:`LOADED_AT_LEAST` with :func:`loaded_form`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from errdex.errors import DataError, UsageError
from errdex.records.models import RECORD_MODELS, RecordV3
from errdex.records.version_numbers import shown_version
from errdex.records.vocabulary import DEFAULT_STATUS, PROSE_FIELDS, is_draft, status_of

__all__ = [
    "ADDED_IN_3",
    "LATEST",
    "LOADED_AT_LEAST",
    "DraftRefused",
    "Loss",
    "check_target",
    "downgrade",
    "loaded_form",
    "migrate_record",
    "upgrade",
    "version_of",
]

#: The newest format version: what ``errdex migrate`` and ``errdex schema`` default to.
LATEST = 4
#: The version the loader brings older records up to. Version 4 adds no field to version 3 (only the draft
#: status), so a version-3 record already holds everything a reader of version 4 looks at; it is loaded as it
#: is, and what a command prints or exports from it keeps its ``schemaVersion``.
LOADED_AT_LEAST = 3

#: The fields version 3 adds to version 2 (a test ties this to the models).
ADDED_IN_3 = ("scenarios", "status", "statusReason", "supersededBy")

_V3_RANK = {name: rank for rank, name in enumerate(RecordV3.model_fields)}


@dataclass(frozen=True)
class Loss:
    """A field that going down a version drops while it holds data, and what it held."""

    field: str
    detail: str

    def __str__(self) -> str:
        return f"{self.field} ({self.detail})"



def check_target(to: int) -> None:
    if isinstance(to, bool) or to not in RECORD_MODELS:
        supported = ", ".join(map(str, sorted(RECORD_MODELS)))
        raise UsageError(f"cannot migrate to version {to!r}: the supported versions are {supported}")


def version_of(record: dict[str, Any]) -> int:
    version = record.get("schemaVersion")
    if isinstance(version, bool) or not isinstance(version, int) or version not in RECORD_MODELS:
        supported = ", ".join(map(str, sorted(RECORD_MODELS)))
        shown = ("missing" if "schemaVersion" not in record
                 else f"{shown_version(version)}, which errdex does not support")
        raise DataError(f"record {record.get('id')!r}: schemaVersion is {shown} (supported: {supported})")
    return version


#: Where :func:`_with_key` puts a key in records of one key order: (id of the ranks, key, the record's keys) ->
#: the position of the first key canonical order puts after it (or of ``key`` itself, or -1 when none).
#: Records of a dataset share a handful of key orders, so a first load of 100,000 version-2 records finds
#: the place once per order instead of comparing ranks key by key in each (several us a record).
_PLACES: dict[tuple[int, str, tuple[str, ...]], int] = {}
_MAX_PLACES = 4096


def _place(names: tuple[str, ...], key: str, rank: dict[str, int]) -> int:
    """The position in ``names`` where ``key`` goes (see :data:`_PLACES`)."""
    after, unranked = rank[key], len(rank)
    for index, name in enumerate(names):
        if name == key or rank.get(name, unranked) > after:
            return index
    return -1


def _with_key(record: dict[str, Any], key: str, value: Any, rank: dict[str, int]) -> dict[str, Any]:
    """A copy with ``key`` added before the first key that canonical order puts after it; the rest keep their order
    (a key there already keeps its value, at the first of its place and that one)."""
    names = tuple(record)
    memo = (id(rank), key, names)
    index = _PLACES.get(memo)
    if index is None:
        if len(_PLACES) >= _MAX_PLACES:
            _PLACES.clear()
        index = _PLACES[memo] = _place(names, key, rank)
    if index < 0 or names[index] == key:
        result = dict(record)
        result.setdefault(key, value)
        return result
    items = list(record.items())
    result = dict(items[:index])
    result[key] = value
    result.update(items[index:])
    return result


def _v2_to_v3(record: dict[str, Any]) -> dict[str, Any]:
    upgraded = _with_key(record, "scenarios", [], _V3_RANK)
    upgraded["schemaVersion"] = 3
    return upgraded


def _dropped_in_2(record: dict[str, Any]) -> list[Loss]:
    """The version-3 fields that hold data; a field absent or at its default loses nothing."""
    losses: list[Loss] = []
    scenarios = record.get("scenarios") or []
    if scenarios:
        ids = ", ".join(str(s.get("id")) if isinstance(s, dict) else "?" for s in scenarios)
        noun = "scenario" if len(scenarios) == 1 else "scenarios"
        losses.append(Loss("scenarios", f"{len(scenarios)} {noun}: {ids}"))
    if status_of(record) != DEFAULT_STATUS:
        losses.append(Loss("status", str(record["status"])))
    if record.get("statusReason") is not None:
        losses.append(Loss("statusReason", json.dumps(record["statusReason"], ensure_ascii=False)))
    if record.get("supersededBy") is not None:
        losses.append(Loss("supersededBy", str(record["supersededBy"])))
    return losses


def _v3_to_v2(record: dict[str, Any]) -> tuple[dict[str, Any], list[Loss]]:
    downgraded = {name: value for name, value in record.items() if name not in ADDED_IN_3}
    downgraded["schemaVersion"] = 2
    return downgraded, _dropped_in_2(record)


class DraftRefused(DataError):
    """A draft cannot go down to version 3 (which has no draft status), even when data may be lost; nor can a
    withdrawn record with empty prose (version 3 requires prose in every record)."""


def _v3_to_v4(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "schemaVersion": 4}


def _v4_to_v3(record: dict[str, Any]) -> tuple[dict[str, Any], list[Loss]]:
    if is_draft(record):
        raise DraftRefused(f"record {record.get('id')} is a draft, which version 3 cannot hold (no draft status, "
                           "and its prose may be empty); document it (status active) or move it out first")
    # version 3 requires every prose field but preventionTips (which may be [])
    empty = [name for name in PROSE_FIELDS if name != "preventionTips" and not record.get(name)]
    if empty:
        raise DraftRefused(f"record {record.get('id')} is {status_of(record)} with empty prose "
                           f"({', '.join(empty)}), which version 3 cannot hold; write its prose or move it "
                           "out first")
    return {**record, "schemaVersion": 3}, []


#: Version -> the step to the next version up, and the step to the next version down.
_UP: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {2: _v2_to_v3, 3: _v3_to_v4}
_DOWN: dict[int, Callable[[dict[str, Any]], tuple[dict[str, Any], list[Loss]]]] = {3: _v3_to_v2, 4: _v4_to_v3}


def upgrade(record: dict[str, Any], to: int = LATEST) -> dict[str, Any]:
    """The record at version ``to`` (default: the latest), as a new dict; going up never loses data.

    Nested values are shared with ``record``, not copied; neither is changed.
    """
    check_target(to)
    version = version_of(record)
    if to < version:
        raise UsageError(f"cannot upgrade a version {version} record to version {to}; use downgrade")
    result = dict(record)
    for step in range(version, to):
        result = _UP[step](result)
    return result


def loaded_form(record: dict[str, Any]) -> dict[str, Any]:
    """The record as the loader hands it on: brought up to :data:`LOADED_AT_LEAST` when older, else as it is."""
    return upgrade(record, max(version_of(record), LOADED_AT_LEAST))


def downgrade(record: dict[str, Any], to: int) -> tuple[dict[str, Any], list[Loss]]:
    """The record at version ``to`` as a new dict, with every field dropped while it held data."""
    check_target(to)
    version = version_of(record)
    if to > version:
        raise UsageError(f"cannot downgrade a version {version} record to version {to}; use upgrade")
    result, losses = dict(record), []
    for step in range(version, to, -1):
        result, lost = _DOWN[step](result)
        losses.extend(lost)
    return result, losses


def migrate_record(record: dict[str, Any], to: int) -> tuple[dict[str, Any], list[Loss]]:
    """The record at version ``to``, up or down, with what going down drops."""
    check_target(to)
    if version_of(record) <= to:
        return upgrade(record, to), []
    return downgrade(record, to)
