"""Choosing, for each pattern, the piece of literal text to look for first.

A pattern can only match a line that contains every one of its required
literals (:func:`errdex.patterns.required_literals`), so a line without a
given piece of them cannot match it. Hyperscan looks for one such piece per
pattern, all at once, in its pure-literal mode; RE2 then confirms each hit on
its line. Which piece matters a great deal: pieces shared by many patterns
(``could not be``) fill hyperscan's literal buckets with look-alikes and
slow the scan, and its compile time grows faster than the number of
patterns. So each pattern gets its *rarest* piece: among windows of up to
:data:`KEY_BYTES` bytes that start at a word of one of its literals, the one
found in the fewest patterns (then the longest, then the first). Measured on
100,000 generated records: 2.8 s to compile and 0.07 s to scan 128 MB,
against 36 s and over 0.9 s with each pattern's longest literal.

A pattern whose pieces are all shorter than :data:`MIN_KEY_BYTES` gets no
key. The matcher finds those with :class:`LineSets`: RE2 sets of their full
expressions, run on each line. Not with hyperscan: the hyperscan this
project installs (python-hyperscan 0.9.1, which bundles vectorscan 5.4.12)
misses matches of full expressions on AVX-512 machines (such as this
project's), while in its pure-literal mode, the one the keys use, tests
against ``bytes.find`` on many random keys and texts found no miss. Two of
the misses seen, scanning one buffer:

- ``x[0-9]+`` alone, on ``"q" * 15 + "x1"``: a match that ends the buffer,
  at 15 bytes or more into it;
- ``[0-9]y+`` alone, on ``"q" * 32 + "1y" + "q" * n``: anywhere past 32 bytes;

and, once one such expression is in the database, the others' matches too
(``é`` on ``"diskdiskdiskdiské"`` next to ``x([0-9]+)``). RE2 is the engine
that confirms every candidate anyway, so a set of them says exactly which
patterns occur in a line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import re2

__all__ = ["KEY_BYTES", "MIN_KEY_BYTES", "SET_MEMORY", "SET_SIZE", "LineSets", "choose_keys", "windows"]

KEY_BYTES = 12
MIN_KEY_BYTES = 4
#: Patterns per RE2 set: a set's DFA holds states of all of its patterns at once, and a DFA out of memory
#: matches nothing (RE2 says so only in a log line), so many patterns are split among several sets.
SET_SIZE = 128
#: Memory each set's DFA may take (RE2's default of 8 MiB is meant for one pattern); taken only as needed.
SET_MEMORY = 64 << 20
_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED


def windows(literals: Sequence[bytes]) -> list[bytes]:
    """Candidate keys of one pattern: pieces of up to KEY_BYTES starting at each word of its literals, in order."""
    found: list[bytes] = []
    for literal in literals:
        start = 0
        while start < len(literal):
            piece = literal[start : start + KEY_BYTES]
            if len(piece) >= MIN_KEY_BYTES:
                found.append(piece)
            space = literal.find(b" ", start)
            if space < 0:
                break
            start = space + 1
    return found


def choose_keys(literals: Sequence[Sequence[bytes]]) -> list[bytes | None]:
    """For each pattern (its required literals, UTF-8), its rarest candidate key, or None when it has none."""
    candidates = [windows(each) for each in literals]
    counts: Counter[bytes] = Counter()
    for pieces in candidates:
        counts.update(set(pieces))
    keys: list[bytes | None] = []
    for pieces in candidates:
        best: bytes | None = None
        best_rank = (0, 0)
        for piece in pieces:
            rank = (counts[piece], -len(piece))
            if best is None or rank < best_rank:
                best, best_rank = piece, rank
        keys.append(best)
    return keys


class LineSets:
    """Which of some patterns occur in a line, by RE2 sets of at most :data:`SET_SIZE` patterns each.

    ``sources``: ``(target, RE2 source)`` pairs; :meth:`find` gives the targets whose pattern occurs in a
    line (UTF-8 bytes), in no particular order. ``refused``: the targets whose source RE2 does not compile
    (they never occur). A set RE2 cannot build within its memory is replaced by its patterns one by one.
    """

    def __init__(self, sources: Sequence[tuple[int, str]], options: Any) -> None:
        """``options``: RE2 options for these sets alone (their memory is raised to :data:`SET_MEMORY`)."""
        options.max_mem = SET_MEMORY
        self.refused: list[int] = []
        self._sets: list[tuple[Any, list[int]]] = []  # (compiled set, its targets by set index)
        self._alone: list[tuple[Any, int]] = []  # (compiled RE2, target): the patterns of a set RE2 could not build
        for first in range(0, len(sources), SET_SIZE):
            self._add(sources[first : first + SET_SIZE], options)

    def _add(self, chunk: Sequence[tuple[int, str]], options: Any) -> None:
        built = re2._re2.Set(_UNANCHORED, options)
        kept: list[tuple[int, bytes]] = []
        for target, source in chunk:
            encoded = source.encode("utf-8")
            if built.Add(encoded) < 0:
                self.refused.append(target)
            else:
                kept.append((target, encoded))
        if not kept:
            return
        if built.Compile():
            self._sets.append((built, [target for target, _ in kept]))
            return
        for target, encoded in kept:  # the set does not fit in its memory: its patterns one by one
            regex = re2._re2.RE2(encoded, options)
            if regex.ok():
                self._alone.append((regex, target))
            else:
                self.refused.append(target)

    def __bool__(self) -> bool:
        return bool(self._sets or self._alone)

    def find(self, line: bytes) -> list[int]:
        """The targets whose pattern occurs in the line."""
        found = [targets[i] for built, targets in self._sets for i in built.Match(line) or ()]
        end = len(line)
        found += [target for regex, target in self._alone
                  if regex.Match(_UNANCHORED, line, 0, end)[0] != (-1, -1)]
        return found
