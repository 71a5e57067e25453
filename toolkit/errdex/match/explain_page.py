"""``errdex explain``'s page, the fix first (like ``rustc --explain``): the message as the line wrote it, then
what it means, then how to fix it, all within the first screen at 80 columns; then the rest (other fixes,
triggers, situations, prevention, scenarios with their proof, the values captured, the pattern, the source).

A draft shows what the code tells (its origin, the excerpt, the drafted trigger) instead of empty prose.
Control characters of the record and of the line are shown as escapes.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from errdex.match.explaining import Found, ProofStatus
from errdex.match.render import _excerpt, _origin, substitute  # the draft's origin, written once in render
from errdex.records.text import first_sentence
from errdex.records.vocabulary import DEFAULT_STATUS, is_draft, status_of
from errdex.terminal import safe, safe_value

__all__ = ["SHORT_LINES", "WIDTH", "explain_page"]

#: The terminal width the page is wrapped for.
WIDTH = 80
#: The most lines ``--short`` prints.
SHORT_LINES = 14
_INDENT = "    "
#: Blank runs read as one space before wrapping (textwrap is quadratic in a long run of blanks).
_BLANKS = re.compile(r"[\t\n\x0b\x0c\r ]+")


def _text(value: Any) -> str:
    """A field as text; a record that does not conform yet may hold anything."""
    return value if isinstance(value, str) else ""


def _texts(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str) and item.strip()] if isinstance(value, list) else []


def _style(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


def _wrap(text: str, first: str = _INDENT, rest: str | None = None) -> list[str]:
    """Prose wrapped to the page's width, the first line after ``first``, the others after ``rest``."""
    rest = first if rest is None else rest
    return textwrap.wrap(_BLANKS.sub(" ", text).strip(), WIDTH, initial_indent=first, subsequent_indent=rest,
                         break_on_hyphens=False) or [first.rstrip()]


def _code(text: str, indent: str = _INDENT) -> list[str]:
    return [f"{indent}{line}".rstrip() for line in text.rstrip().split("\n")]


def _heading(title: str, color: bool) -> list[str]:
    return ["", _style(title, "1", color)]


def _head(found: Found, record: dict[str, Any], color: bool) -> list[str]:
    """The title (the message with the line's values), severity, class, repository, id and slug, and the
    record's status when it is not an active documented one."""
    badges = [_text(record.get("severity")), _text(record.get("errorClass")), _text(record.get("errorType"))]
    if record.get("httpStatus") and not (found.match and any(g is not None for g in found.match.groups)):
        badges.append(f"HTTP {record['httpStatus']}")  # a record's status is its example's: not for a line's
    alarm = "1;31" if record.get("severity") in ("error", "critical") else "1;33"
    out = [_style(safe(found.title, newlines=False), "1", color),
           f"{_style(' · '.join(b for b in badges if b), alarm, color)}   {_text(record.get('repo'))}",
           f"id {record['id']} · slug {_text(record.get('slug'))}"]
    status = status_of(record)
    if is_draft(record):
        out.append(_style("This record is a draft: harvested from the code, not documented yet.", "1;33", color))
    elif status != DEFAULT_STATUS:
        notice = f"This record is {status}: {record.get('statusReason') or 'no reason given'}"
        if record.get("supersededBy"):
            notice += f" See errdex explain {record['supersededBy']}."
        out += _wrap(notice, "", "")
    return out


def _groups(found: Found) -> tuple[str | None, ...]:
    return tuple(safe(g, newlines=False) if g is not None else None for g in (found.match.groups if found.match
                                                                              else ()))


def _meaning(record: dict[str, Any]) -> tuple[str, str]:
    """The documentation's first sentence and the rest of it."""
    documentation = _text(record.get("documentation")).strip()
    first = first_sentence(documentation)
    return first, documentation[len(first):].strip()


def _fix(record: dict[str, Any], groups: tuple[str | None, ...]) -> tuple[str, str]:
    """The first solution and the example fix, the captured values in place of their placeholders."""
    solutions = _texts(record.get("solutions"))
    return (substitute(solutions[0], groups) if solutions else "",
            substitute(_text(record.get("exampleFix")), groups))


def _short(found: Found, record: dict[str, Any], color: bool) -> list[str]:
    """Title, meaning and fix in at most :data:`SHORT_LINES` lines (the example fix cut to what fits)."""
    out = _head(found, record, color)
    meaning, _ = _meaning(record)
    solution, example = _fix(record, _groups(found))
    out.append("")
    if meaning:
        out += _wrap(meaning, "meaning: ", " " * 9)[:3]
    out += _wrap(solution, "fix: ", " " * 5)[:3] if solution else ["fix: (no solution recorded yet)"]
    room = SHORT_LINES - len(out) - 1
    if example.strip() and room > 0:
        lines = _code(example, " " * 5)
        out += lines if len(lines) <= room else [*lines[:room - 1], " " * 5 + "..."]
    out.append(f"more: errdex explain {_text(record.get('slug'))}")
    return out[:SHORT_LINES]


