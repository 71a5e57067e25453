"""Matching whole inputs: files, stdin, growing files; with a summary like an unclassified-failures list."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex.errors import InputError
from errdex.match.knowledge import KnowledgeBase, LineMatch
from errdex.match.readers import read_batches, read_lines

__all__ = ["MatchSummary", "SEVERITY_ORDER", "match_files"]

SEVERITY_ORDER = {"info": 0, "warning": 1, "error": 2, "critical": 3}
#: Lines that look like an error, for the list of lines no record explains.
ERROR_LOOKING = re.compile(r"(?i)\b(error|exception|fatal|fail(ed|ure)?|panic|traceback|refused|timed? ?out)\b")
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "matchedLines": self.matched_lines,
            "records": sorted(self.per_record.values(), key=lambda e: (-e["count"], e["slug"])),
            "unclassified": self.unclassified,
            "unclassifiedSamples": self.unclassified_samples,
            "problems": self.problems,
        }


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
            # Following: each line as it arrives; otherwise a block of lines per engine pass.
            batches = ([line] for line in read_lines(path, follow=True, stop=stop)) if follow else read_batches(path)
            for batch in batches:
                found = kb.match_batch(batch)
                summary.lines += len(batch)
                positions = range(len(batch)) if unclassified else sorted(found)
                for position in positions:
                    text = batch[position]
                    matches = found.get(position)
                    if matches:
                        line = LineMatch(source, number + position + 1, text, matches)
                        summary.add(line)
                        yield line
                    elif unclassified and ERROR_LOOKING.search(text[:4096]):
                        summary.unclassified += 1
                        if len(summary.unclassified_samples) < MAX_UNCLASSIFIED_SAMPLES:
                            summary.unclassified_samples.append(
                                {"file": source, "line": number + position + 1, "text": text[:500]}
                            )
                number += len(batch)
        except InputError as exc:
            summary.problems.append(str(exc))
