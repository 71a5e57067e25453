"""What errdex learns about a pattern, kept between runs: the one cache of pattern analyses and engine verdicts.

Every analysis of a pattern (size, portability, backtracking, required
literals, whether it matches a message) is a pure function of the pattern's
text and of the errdex version, so a validation run stores the results in the
user's cache and the next run (or a site build) reuses them: only new or
changed patterns are analysed again.  The engines' verdicts
(:func:`~errdex.patterns.compile_problems`) are kept here too, once every
engine has given one.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import re2

from errdex._files import write_atomic
from errdex._version import __version__

from .backtracking import backtracking_problems
from .linear import linear_time
from .literals import literal_chars, required_literals, variable_parts
from .matchable import refusal_of
from .nodes import Alternation, Group, Literal, Node, Repeat, Sequence
from .parser import parse
from .portability import portability_problems
from .re2_options import re2_options
from .size import size_problems
from .translate import to_js, to_re2

__all__ = ["FACTS_FILE", "PatternFacts", "pattern_shape"]

#: The cache file's name in the cache folder (see :func:`errdex.cache.usable_cache`).
FACTS_FILE = "pattern-facts.json"

#: Bump when an analysis changes what it finds (the cache key of every analysis holds it).
_ANALYSIS_FORMAT = "2"


@functools.lru_cache(maxsize=4096)
def _re2_regex(pattern: str) -> Any:
    """A linear-time engine for the full-message match: a record's own pattern must not hang validation."""
    return re2.compile(to_re2(pattern), re2_options())


def _literal_text(pattern: str) -> str | None:
    """The one text a pattern of literal characters only matches (RE2 need not be compiled to compare a message
    with it), else None."""
    root = parse(pattern).root
    if type(root) is Literal:
        return root.char
    if type(root) is Sequence and all(type(item) is Literal for item in root.items):
        return "".join(item.char for item in root.items)  # type: ignore[union-attr]  # every item is a Literal
    return None


def _literal_runs(node: Node, spans: list[tuple[int, int]]) -> None:
    """The source spans of the runs of literal characters no quantifier applies to, in ``node``."""
    if isinstance(node, Sequence):
        start = end = -1
        for item in node.items:
            if type(item) is Literal:
                start, end = (item.offset if start < 0 else start), item.end
                continue
            if start >= 0:
                spans.append((start, end))
                start = -1
            _literal_runs(item, spans)
        if start >= 0:
            spans.append((start, end))
    elif isinstance(node, Literal):
        spans.append((node.offset, node.end))
    elif isinstance(node, Alternation):
        for branch in node.branches:
            _literal_runs(branch, spans)
    elif isinstance(node, Group) or (isinstance(node, Repeat) and node.max == 1):
        _literal_runs(node.child, spans)  # what a repeat iterates keeps its characters: their UTF-8 size counts


def pattern_shape(pattern: str) -> str:
    """A portable pattern with each run of literal characters (outside classes and repeats) written as
    one ``a``: ``Lease ([0-9]+) expired\\.`` has the shape ``a([0-9]+)a``.

    What an engine thinks of a portable pattern within the size bounds does not depend on which characters its
    literal runs hold (they compile to fixed strings in every engine), so patterns of one shape share one engine
    verdict: a harvest of thousands of patterns holds a few dozen shapes. Only the shape is compiled while it
    compiles everywhere; the patterns of a shape that fails are compiled themselves, for their own messages."""
    spans: list[tuple[int, int]] = []
    _literal_runs(parse(pattern).root, spans)
    out: list[str] = []
    at = 0
    for start, end in sorted(spans):
        out += (pattern[at:start], "a")
        at = end
    out.append(pattern[at:])
    return "".join(out)


def _key(*parts: str) -> str:
    return hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _messages(problems: list[Any]) -> list[str]:
    """The messages of cached ``[offset, message]`` problems (a damaged entry still counts as a problem)."""
    return [str(p[1]) if isinstance(p, list) and len(p) == 2 else repr(p) for p in problems]


