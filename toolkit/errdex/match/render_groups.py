"""``errdex match``'s grouped text: one block per record that matched, then a closing summary.

Each block leads with what a person needs at once: the record's message (as the first of its lines wrote it: the
record's ``errorMessage`` is an example from elsewhere), its severity and class, the first fix,
how many lines and when (the first and last timestamp of them), which lines, and the captured values that vary
from line to line. Shares :mod:`errdex.match.render`'s helpers, so a field reads the same in both layouts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from errdex.match.grouping import GroupedSummary, RecordGroup, Shapes
from errdex.match.render import (
    _LINE_BREAKS,
    MAX_TEXT_CHARS,
    _draft_origin,
    _first_text,
    _style,
    _text,
    clip,
    others_text,
    substitute,
)
from errdex.records.vocabulary import SEVERITIES, SEVERITY_RANK, is_draft
from errdex.terminal import safe

__all__ = ["SHOWN_SHAPES", "SHOWN_VALUES", "SUMMARY_SAMPLES", "closing_text", "fix_of", "group_text", "groups_text",
           "ordered_groups", "summary_text", "time_range"]

#: Distinct values shown per varying capture, and unclassified shapes shown in the closing summary.
SHOWN_VALUES = 3
SHOWN_SHAPES = 5
#: Unclassified lines ``--summary`` lists.
SUMMARY_SAMPLES = 20


def _line(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return safe(clip(_LINE_BREAKS.sub(" ", text), limit), newlines=False)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def ordered_groups(summary: GroupedSummary) -> list[RecordGroup]:
    """Most severe first, then most lines, then slug."""
    return sorted(summary.groups.values(), key=lambda g: (-SEVERITY_RANK.get(g.match.view["severity"], 0),
                                                          -g.count, g.match.view["slug"]))


def time_range(group: RecordGroup) -> str:
    """``first to last`` (one stamp when they are the same), and how many lines had no timestamp."""
    if group.first is None or group.last is None:
        return "no timestamp in " + ("the line" if group.count == 1 else "these lines")
    when = group.first.text if group.first == group.last else f"{group.first.text} to {group.last.text}"
    if group.unstamped:
        when += f" ({_plural(group.unstamped, 'line')} without a timestamp)"
    return when


def fix_of(record: dict[str, Any], groups: tuple[str | None, ...]) -> str:
    """The first solution, the values every line shares filled in; else the example fix's first line."""
    fix = _first_text(record.get("solutions"))[: MAX_TEXT_CHARS * 4]
    if not fix.strip():
        fix = next((row for row in _text(record.get("exampleFix")).splitlines() if row.strip()), "")
    return substitute(fix, groups)


def _where(group: RecordGroup) -> str:
    """``file:6, 9, 11 and 520 more``: the file named again only when it changes."""
    shown, source = [], None
    for file, number in group.where:
        shown.append(f"{number}" if file == source else f"{file}:{number}")
        source = file
    rest = group.count - len(group.where)
    return ", ".join(shown) + (f" and {rest:,} more" if rest else "")


def _varying(group: RecordGroup) -> list[str]:
    out = []
    for index, capture in enumerate(group.captures, 1):
        if not capture.varies:
            continue
        top = capture.values.most_common(SHOWN_VALUES)
        shown = ", ".join(f"{_line(value, 40)} ({count:,})" for value, count in top)
        rest = len(capture.values) - len(top)
        more = f" and {rest:,}{'+' if capture.other else ''} more" if rest or capture.other else ""
        out.append(f"  ${index} varies: {shown}{more}")
    return out


