"""One record and what drift found for it -> the record at the new commit, and the fields that changed.

- *unchanged* at another commit, and *moved*: only ``filePath``, ``lineNumber``, ``sourceCodeStart``/``End``,
  ``sourceCode``, ``githubUrl``, ``analyzedSha`` are rewritten (and ``analyzedAt``/``contentChangedAt``, the
  time of the change, when any of them changed), and a draft's ``triggerScenarios`` while it is still the
  harvest's own text (quoted from the code, as harvest refreshes it). A hand-written record keeps its own
  excerpt window: as many lines before its ``lineNumber`` and after the statement's last line as it had,
  clamped to the file; a harvested record's window is the harvest's, taken from the draft drift made of it;
- *reworded*: nothing, unless accepted; then as moved, and ``errorMessage``/``messagePattern`` from the draft;
- *vanished*: nothing, unless retired; then ``status`` withdrawn and a ``statusReason`` naming the commit (never
  when its file at the new commit failed to parse: drift knows nothing of it).

Nothing else is ever touched: prose (a contributor's ``triggerScenarios`` too), status (but for retiring), tags,
scenarios stay byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from errdex.checks.base import RecordContext
from errdex.checks.source import expected_github_url
from errdex.drift.outcomes import Drifted, DriftReport, Place
from errdex.errors import DataError
from errdex.harvest.drafts import drafted_trigger, excerpt
from errdex.harvest.merge import is_harvested
from errdex.records.source_paths import shown_path, unsafe_path
from errdex.records.timestamps import parse_rfc3339
from errdex.records.vocabulary import DRAFT_STATUS, RETIRED_STATUSES

__all__ = ["PLACE_FIELDS", "RETIRED", "applied", "enveloped", "retire_reason"]

#: The fields a sync rewrites for a record whose statement moved (its timestamps besides).
PLACE_FIELDS: tuple[str, ...] = ("filePath", "lineNumber", "sourceCode", "sourceCodeStart", "sourceCodeEnd",
                                 "githubUrl", "analyzedSha")
#: The status a vanished record is given with ``retire``.
RETIRED = "withdrawn"


def retire_reason(sha: str) -> str:
    return f"no statement writes this message at {sha} (errdex sync)"


def _integer(record: dict[str, Any], name: str) -> int | None:
    value = record.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _line(record: dict[str, Any], old: Place, new: Place) -> int:
    """The new lineNumber: as far into the statement as the old one was (its first line when that does not fit)."""
    line = _integer(record, "lineNumber")
    offset = line - old.line if line is not None else 0
    return new.line + offset if 0 <= offset <= new.end_line - new.line else new.line


def _own_window(record: dict[str, Any], item: Drifted, new: Place, line: int,
                lines: Sequence[str]) -> tuple[str, int, int]:
    """The record's own excerpt window moved with its statement: (text, start, end)."""
    old_line, start, end = (_integer(record, name) for name in ("lineNumber", "sourceCodeStart", "sourceCodeEnd"))
    if old_line is None or start is None or end is None or not start <= old_line <= end:
        return excerpt(lines, new.line, new.end_line)  # no window of its own to keep: the harvest's
    before, after = old_line - start, max(0, end - item.old.end_line)
    first = max(1, min(line - before, len(lines)))
    last = max(first, min(len(lines), new.end_line + after))
    return "\n".join(lines[first - 1 : last]), first, last


def _placed(record: dict[str, Any], item: Drifted, report: DriftReport) -> dict[str, Any]:
    """The place fields of the record at the new commit."""
    new = item.new
    assert new is not None  # only a vanished record has no new place
    unsafe = unsafe_path(new.path)
    if unsafe is not None:  # harvest skips such files: a place there is a bug, never written
        raise DataError(f"record {item.record_id}: drift placed it at {shown_path(new.path)!r}, which {unsafe}")
    line = _line(record, item.old, new)
    if item.draft is not None and is_harvested(record):
        code, start, end = item.draft["sourceCode"], item.draft["sourceCodeStart"], item.draft["sourceCodeEnd"]
    else:
        lines = report.lines(new.path)
        if lines is None:
            raise DataError(f"record {item.record_id}: {new.path} is not in {report.repo} at {report.sha}; "
                            "drift placed the record in a file it cannot read")
        code, start, end = _own_window(record, item, new, line, lines)
    fields: dict[str, Any] = {"filePath": new.path, "lineNumber": line, "sourceCode": code, "sourceCodeStart": start,
                              "sourceCodeEnd": end, "analyzedSha": report.sha}
    fields["githubUrl"] = expected_github_url(RecordContext({**record, **fields}, "", "", None))
    trigger = record.get("triggerScenarios")
    if (item.draft is not None and record.get("status") == DRAFT_STATUS
            and (not trigger or (isinstance(trigger, str) and drafted_trigger(trigger)))):
        fields["triggerScenarios"] = item.draft["triggerScenarios"]  # the harvest's own words, not prose yet
    return fields


def applied(record: dict[str, Any], item: Drifted, report: DriftReport, *, accept_reworded: bool = False,
            retire_vanished: bool = False) -> tuple[dict[str, Any], list[str]]:
    """The record as sync leaves it, and the names of the fields that changed (none: the record itself)."""
    if item.kind == "vanished":
        if not retire_vanished or record.get("status") in RETIRED_STATUSES or item.how == "unparsed":
            return record, []
        retired = dict(record, status=RETIRED, statusReason=retire_reason(report.sha))
        return retired, [name for name in ("status", "statusReason") if retired[name] != record.get(name)]
    if item.kind == "reworded" and not accept_reworded:
        return record, []
    synced = dict(record, **_placed(record, item, report))
    if item.kind == "reworded":
        if item.draft is None:
            raise DataError(f"record {item.record_id}: drift found it reworded but gave no new message")
        synced["errorMessage"], synced["messagePattern"] = item.new_message, item.new_pattern
    changed = [name for name in synced if synced[name] != record.get(name)]
    if changed:
        synced["analyzedAt"] = synced["contentChangedAt"] = report.analyzed_at
    return (synced, changed) if changed else (record, [])


def enveloped(envelope: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The record's envelope with the synced record; its ``datasetVersion`` moved up to the record's
    ``contentChangedAt`` when that is later (EDX142: a dataset cannot hold a change made after it), as a new
    draft's is its ``analyzedAt``."""
    synced = dict(envelope, record=record)
    version, changed = envelope.get("datasetVersion"), record.get("contentChangedAt")
    if isinstance(version, str) and isinstance(changed, str) and _moment(changed) > _moment(version):
        synced["datasetVersion"] = changed
    return synced


def _moment(text: str) -> datetime:
    moment = parse_rfc3339(text)
    return moment if moment is not None else datetime.min.replace(tzinfo=UTC)
