"""A record's statement at its own commit (``analyzedSha``): parsed from the file at that commit with the
harvest's finder when the commit is in the repository, else read from the record's ``sourceCode`` excerpt.

Only the record's own file is parsed, with what that file itself offers (its constants and declared sinks) and
not the whole tree's: the statement is found by its line, and what is wanted of it is its function, its
extent and its text."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from errdex.drift.fingerprint import statement_text
from errdex.drift.relocate import OldStatement
from errdex.harvest.drafts import message_text, source_lines
from errdex.harvest.languages import finder_for
from errdex.harvest.sinks import Sink
from errdex.harvest.sites import Site

__all__ = ["from_excerpt", "old_statements"]

_FUNCTION = re.compile(r"\bin ([\w.$:<>~]+)\(\)")


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def from_excerpt(record: Mapping[str, Any]) -> OldStatement:
    """The statement as the record quotes it: the excerpt's line at ``lineNumber``, the function named by a
    drafted ``triggerScenarios`` (``... in execute() ...``)."""
    path, line = str(record.get("filePath") or ""), _int(record.get("lineNumber"), 1)
    excerpt = record.get("sourceCode")
    start = _int(record.get("sourceCodeStart"), line)
    lines = str(excerpt).split("\n") if isinstance(excerpt, str) else []
    text = lines[line - start] if 0 <= line - start < len(lines) else ""
    trigger = record.get("triggerScenarios")
    named = _FUNCTION.search(trigger) if isinstance(trigger, str) else None
    call = record.get("errorClass")
    return OldStatement(path, line, line, text, named.group(1) if named else None,
                        call if isinstance(call, str) else None)


def _site_at(sites: Sequence[Site], line: int, message: str) -> Site | None:
    here = [site for site in sites if site.line == line]
    same = [site for site in here if message_text(site.template) == message]
    chosen = same or here
    return chosen[0] if chosen else None


def old_statements(records: Sequence[Mapping[str, Any]], files: Mapping[str, bytes],
                   sinks: Mapping[str, Sequence[Sink]], levels: frozenset[str]) -> list[OldStatement]:
    """The old statement of each record (all at one commit; ``files``: their files at that commit)."""
    parsed: dict[str, tuple[list[str], list[Site]]] = {}
    found: list[OldStatement] = []
    for record in records:
        fallback = from_excerpt(record)
        data = files.get(fallback.path)
        finder = finder_for(fallback.path) if data is not None else None
        if data is None or finder is None:
            found.append(fallback)
            continue
        if fallback.path not in parsed:
            try:
                sites = finder.find(data, fallback.path, sinks=sinks.get(finder.name, finder.default_sinks),
                                    levels=levels, facts=finder.survey(data)).sites
            except Exception:  # a file the finder cannot read: the record's excerpt stands in for it
                sites = []
            parsed[fallback.path] = (source_lines(data), sites)
        lines, sites = parsed[fallback.path]
        site = _site_at(sites, fallback.line, str(record.get("errorMessage") or ""))
        end = site.end_line if site is not None else fallback.line
        found.append(OldStatement(fallback.path, fallback.line, end, statement_text(lines, fallback.line, end),
                                  site.function if site is not None else fallback.function,
                                  fallback.call))
    return found
