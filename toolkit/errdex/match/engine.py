"""The compiled matcher: which records' patterns occur in a line, ranked, with captured values.

Hyperscan scans each line once for every pattern at the same time (linear in
the line, whatever the patterns); RE2 then extracts the span and groups of
the few patterns that hit. No backtracking engine ever runs a record's
pattern over a log line. The compiled hyperscan database is cached on disk,
keyed by the patterns, so a later start only loads it.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hyperscan
import re2

from errdex import patterns
from errdex._files import write_atomic
from errdex._version import __version__
from errdex.errors import DataError

__all__ = ["Match", "Matcher", "rank_key"]

# MULTILINE: ^ and $ hold at every line break, so a buffer of many lines scans like each line alone.
_FLAGS = patterns.HYPERSCAN_FLAGS | hyperscan.HS_FLAG_MULTILINE
_NEWLINE = re.compile(b"\n")


@dataclass(frozen=True)
class Match:
    """One record whose pattern occurs in a line."""

    record: dict[str, Any]
    span: tuple[int, int]
    groups: tuple[str | None, ...]
    literal_chars: int
    variable_parts: int

    @property
    def score(self) -> int:
        """Higher is more specific: literal characters first, then fewer variable parts."""
        return self.literal_chars * 1000 - self.variable_parts

    def as_dict(self) -> dict[str, Any]:
        record = self.record
        return {
            "id": record["id"],
            "slug": record["slug"],
            "repo": record["repo"],
            "errorClass": record["errorClass"],
            "severity": record["severity"],
            "score": self.score,
            "span": list(self.span),
            "groups": list(self.groups),
        }


def rank_key(match: Match) -> tuple[int, int, str]:
    """Most literal characters first, then fewest variable parts, then record id."""
    return (-match.literal_chars, match.variable_parts, match.record["id"])


class Matcher:
    """Every portable pattern of a set of records, compiled for scanning lines."""

    def __init__(self, records: Sequence[dict[str, Any]], *, cache_dir: Path | None = None) -> None:
        self.records: list[dict[str, Any]] = []
        self.skipped: list[tuple[dict[str, Any], str]] = []
        self._patterns: list[str] = []
        self._regexes: list[Any] = []
        self._keys: list[tuple[int, int]] = []
        digest = hashlib.sha256(
            "\0".join([hyperscan.__version__, str(_FLAGS), __version__, *(r["messagePattern"] for r in records)])
            .encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        stem = cache_dir / digest if cache_dir is not None else None
        plan = self._cached_plan(stem, len(records))
        sources: list[bytes] = []
        for position, record in enumerate(records):
            pattern = record["messagePattern"]
            if plan is not None:
                problem, literal, variable = plan[position]
            else:
                problems = patterns.portability_problems(pattern)
                problem = problems[0].message if problems else None
                literal, variable = (0, 0) if problem else (patterns.literal_chars(pattern), patterns.variable_parts(pattern))
                if not problem:
                    sources.append(patterns.to_hyperscan_existence(pattern))
            if problem:
                self.skipped.append((record, problem))
                continue
            self.records.append(record)
            self._patterns.append(pattern)
            self._regexes.append(None)  # compiled by RE2 on the first hit
            self._keys.append((literal, variable))
        self._database = self._load(stem) if plan is not None else None
        if self._database is None and self.records:
            if not sources:
                sources = [patterns.to_hyperscan_existence(p) for p in self._patterns]
            self._database = self._compile(sources)
            self._save(stem, records)
        self._scratch = hyperscan.Scratch(self._database) if self._database is not None else None

    @staticmethod
    def _cached_plan(stem: Path | None, count: int) -> list[Any] | None:
        if stem is None:
            return None
        try:
            plan = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return plan if isinstance(plan, list) and len(plan) == count else None

    @staticmethod
    def _load(stem: Path | None) -> Any:
        if stem is None:
            return None
        try:
            return hyperscan.loadb(stem.with_suffix(".hsdb").read_bytes(), hyperscan.HS_MODE_BLOCK)
        except (hyperscan.error, OSError):
            return None

    def _save(self, stem: Path | None, records: Sequence[dict[str, Any]]) -> None:
        if stem is None:
            return
        skipped = {id(record): message for record, message in self.skipped}
        keys = iter(self._keys)
        plan = [[skipped[id(r)], 0, 0] if id(r) in skipped else [None, *next(keys)] for r in records]
        try:
            stem.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(stem.with_suffix(".hsdb"), hyperscan.dumpb(self._database))
            write_atomic(stem.with_suffix(".json"), json.dumps(plan).encode("utf-8"))
        except OSError:
            pass  # a cache that cannot be written only costs time

    @staticmethod
    def _compile(sources: list[bytes]) -> Any:
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        try:
            database.compile(expressions=sources, ids=list(range(len(sources))), flags=[_FLAGS] * len(sources))
        except hyperscan.error as exc:
            raise DataError(f"hyperscan cannot compile the patterns: {exc}; run 'errdex validate'") from exc
        return database

    def _regex(self, index: int) -> Any:
        regex = self._regexes[index]
        if regex is None:
            regex = self._regexes[index] = re2.compile(patterns.to_re2(self._patterns[index]))
        return regex

    def candidates_many(self, lines: Sequence[str]) -> dict[int, set[int]]:
        """For each line (by position) that may match, the indexes of the records that may.

        The lines are joined and scanned in one pass; a hit is mapped to its
        line by its end offset. Patterns cannot cross a line break (``.`` and
        negated classes exclude it), and every candidate is confirmed by RE2
        on its own line, so the buffer never changes a result.
        """
        if self._database is None or not lines:
            return {}
        buffer = "\n".join(lines).encode("utf-8", "surrogatepass")
        breaks = [m.start() for m in _NEWLINE.finditer(buffer)] if len(lines) > 1 else []
        found: dict[int, set[int]] = {}

        def on_hit(index: int, start: int, end: int, flags: int, context: Any) -> None:
            line = bisect.bisect_left(breaks, end) if end else 0
            found.setdefault(line, set()).add(index)

        self._database.scan(buffer, match_event_handler=on_hit, scratch=self._scratch)
        return found

    def _confirm(self, line: str, indexes: set[int] | list[int]) -> list[Match]:
        found = []
        for index in indexes:
            hit = self._regex(index).search(line)
            if hit is None:  # a candidate RE2 does not confirm (e.g. a pattern with a literal line break)
                continue
            literal, variable = self._keys[index]
            found.append(Match(self.records[index], hit.span(), tuple(hit.groups()), literal, variable))
        found.sort(key=rank_key)
        return found

    def match(self, line: str) -> list[Match]:
        """Every record whose pattern occurs in the line, best first."""
        return self._confirm(line, self.candidates_many([line]).get(0, set()))

    def match_many(self, lines: Sequence[str]) -> dict[int, list[Match]]:
        """For each line (by position) that matches, its matches, best first."""
        result = {}
        for position, indexes in self.candidates_many(lines).items():
            matches = self._confirm(lines[position], indexes)
            if matches:
                result[position] = matches
        return result
