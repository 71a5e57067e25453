"""A drift report written out: text (counts, then one line per record that is not unchanged, new sites last),
JSON (the whole report, keys in a fixed order) or GitHub workflow annotations (``::warning file=...``)."""

from __future__ import annotations

import json
from typing import Any

from errdex.drift.outcomes import KINDS, Drifted, DriftReport, NewSite, Place

__all__ = ["as_dict", "counts", "github_lines", "render", "text_lines"]


def counts(report: DriftReport) -> dict[str, int]:
    """Records per kind, in :data:`~errdex.drift.outcomes.KINDS` order, then the new sites."""
    found: dict[str, int] = {kind: 0 for kind in KINDS}
    for item in report.drifted:
        found[item.kind] += 1
    found["new"] = len(report.new_sites)
    return found


def _place(place: Place | None) -> dict[str, Any] | None:
    return None if place is None else {"path": place.path, "line": place.line, "endLine": place.end_line}


def _drifted(item: Drifted) -> dict[str, Any]:
    return {"id": item.record_id, "kind": item.kind, "how": item.how, "old": _place(item.old),
            "new": _place(item.new), "oldMessage": item.old_message, "newMessage": item.new_message,
            "newPattern": item.new_pattern}


def _new(item: NewSite) -> dict[str, Any]:
    return {"id": item.draft["id"], "path": item.site.path, "line": item.site.line, "endLine": item.site.end_line,
            "errorMessage": item.draft["errorMessage"], "messagePattern": item.draft["messagePattern"]}


def as_dict(report: DriftReport) -> dict[str, Any]:
    """The whole report as JSON values."""
    return {"repo": report.repo, "rev": report.rev, "sha": report.sha, "analyzedAt": report.analyzed_at,
            "clean": report.clean, "counts": counts(report), "drifted": [_drifted(item) for item in report.drifted],
            "newSites": [_new(item) for item in report.new_sites],
            "unparsedFiles": [{"path": path, "error": why} for path, why in report.unparsed]}


def _quoted(text: str | None) -> str:
    return json.dumps(text or "", ensure_ascii=False)


def text_lines(report: DriftReport) -> list[str]:
    """Counts per kind, then one line per record that is not unchanged, then the new sites, then the files
    that failed to parse."""
    lines = ["  ".join(f"{kind} {count}" for kind, count in counts(report).items())]
    for item in report.drifted:
        old = f"{item.old.path}:{item.old.line}"
        if item.kind == "moved" and item.new is not None:
            lines.append(f"moved     {item.record_id}  {old} -> {item.new.path}:{item.new.line}")
        elif item.kind == "reworded" and item.new is not None:
            lines.append(f"reworded  {item.record_id}  {item.new.path}:{item.new.line}  {_quoted(item.old_message)}"
                         f" -> {_quoted(item.new_message)}  pattern {_quoted(item.new_pattern)}")
        elif item.kind == "vanished":
            unread = "  (its file failed to parse)" if item.how == "unparsed" else ""
            lines.append(f"vanished  {item.record_id}  {old}  {_quoted(item.old_message)}{unread}")
    for new in report.new_sites:
        lines.append(f"new       {new.site.path}:{new.site.line}  {_quoted(new.draft['errorMessage'])}")
    lines.extend(f"failed to parse {path}: {why}" for path, why in report.unparsed)
    return lines


def _escape(text: str, *, prop: bool = False) -> str:
    """GitHub's workflow-command escaping (properties also escape ``:`` and ``,``)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _annotation(path: str, line: int, message: str) -> str:
    return f"::warning file={_escape(path, prop=True)},line={line}::{_escape(message)}"


def github_lines(report: DriftReport) -> list[str]:
    """One ``::warning`` annotation per record that is not unchanged (at its new place, or its old one when
    vanished) and per new site."""
    lines = []
    for item in report.drifted:
        if item.kind == "unchanged":
            continue
        where = item.new or item.old
        if item.kind == "moved":
            message = f"errdex record {item.record_id} moved here from {item.old.path}:{item.old.line}"
        elif item.kind == "reworded":
            message = (f"errdex record {item.record_id} reworded: {_quoted(item.old_message)} -> "
                       f"{_quoted(item.new_message)}")
        else:
            message = f"errdex record {item.record_id} vanished: no statement writes {_quoted(item.old_message)}"
        lines.append(_annotation(where.path, where.line, message))
    for new in report.new_sites:
        lines.append(_annotation(new.site.path, new.site.line,
                                 f"no errdex record covers {_quoted(new.draft['errorMessage'])}"))
    return lines


def render(report: DriftReport, fmt: str) -> str:
    """The report in ``fmt`` (text, json or github), ending with a newline."""
    if fmt == "json":
        return json.dumps(as_dict(report), indent=2, ensure_ascii=False) + "\n"
    lines = github_lines(report) if fmt == "github" else text_lines(report)
    return "".join(line + "\n" for line in lines)
