"""The compiled matcher: which records' patterns occur in a line, ranked, with captured values.

Hyperscan scans a whole block of lines once for every pattern at the same
time (linear in the text, whatever the patterns), looking for each
pattern's rarest piece of literal text (or, for the few patterns without
one, for the whole expression); each candidate is then confirmed on its own
line, by a substring search for plain-text patterns and by RE2, which also
extracts the span and groups, for the others. No backtracking engine ever
runs a record's pattern over a log line. The compiled databases and each
pattern's analysis are cached on disk, keyed by the patterns, so a later
start only loads them.

Blocks are bytes of valid UTF-8 (the readers replace invalid sequences),
lines separated by ``\n``. Spans are character offsets into the decoded line.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hyperscan
import re2

from errdex import patterns
from errdex._files import write_atomic
from errdex._version import __version__
from errdex.errors import DataError
from errdex.match import prefilter

__all__ = ["Match", "Matcher", "rank_key"]

# MULTILINE: ^ and $ hold at every line break, so a buffer of many lines scans like each line alone.
_FLAGS = patterns.HYPERSCAN_FLAGS | hyperscan.HS_FLAG_MULTILINE
#: Bump when the cached plan's shape changes.
_PLAN_FORMAT = "4"
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


def _analyse(pattern: str) -> list[Any]:
    """``[problem, literal chars, variable parts, RE2 source, exact text, required literals]`` of one pattern."""
    problems = patterns.portability_problems(pattern)
    if problems:
        return [problems[0].message, 0, 0, None, None, []]
    return [None, patterns.literal_chars(pattern), patterns.variable_parts(pattern), patterns.to_re2(pattern),
            patterns.exact_text(pattern), patterns.required_literals(pattern)]


class Matcher:
    """Every portable pattern of a set of records, compiled for scanning lines.

    Two hyperscan databases find the candidates of a block: one of literal
    keys (each pattern's rarest piece of literal text, see
    :mod:`errdex.match.prefilter`), and one of full expressions for the few
    patterns without a usable key. Both, with each pattern's analysis, are
    cached in one file per set of patterns.
    """

    def __init__(self, records: Sequence[dict[str, Any]], *, cache_dir: Path | None = None) -> None:
        self.records: list[dict[str, Any]] = []
        self.skipped: list[tuple[dict[str, Any], str]] = []
        self._patterns: list[str] = []
        self._re2_sources: list[str | None] = []
        self._exact: list[bytes | None] = []  # plain-text patterns: found by a substring search, no regex
        self._regexes: list[Any] = []
        self._keys: list[tuple[int, int]] = []
        digest = hashlib.sha256(
            "\0".join([_PLAN_FORMAT, hyperscan.__version__, str(_FLAGS), __version__, sys.version,
                       *(r["messagePattern"] for r in records)])
            .encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        path = cache_dir / f"{digest}.marshal" if cache_dir is not None else None
        cached = self._load(path, len(records))
        plan = cached["plan"] if cached else [_analyse(r["messagePattern"]) for r in records]
        for record, (problem, literal, variable, re2_source, exact, _) in zip(records, plan, strict=True):
            if problem:
                self.skipped.append((record, problem))
                continue
            self.records.append(record)
            self._patterns.append(record["messagePattern"])
            self._re2_sources.append(re2_source)
            self._exact.append(exact.encode("utf-8", "replace") if exact else None)
            self._regexes.append(None)  # compiled by RE2 on the first hit
            self._keys.append((literal, variable))
        if cached:
            keys, self._literal_db, self._regex_db = cached["keys"], cached["literal_db"], cached["regex_db"]
        else:
            kept = [entry for entry in plan if not entry[0]]
            keys = prefilter.choose_keys([[text.encode("utf-8", "replace") for text in entry[5]] for entry in kept])
            self._literal_db, self._regex_db = self._compile(keys)
            self._save(path, plan, keys)
        unique: dict[bytes, list[int]] = {}
        self._regex_targets: list[int] = []
        for index, key in enumerate(keys):
            if key is None:
                self._regex_targets.append(index)
            else:
                unique.setdefault(key, []).append(index)
        self._key_targets: list[tuple[int, ...]] = [tuple(targets) for targets in unique.values()]
        self._literal_scratch = hyperscan.Scratch(self._literal_db) if self._literal_db is not None else None
        self._regex_scratch = hyperscan.Scratch(self._regex_db) if self._regex_db is not None else None

    def _compile(self, keys: list[bytes | None]) -> tuple[Any, Any]:
        unique = list(dict.fromkeys(key for key in keys if key is not None))
        fallback = [patterns.to_hyperscan_existence(self._patterns[i]) for i, key in enumerate(keys) if key is None]
        try:
            literal_db = regex_db = None
            if unique:
                literal_db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                literal_db.compile(expressions=unique, ids=list(range(len(unique))), flags=[0] * len(unique), literal=True)
            if fallback:
                regex_db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                regex_db.compile(expressions=fallback, ids=list(range(len(fallback))), flags=[_FLAGS] * len(fallback))
        except hyperscan.error as exc:
            raise DataError(f"hyperscan cannot compile the patterns: {exc}; run 'errdex validate'") from exc
        return literal_db, regex_db

    @staticmethod
    def _load(path: Path | None, count: int) -> dict[str, Any] | None:
        if path is None:
            return None
        try:
            cached = marshal.loads(path.read_bytes())
            if len(cached["plan"]) != count:
                return None
            for name in ("literal_db", "regex_db"):
                if cached[name] is not None:
                    cached[name] = hyperscan.loadb(cached[name], hyperscan.HS_MODE_BLOCK)
            return cached  # type: ignore[no-any-return]
        except (OSError, ValueError, EOFError, TypeError, KeyError, hyperscan.error):
            return None

    def _save(self, path: Path | None, plan: list[Any], keys: list[bytes | None]) -> None:
        if path is None:
            return
        cached = {
            "plan": [[*entry[:5], []] for entry in plan],  # the literals served to choose the keys
            "keys": keys,
            "literal_db": hyperscan.dumpb(self._literal_db) if self._literal_db is not None else None,
            "regex_db": hyperscan.dumpb(self._regex_db) if self._regex_db is not None else None,
        }
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, marshal.dumps(cached))
        except OSError:
            pass  # a cache that cannot be written only costs time

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
        """Line start offset -> indexes of the records that may match that line; one scan per database.

        Patterns cannot cross a line break (``.`` and negated classes exclude
        it), and every candidate is confirmed by RE2 on its own line, so
        scanning many lines at once never changes a result.
        """
        found: dict[int, set[int]] = {}
        if not block:
            return found
        rfind = block.rfind

        def add(line: int, targets: Iterable[int]) -> None:
            hit = found.get(line)
            if hit is None:
                found[line] = set(targets)
            else:
                hit.update(targets)

        if self._literal_db is not None:
            key_targets = self._key_targets
            self._literal_db.scan(block, scratch=self._literal_scratch, match_event_handler=(
                lambda key, start, end, flags, context: add(rfind(b"\n", 0, end) + 1 if end else 0, key_targets[key])))
        if self._regex_db is not None:
            regex_targets = self._regex_targets
            self._regex_db.scan(block, scratch=self._regex_scratch, match_event_handler=(
                lambda index, start, end, flags, context: add(rfind(b"\n", 0, end) + 1 if end else 0,
                                                               (regex_targets[index],))))
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