class PatternFacts:
    """Pattern analyses for one validation run, backed by a JSON file in the cache."""

    def __init__(self, cache_file: Path | None = None) -> None:
        self.cache_file = cache_file
        self.entries: dict[str, Any] = {}
        self.changed = False
        self._mark = 0
        #: Analyses asked for in this run, by pattern: the checks of one record ask for them six times.
        self._seen: dict[str, dict[str, Any]] = {}
        if cache_file is not None:
            try:
                data = json.loads(cache_file.read_text(encoding="utf-8"))
                if (isinstance(data, dict) and data.get("version") == __version__
                        and isinstance(data.get("entries"), dict)):
                    self.entries = data["entries"]
            except (OSError, ValueError):
                pass

    def known(self, pattern: str) -> dict[str, Any] | None:
        """The pattern's cached analysis (as :meth:`analysis` gives it), or None when this cache has none: for
        callers that need only part of it and would compute that part faster than the whole."""
        found = self.entries.get(_key("analysis", _ANALYSIS_FORMAT, pattern))
        if isinstance(found, dict) and all(isinstance(found.get(k), list)
                                           for k in ("size", "portability", "backtracking", "literals")):
            return found
        return None

    def analysis(self, pattern: str) -> dict[str, Any]:
        """Size, portability and backtracking problems and required literals of a pattern.

        A pattern over the size bounds (EDX125) is analysed no further: every other analysis and every engine
        would pay for its size."""
        seen = self._seen.get(pattern)
        if seen is not None:
            return seen
        key = _key("analysis", _ANALYSIS_FORMAT, pattern)
        found = self.entries.get(key)
        if not (isinstance(found, dict) and all(isinstance(found.get(k), list)
                                                for k in ("size", "portability", "backtracking", "literals"))):
            size = [[p.offset, p.message] for p in size_problems(pattern)]
            portability = [] if size else [[p.offset, p.message] for p in portability_problems(pattern)]
            found = {"size": size, "portability": portability, "backtracking": [], "literals": []}
            if not portability and not size:
                found["backtracking"] = [[p.offset, p.message] for p in backtracking_problems(pattern)]
                found["literals"] = required_literals(pattern)
            self.entries[key] = found
            self.changed = True
        if len(self._seen) < 1 << 17:
            self._seen[pattern] = found
        return found

    def refusal(self, pattern: str, *, browser: bool = False) -> str | None:
        """Why a matcher refuses the pattern, from its cached analysis (:func:`errdex.patterns.refusal`)."""
        found = self.analysis(pattern)
        size, portability, backtracking = (_messages(found[k]) for k in ("size", "portability", "backtracking"))
        return refusal_of(size, portability, backtracking, browser=browser)

    def browser(self, pattern: str) -> dict[str, Any]:
        """What the in-browser matcher is given of a portable pattern: its ``RegExp`` source and flags
        (:func:`~errdex.patterns.to_js`), its ranking keys (literal characters, variable parts) and whether a
        backtracking engine searches any line for it in linear time (:func:`~errdex.patterns.linear_time`,
        the costly part)."""
        key = _key("browser", _ANALYSIS_FORMAT, pattern)
        found = self.entries.get(key)
        if not (isinstance(found, dict) and isinstance(found.get("source"), str)
                and isinstance(found.get("flags"), str) and isinstance(found.get("linear"), bool)
                and all(type(found.get(k)) is int for k in ("literalChars", "variableParts"))):
            js = to_js(pattern)
            found = self.entries[key] = {"source": js["source"], "flags": js["flags"],
                                         "literalChars": literal_chars(pattern),
                                         "variableParts": variable_parts(pattern), "linear": linear_time(pattern)}
            self.changed = True
        return found

    def full_match(self, pattern: str, message: str) -> bool:
        """Whether a portable pattern matches the whole message (RE2: linear time)."""
        key = _key("full", pattern, message)
        found = self.entries.get(key)
        if not isinstance(found, bool):  # unknown, or a damaged cache entry
            literal = _literal_text(pattern)
            found = self.entries[key] = (message == literal if literal is not None
                                         else _re2_regex(pattern).fullmatch(message) is not None)
            self.changed = True
        return bool(found)

    def shape(self, pattern: str) -> str:
        """:func:`pattern_shape` of a portable pattern, kept (a run that learnt the analyses in another process
        has not parsed the pattern in this one)."""
        key = _key("shape", _ANALYSIS_FORMAT, pattern)
        found = self.entries.get(key)
        if not isinstance(found, str):
            found = self.entries[key] = pattern_shape(pattern)
            self.changed = True
        return found

    def learn(self, pattern: str, message: str | None) -> None:
        """Everything validation asks of a record's pattern, computed now: its analysis and, when engines may
        compile it, its full match of the message and (while its engine verdict is unknown) its shape."""
        found = self.analysis(pattern)
        if found["portability"] or found["size"]:
            return
        if message is not None:
            self.full_match(pattern, message)
        if self.engine_problems(pattern) is None:
            self.shape(pattern)

    def learnt(self) -> dict[str, Any]:
        """The entries added since the last call, for another process to :meth:`absorb` (a forked child's)."""
        found = dict(itertools.islice(self.entries.items(), self._mark, None))
        self._mark = len(self.entries)
        return found

    def absorb(self, entries: dict[str, Any]) -> None:
        """Take the entries another process learnt."""
        if entries:
            self.entries.update(entries)
            self.changed = True

    def engine_problems(self, pattern: str) -> list[list[str]] | None:
        """The (engine, message) problems of compiling the pattern in every engine, if known."""
        found = self.entries.get(_key("engines", pattern))
        if isinstance(found, list) and all(isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p)
                                           for p in found):
            return found
        return None  # unknown, or a damaged cache entry

    def remember_engine_problems(self, pattern: str, problems: list[list[str]]) -> None:
        """Keep the pattern's (engine, message) problems: call it only with the verdicts of every engine."""
        self.entries[_key("engines", pattern)] = problems
        self.changed = True

    def save(self) -> None:
        """Write the cache back (atomically) when this run learnt something."""
        if self.cache_file is None or not self.changed:
            return
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.cache_file, json.dumps({"version": __version__, "entries": self.entries},
                                                     separators=(",", ":")).encode())
        except OSError:
            pass  # a cache that cannot be written only costs time