def _first_screen(found: Found, record: dict[str, Any], proof: ProofStatus, color: bool) -> list[str]:
    """Title, what it means (its first sentence), how to fix it (first solution, example fix), the proof."""
    out = _head(found, record, color)
    meaning, _ = _meaning(record)
    solution, example = _fix(record, _groups(found))
    if meaning:
        out += _heading("What it means", color) + _wrap(meaning)
    if solution or example.strip():
        out += _heading("How to fix it", color)
        out += _wrap(solution, _INDENT + "1. ", _INDENT + "   ") if solution else []
        if example.strip():
            out += ["", f"{_INDENT}Example fix:", *_code(example, _INDENT * 2)]
    if record.get("scenarios") or proof.proof is not None:
        how = f"errdex explain {record['id']} --prove"
        out += ["", *_wrap(safe(proof.line(record, how), newlines=False), "Proof: ", " " * 7)]
    return out


def _scenarios(record: dict[str, Any], proof: ProofStatus, color: bool) -> list[str]:
    scenarios = [s for s in record.get("scenarios") or [] if isinstance(s, dict)]
    if not scenarios:
        return []
    out = _heading(f"Scenarios ({len(scenarios)})", color)
    for scenario in scenarios:
        ran = proof.scenario(str(scenario.get("id")))
        mark = "" if ran is None else ("  [passed]" if ran.get("passed") is True else "  [FAILED]")
        out += _wrap(f"{scenario.get('id')}: {_text(scenario.get('summary'))}{mark}", _INDENT + "- ",
                     _INDENT + "  ")
        if ran is not None and ran.get("passed") is not True:
            out += [f"{_INDENT}    {safe(str(f), newlines=False)}" for f in ran.get("failures") or []]
    return out


def _captured(found: Found, color: bool) -> list[str]:
    groups = _groups(found)
    if not any(g is not None for g in groups):
        return []
    return _heading("Captured from the line", color) + [
        f"{_INDENT}${i} = " + (f'"{g}"' if g is not None else "(not matched)") for i, g in enumerate(groups, 1)]


def _source(record: dict[str, Any], color: bool) -> list[str]:
    """Where the message comes from: a draft's origin and excerpt, a documented record's file and link."""
    if is_draft(record):
        link = _text(record.get("githubUrl"))
        out = [*_heading("Where it comes from", color), _INDENT + _origin(record), _INDENT + link]
        excerpt = _excerpt(record)
        return out + (_heading("Source", color) + _code(excerpt) if excerpt else [])
    place = f"{_text(record.get('filePath'))}:{record.get('lineNumber')}"
    return [*_heading("Source", color), _INDENT + place, _INDENT + _text(record.get("githubUrl"))]


def _rest(found: Found, record: dict[str, Any], proof: ProofStatus, color: bool) -> list[str]:
    """Everything after the first screen, each block only when the record has something to say in it."""
    out: list[str] = []
    _, more = _meaning(record)
    if more:
        out += _heading("More on what it means", color) + _wrap(more)
    others = _texts(record.get("solutions"))[1:]
    if others:
        groups = _groups(found)
        out += _heading("Other fixes", color)
        for number, text in enumerate(others, 2):
            out += _wrap(substitute(text, groups), f"{_INDENT}{number}. ", _INDENT + "   ")
    trigger = "What triggers it (drafted from the code)" if is_draft(record) else "What triggers it"
    for title, name in ((trigger, "triggerScenarios"), ("Common situations", "commonSituations")):
        if _text(record.get(name)).strip():
            out += _heading(title, color) + _wrap(record[name])
    tips = _texts(record.get("preventionTips"))
    if tips:
        out += _heading("Prevention", color)
        for tip in tips:
            out += _wrap(tip, _INDENT + "- ", _INDENT + "  ")
    out += _scenarios(record, proof, color) + _captured(found, color)
    out += [*_heading("Pattern", color), _INDENT + _text(record.get("messagePattern"))]
    return out + _source(record, color)


def _release_line(dataset_version: str | None, releases: tuple[str, str] | None) -> list[str]:
    """The release the record is in, the one it was added in and the one its content last changed in."""
    if not (dataset_version or releases):
        return []
    when = f"release {dataset_version}" if dataset_version else "unreleased"
    if releases:
        when += f"; added in {releases[0]}"
        if releases[1] != releases[0]:
            when += f", content last changed in {releases[1]}"
    return ["", when]


def explain_page(found: Found, *, proof: ProofStatus | None = None, short: bool = False, color: bool = False,
                 dataset_version: str | None = None, releases: tuple[str, str] | None = None) -> str:
    """The page of the record ``found``; ``short``: title, meaning and fix only (at most :data:`SHORT_LINES`
    lines). ``proof``: the record's proof in a real run, if one ran. ``releases``: the release the record was
    added in and the one its content last changed in."""
    record = safe_value(found.record)
    if short:
        return "\n".join(_short(found, record, color)) + "\n"
    proof = proof or ProofStatus(None, None)
    out = _first_screen(found, record, proof, color) + _rest(found, record, proof, color)
    out += _release_line(dataset_version, releases)
    tags = _texts(record.get("tags"))
    if tags:
        out += ["", "tags: " + ", ".join(tags)]
    return "\n".join(out) + "\n"
