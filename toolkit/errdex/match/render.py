"""Rendering matches and records for people in a terminal."""

from __future__ import annotations

import re
from typing import Any

from errdex.match.engine import Match
from errdex.records.text import first_sentence
from errdex.records.vocabulary import is_draft
from errdex.terminal import safe

__all__ = ["clip", "drafts_text", "match_text", "others_text", "substitute"]

_PLACEHOLDER = re.compile(r"\$([1-9])|\{([1-9])\}")
#: Characters of a log line, of a record's text (first sentence, first fix) and of one captured value that
#: ``match`` prints per matched line: a 1 MB field or a group capturing megabytes must not flood the terminal.
_LINE_BREAKS = re.compile(r"[ \t]*\r?\n[ \t]*")
MAX_LINE_CHARS = 300
MAX_TEXT_CHARS = 300
MAX_GROUP_CHARS = 80


def substitute(text: str, groups: tuple[str | None, ...]) -> str:
    """Captured values in place of $1 / {1} placeholders."""
    def value(m: re.Match[str]) -> str:
        index = int(m.group(1) or m.group(2)) - 1
        captured = groups[index] if index < len(groups) else None
        return captured if captured is not None else m.group(0)

    return _PLACEHOLDER.sub(value, text)


def _text(value: Any) -> str:
    """A field as text; a record that does not conform yet (``match`` still matches it) may hold anything."""
    return value if isinstance(value, str) else ""


def _first_text(values: Any) -> str:
    return _text(values[0]) if isinstance(values, list) and values else ""


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ``...`` marking the cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _style(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


#: What ``match`` says of a record without documentation: a draft (True) is harvested, not written yet.
_UNDOCUMENTED = {False: "(no documentation yet)", True: "a draft, not documented yet; what the code tells:"}


def others_text(others: int, unchecked: int = 0) -> str:
    """What is said of the other records that match a line: ``others`` of them, and ``unchecked`` more whose
    literal text the line holds but that were not tried."""
    said = f"{others} other matching record{'s' if others != 1 else ''}"
    return said + (f", {unchecked} more not checked" if unchecked else "")


def match_text(source: str, number: int, line: str, best: Match, others: int, *, page: str | None,
               color: bool, unchecked: int = 0) -> str:
    """One matched line and its best record, for a terminal (control characters in them escaped); ``page``:
    where a person reads the record in full (the caller knows the site; the matcher does not), ``None`` when
    there is no such page."""
    record = best.record
    groups = tuple(clip(g, MAX_GROUP_CHARS) if g is not None else None for g in best.groups)
    meaning = clip(first_sentence(_text(record.get("documentation"))[: MAX_TEXT_CHARS * 4]), MAX_TEXT_CHARS)
    fix = clip(substitute(_first_text(record.get("solutions"))[: MAX_TEXT_CHARS * 4], groups), MAX_TEXT_CHARS)

    def one_line(text: str, limit: int = MAX_TEXT_CHARS) -> str:
        return safe(clip(text, limit), newlines=False)

    meaning, fix = _LINE_BREAKS.sub(" ", meaning), _LINE_BREAKS.sub(" ", fix)  # one line per field

    alarm = "1;31" if record["severity"] in ("error", "critical") else "1;33"
    lines = [
        f"{_style(f'{one_line(source)}:{number}:', '1', color)} {one_line(line, MAX_LINE_CHARS)}",
        f"  {_style(one_line(record['errorClass'], 80), alarm, color)}"
        f" ({one_line(record['severity'], 20)}): {one_line(meaning) or _UNDOCUMENTED[is_draft(record)]}",
    ]
    if is_draft(record):
        lines += [f"  {key}: {one_line(value)}" for key, value in _draft_origin(record)]
    else:
        lines.append(f"  fix: {one_line(fix) or '(no solution recorded yet)'}")
    if any(g is not None for g in groups):
        captured = ", ".join(g if g is not None else "-" for g in groups)
        lines.append(f"  captured: {one_line(captured, MAX_TEXT_CHARS * 3)}")
    more = f"  more: errdex explain {one_line(record['slug'], 120)}"
    if page is not None:
        more += f" · {one_line(page, MAX_TEXT_CHARS)}"
    if others or unchecked:
        more += f"  (+{others_text(others, unchecked)})"
    lines.append(more)
    return "\n".join(lines) + "\n"


def _statement(record: dict[str, Any]) -> str:
    """The excerpt's line at ``lineNumber`` (the first line of the call or throw), stripped; "" when it has none."""
    code, start, line = _text(record.get("sourceCode")), record.get("sourceCodeStart"), record.get("lineNumber")
    if not code or not isinstance(start, int) or not isinstance(line, int):
        return ""
    lines = code.split("\n")
    return lines[line - start].strip() if 0 <= line - start < len(lines) else ""


def _origin(record: dict[str, Any]) -> str:
    """``filePath:lineNumber at SHA``: where the code raises or logs the message, at the commit analysed."""
    sha = _text(record.get("analyzedSha"))[:12]
    return f"{_text(record.get('filePath'))}:{record.get('lineNumber')}" + (f" at {sha}" if sha else "")


def _draft_origin(record: dict[str, Any]) -> list[tuple[str, str]]:
    """What a draft knows, as (label, text) lines: where it comes from, the statement, and the trigger drafted
    from the code."""
    found = [("from", _origin(record))]
    statement = _statement(record)
    if statement:
        found.append(("code", statement))
    trigger = _LINE_BREAKS.sub(" ", _text(record.get("triggerScenarios")))
    if trigger:
        found.append(("trigger", trigger))
    return found


def drafts_text(entries: list[dict[str, Any]], records: dict[str, dict[str, Any]]) -> str:
    """The drafts that matched, most lines first: the list of what to document first (``match --summary``).

    ``entries``: the summary's per-record entries, in its order; ``records``: the whole records of the drafts
    among them, by id. Empty when no draft matched.
    """
    drafts = [entry for entry in entries if entry["id"] in records]
    if not drafts:
        return ""
    lines = [f"{len(drafts)} draft(s) matched; document these first:"]
    for entry in drafts:
        lines.append(f"  {entry['count']:>6}  {entry['slug']}  ({_origin(records[entry['id']])})")
    return safe("\n".join(lines)) + "\n"


def _excerpt(record: dict[str, Any]) -> str:
    """The source excerpt with its line numbers, the line at ``lineNumber`` marked with ``>``."""
    code, start, line = _text(record.get("sourceCode")), record.get("sourceCodeStart"), record.get("lineNumber")
    if not code or not isinstance(start, int):
        return ""
    width = len(str(start + code.count("\n")))
    return "\n".join(f"{'>' if start + i == line else ' '} {start + i:>{width}} | {text}"
                     for i, text in enumerate(code.split("\n")))