def group_text(group: RecordGroup, *, page: str | None, color: bool) -> str:
    """One record's block."""
    best = group.match
    record = best.record
    severity = _text(record.get("severity"))
    alarm = "1;31" if severity in ("error", "critical") else "1;33"
    head = f"{_line(severity, 20)} · {_line(_text(record.get('errorClass')), 80)} · {_plural(group.count, 'line')}"
    title = group.message or _text(record.get("errorMessage")) or record["messagePattern"]
    lines = [_style(_line(title), "1", color),
             f"  {_style(head, alarm, color)} · {_line(time_range(group), 120)}"]
    if is_draft(record):
        lines.append("  not documented yet (a draft); what the code tells:")
        lines += [f"    {key}: {_line(value)}" for key, value in _draft_origin(record)]
    else:
        lines.append(f"  fix: {_line(fix_of(record, group.constant_groups())) or '(no solution recorded yet)'}")
    lines.append(f"  lines: {_line(_where(group), MAX_TEXT_CHARS * 2)}")
    lines += _varying(group)
    more = f"  more: errdex explain {_line(record['slug'], 120)}" + (f" · {_line(page)}" if page else "")
    if group.others or group.unchecked:
        more += f"  (+{others_text(group.others, group.unchecked)})"
    lines.append(more)
    return "\n".join(lines) + "\n"


def _shapes(shapes: Shapes, total: int, shown: int) -> list[str]:
    out = []
    for shape, count in shapes.counts.most_common(shown):
        file, number = shapes.first[shape]
        out.append(f"  {count:>6}  {_line(shape, 160)}  (first {_line(file, 120)}:{number})")
    rest_lines = total - sum(count for _, count in shapes.counts.most_common(shown))
    rest_shapes = len(shapes.counts) - min(shown, len(shapes.counts))
    if rest_lines > 0:
        out.append(f"  and {rest_lines:,} more line(s) of {rest_shapes:,}{'+' if shapes.other else ''} other shape(s)")
    return out


def closing_text(summary: GroupedSummary) -> str:
    """Lines read and matched, per severity, and the unclassified lines by shape."""
    severities = ", ".join(f"{summary.per_severity[s]:,} {s}" for s in SEVERITIES
                           if summary.per_severity.get(s))
    lines = [f"{summary.lines:,} line(s) read, {summary.matched_lines:,} matched "
             f"{_plural(len(summary.groups), 'record')}" + (f": {severities}" if severities else "")]
    if summary.unclassified:
        lines.append(f"{summary.unclassified:,} error-looking line(s) matched no record; the most frequent shapes:")
        lines += _shapes(summary.shapes, summary.unclassified, SHOWN_SHAPES)
    else:
        lines.append("no error-looking line went unmatched")
    return "\n".join(lines) + "\n"


def groups_text(summary: GroupedSummary, *, page: Callable[[dict[str, Any]], str | None], color: bool) -> str:
    """Every group's block, a blank line between them, then the closing summary."""
    blocks = [group_text(group, page=page(group.match.record), color=color) for group in ordered_groups(summary)]
    return "\n".join([*blocks, closing_text(summary)])


def summary_text(summary: GroupedSummary) -> str:
    """``--summary``: a line per record (count, severity, class, slug, where and when) and its fix, then the
    unclassified lines (the first :data:`SUMMARY_SAMPLES`, then how many more)."""
    data = summary.as_dict()
    lines = [f"{data['matchedLines']} of {data['lines']} line(s) matched a record"]
    for entry in data["records"]:
        group = summary.groups[entry["id"]]
        first, last = entry["first"], entry["last"]
        lines.append(
            f"  {entry['count']:>6}  {entry['severity']:<8} {entry['errorClass']:<22} {entry['slug']}  "
            f"(first {_line(first['file'])}:{first['line']}, last {_line(last['file'])}:{last['line']}; "
            f"{time_range(group)})"
        )
        record = group.match.record
        fix = "not documented yet (a draft)" if is_draft(record) else _line(fix_of(record, group.constant_groups()))
        lines.append(f"          fix: {fix or '(no solution recorded yet)'}")
    lines.append(f"{data['unclassified']} error-looking line(s) matched no record")
    for sample in data["unclassifiedSamples"][:SUMMARY_SAMPLES]:
        lines.append(f"  {_line(sample['file'])}:{sample['line']}: {sample['text'][:160]}")
    rest = data["unclassified"] - min(SUMMARY_SAMPLES, len(data["unclassifiedSamples"]))
    if rest > 0:
        lines.append(f"  and {rest:,} more")
    return safe("\n".join(lines)) + "\n"
