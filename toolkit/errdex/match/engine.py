"""The compiled matcher: which records' patterns occur in a line, ranked, with captured values.

Hyperscan scans a whole block of lines once for every pattern at the same
time (linear in the text, whatever the patterns); RE2 then extracts the span
and groups of the few patterns that hit, on their own line. No backtracking
engine ever runs a record's pattern over a log line. The compiled hyperscan
database and each pattern's translations are cached on disk, keyed by the
patterns, so a later start only loads them.

Blocks are bytes of valid UTF-8 (the readers replace invalid sequences),
lines separated by ``\n``. Spans are character offsets into the decoded line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
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
#: Bump when the cached plan's shape changes.
_PLAN_FORMAT = "3"
_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED
_RE2_OPTIONS = re2.Options()
_NO_SPAN = (-1, -1)


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
        self._re2_sources: list[str | None] = []
        self._exact: list[bytes | None] = []  # plain-text patterns: found by a substring search, no regex
        self._regexes: list[Any] = []
        self._keys: list[tuple[int, int]] = []
        digest = hashlib.sha256(
            "\0".join([_PLAN_FORMAT, hyperscan.__version__, str(_FLAGS), __version__,
                       *(r["messagePattern"] for r in records)])
            .encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        stem = cache_dir / digest if cache_dir is not None else None
        plan = self._cached_plan(stem, len(records))
        sources: list[bytes] = []
        for position, record in enumerate(records):
            pattern = record["messagePattern"]
            if plan is not None:
                problem, literal, variable, re2_source, exact = plan[position]
            else:
                problems = patterns.portability_problems(pattern)
                problem = problems[0].message if problems else None
                literal, variable = (0, 0) if problem else (patterns.literal_chars(pattern), patterns.variable_parts(pattern))
                re2_source = None if problem else patterns.to_re2(pattern)
                exact = None if problem else patterns.exact_text(pattern)
                if not problem:
                    sources.append(patterns.to_hyperscan_existence(pattern))
            if problem:
                self.skipped.append((record, problem))
                continue
            self.records.append(record)
            self._patterns.append(pattern)
            self._re2_sources.append(re2_source)
            self._exact.append(exact.encode("utf-8", "replace") if exact else None)
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
        if not isinstance(plan, list) or len(plan) != count or any(not isinstance(p, list) or len(p) != 5 for p in plan):
            return None
        return plan

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
        kept = iter(zip(self._keys, self._re2_sources, self._exact, strict=True))
        plan = []
        for record in records:
            if id(record) in skipped:
                plan.append([skipped[id(record)], 0, 0, None, None])
            else:
                (literal, variable), source, exact = next(kept)
                plan.append([None, literal, variable, source, exact.decode("utf-8") if exact else None])
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
            source = self._re2_sources[index]
            if source is None:
                source = self._re2_sources[index] = patterns.to_re2(self._patterns[index])
            # The compiled RE2 object itself: the wrapper's per-call work costs more than the search on short lines.
            regex = re2._re2.RE2(source.encode("utf-8"), _RE2_OPTIONS)
            if not regex.ok():
                raise DataError(f"RE2 cannot compile the pattern of record {self.records[index]['id']}: {regex.error()}")
            self._regexes[index] = regex
        return regex

    def _hits(self, block: bytes) -> dict[int, set[int]]:
        """Line start offset -> indexes of the records that may match that line; one scan for the block.

        Patterns cannot cross a line break (``.`` and negated classes exclude
        it), and every candidate is confirmed by RE2 on its own line, so
        scanning many lines at once never changes a result.
        """
        found: dict[int, set[int]] = {}
        if self._database is None or not block:
            return found
        rfind = block.rfind

        def on_hit(index: int, start: int, end: int, flags: int, context: Any) -> None:
            line = rfind(b"\n", 0, end) + 1 if end else 0
            hit = found.get(line)
            if hit is None:
                found[line] = {index}
            else:
                hit.add(index)

        self._database.scan(block, match_event_handler=on_hit, scratch=self._scratch)
        return found

    def confirm(self, line: bytes, indexes: set[int] | list[int]) -> list[Match]:
        """The candidates RE2 confirms on the line (UTF-8 bytes), with spans and groups, best first."""
        found = []
        ascii_only = line.isascii()
        for index in indexes:
            exact = self._exact[index]
            if exact is not None:
                start = line.find(exact)
                if start < 0:
                    continue
                end, groups = start + len(exact), ()
            else:
                spans = self._regex(index).Match(_UNANCHORED, line, 0, len(line))
                if spans[0] == _NO_SPAN:  # a candidate RE2 does not confirm (e.g. a pattern with a literal line break)
                    continue
                groups = tuple(None if s == _NO_SPAN else line[s[0] : s[1]].decode("utf-8", "replace") for s in spans[1:])
                start, end = spans[0]
            if not ascii_only:  # byte offsets to character offsets
                start, end = len(line[:start].decode("utf-8", "replace")), len(line[:end].decode("utf-8", "replace"))
            literal, variable = self._keys[index]
            found.append(Match(self.records[index], (start, end), groups, literal, variable))
        found.sort(key=rank_key)
        return found

    def match(self, line: str) -> list[Match]:
        """Every record whose pattern occurs in the line, best first."""
        data = line.encode("utf-8", "replace")  # a lone surrogate becomes '?', one character for one
        candidates = set().union(*self._hits(data).values()) if data else set()
        return self.confirm(data, candidates)

    def match_block(self, block: bytes) -> Iterator[tuple[int, int, list[Match]]]:
        """``(line start, line end, matches)`` for each line of the block that matches, in order.

        ``block``: lines of valid UTF-8 separated by ``\\n``.
        """
        hits = self._hits(block)
        for start in sorted(hits):
            end = block.find(b"\n", start)
            end = len(block) if end < 0 else end
            matches = self.confirm(block[start:end], hits[start])
            if matches:
                yield start, end, matches
