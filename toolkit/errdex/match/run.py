"""Matching whole inputs: files, stdin, growing files; with a summary like an unclassified-failures list."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex.errors import InputError
from errdex.match.knowledge import KnowledgeBase, LineMatch
from errdex.match.readers import read_blocks, read_lines

__all__ = ["MatchSummary", "SEVERITY_ORDER", "match_files"]

SEVERITY_ORDER = {"info": 0, "warning": 1, "error": 2, "critical": 3}
#: Lines that look like an error, for the list of lines no record explains.
ERROR_LOOKING = re.compile(rb"(?i)\b(error|exception|fatal|fail(ed|ure)?|panic|traceback|refused|timed? ?out)\b")
MAX_UNCLASSIFIED_SAMPLES = 50


@dataclass
class MatchSummary:
    """Counts per record, first and last line seen, and error-looking lines that matched nothing."""

    lines: int = 0
    matched_lines: int = 0
    per_record: dict[str, dict[str, Any]] = field(default_factory=dict)
    unclassified: int = 0
    unclassified_samples: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add(self, line: LineMatch) -> None:
        self.matched_lines += 1
        best = line.matches[0].record
        entry = self.per_record.setdefault(
            best["id"], {"id": best["id"], "slug": best["slug"], "errorClass": best["errorClass"],
                         "severity": best["severity"], "count": 0, "first": None, "last": None},
        )
        entry["count"] += 1
        where = {"file": line.source, "line": line.number}
        entry["first"] = entry["first"] or where
        entry["last"] = where

    def note_unclassified(self, source: str, number: int, text: str) -> None:
        """An error-looking line that matched no record."""
        self.unclassified += 1
        if len(self.unclassified_samples) < MAX_UNCLASSIFIED_SAMPLES:
            self.unclassified_samples.append({"file": source, "line": number, "text": text[:500]})

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "matchedLines": self.matched_lines,
            "records": sorted(self.per_record.values(), key=lambda e: (-e["count"], e["slug"])),
            "unclassified": self.unclassified,
            "unclassifiedSamples": self.unclassified_samples,
            "problems": self.problems,
        }


def _error_looking(block: bytes) -> Iterator[tuple[int, str]]:
    """``(line index, text)`` of each line of a block that looks like an error, in order."""
    number, previous, last_line = 0, 0, -1
    for hit in ERROR_LOOKING.finditer(block):
        start = block.rfind(b"\n", 0, hit.start()) + 1
        if start == last_line:
            continue
        number += block.count(b"\n", previous, start)
        previous = last_line = start
        end = block.find(b"\n", start)
        yield number, block[start : (len(block) if end < 0 else end)].decode("utf-8", "replace")


def match_files(
    paths: Sequence[str | Path],
    *,
    kb: KnowledgeBase,
    summary: MatchSummary | None = None,
    follow: bool = False,
    stop: Callable[[], bool] | None = None,
    unclassified: bool = True,
) -> Iterator[LineMatch]:
    """Matched lines of every input in order; an unreadable input is noted in the summary and skipped.

    ``unclassified``: also count the error-looking lines that matched nothing.
    """
    summary = summary if summary is not None else MatchSummary()
    for path in paths or ["-"]:
        source = "<stdin>" if str(path) == "-" else str(path)
        number = 0
        try:
            if follow:  # each line as it arrives
                for text in read_lines(path, follow=True, stop=stop):
                    number += 1
                    summary.lines += 1
                    matches = kb.match(text)
                    if matches:
                        line = LineMatch(source, number, text, matches)
                        summary.add(line)
                        yield line
                    elif unclassified and ERROR_LOOKING.search(text.encode("utf-8", "replace")):
                        summary.note_unclassified(source, number, text)
                continue
            for block in read_blocks(path):  # otherwise a block of lines per engine pass
                matched = set()
                for index, text, matches in kb.match_block(block):
                    line = LineMatch(source, number + index + 1, text, matches)
                    matched.add(index)
                    summary.add(line)
                    yield line
                count = block.count(b"\n") + 1
                if unclassified:
                    for index, text in _error_looking(block):
                        if index not in matched:
                            summary.note_unclassified(source, number + index + 1, text)
                summary.lines += count
                number += count
        except InputError as exc:
            summary.problems.append(str(exc))
