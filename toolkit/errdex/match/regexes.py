"""Each record's RE2, compiled on its first candidate line, within a memory budget, a bounded number held at once.

RE2 runs in time linear in the line, whatever the pattern; what it costs is
memory (each compiled object grows a DFA as it runs) and the first call (it
compiles the program and, for an unanchored search, a reverse program and a
reverse DFA to find where the match starts). So:

- each object is compiled within a budget, :data:`RE2_MEMORY` (or
  :data:`SHORT_MEMORY` for the short-line form, whose DFA sees at most
  :data:`SHORT_LINE` bytes a search); a DFA that fills it is reset, or RE2
  falls back to its NFA: the same result, more slowly;
- the objects held take at most :data:`MAX_HELD_MEMORY` by their budgets,
  and at most :data:`MAX_COMPILED` of them are held (the oldest compiled is
  dropped first, and compiled again when needed), so memory follows the
  dataset and these bounds, not how many records a log happens to hit;
- on a line of at most :data:`SHORT_LINE` bytes the pattern runs as
  ``(?s:.*?)(pattern)`` anchored at the line's start: the same match (an
  unanchored search is that loop in front) at a third of the first call's
  cost. The loop is walked by RE2's slower engines, so longer lines take the
  plain pattern, unanchored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import re2

from errdex.patterns import re2_options

__all__ = ["MAX_COMPILED", "MAX_HELD_MEMORY", "NO_SPAN", "RE2_MEMORY", "SHORT_LINE", "SHORT_MEMORY", "Regexes"]

#: Lines up to this many bytes are confirmed by the anchored form of a pattern.
SHORT_LINE = 256
#: Memory one compiled pattern may take (program and DFA states); a pattern too large for it gets RE2's default.
RE2_MEMORY = 256 << 10
#: The same for the short-line form (measured: about 2 KiB each after a search of a typical log line).
SHORT_MEMORY = 64 << 10
#: The sum of the budgets of the objects held at once (a record may have two: for short and for long lines).
MAX_HELD_MEMORY = 1 << 30
#: Compiled RE2 objects held at once, whatever their budgets.
MAX_COMPILED = 32768
NO_SPAN = (-1, -1)
_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED
_ANCHOR_START = re2._re2.RE2.Anchor.ANCHOR_START
_DEFAULT = re2_options()
_BUDGET = re2_options()
_BUDGET.max_mem = RE2_MEMORY
_SHORT_BUDGET = re2_options()
_SHORT_BUDGET.max_mem = SHORT_MEMORY


def _compile(source: bytes, budget: Any = _BUDGET) -> Any:
    """The compiled RE2 object itself (the wrapper's per-call work costs more than the search on short lines)."""
    regex = re2._re2.RE2(source, budget)
    return regex if regex.ok() else re2._re2.RE2(source, _DEFAULT)  # perhaps only too large for the budget


class _Never:
    """Stands for a pattern RE2 refused: it confirms nothing."""

    @staticmethod
    def Match(anchor: Any, text: bytes, start: int, end: int) -> list[tuple[int, int]]:
        return [NO_SPAN]


_NEVER = (_Never(), _UNANCHORED, 0)


class Regexes:
    """The RE2 of each of some patterns (``sources``: RE2 sources by record index).

    ``refused(index, message)`` is called once for each pattern RE2 does not compile (it then matches nothing).
    """

    def __init__(self, sources: Sequence[str], refused: Callable[[int, str], None]) -> None:
        self.sources = sources
        self._on_refused = refused
        self._compiled: dict[int, tuple[Any, Any, int]] = {}  # index * 2 + short -> (regex, anchor, span index)
        self._refused: set[int] = set()
        self._held = 0  # the budgets of the objects in _compiled
        #: ``held(index * 2 + short)``: :meth:`get`'s answer when it is compiled already, else None (no call
        #: to :meth:`get` on the hot path).
        self.held = self._compiled.get

    def __len__(self) -> int:
        return len(self._compiled)

    def get(self, index: int, short: bool = False) -> tuple[Any, Any, int]:
        """``(compiled RE2, anchor, index of the match's span in its result)``; ``short``: for a short line."""
        key = index * 2 + short
        compiled = self._compiled.get(key)
        if compiled is not None:
            return compiled
        if index in self._refused:
            return _NEVER
        source = self.sources[index].encode("utf-8")
        compiled = None
        if short:
            regex = _compile(b"(?s:.*?)(" + source + b")", _SHORT_BUDGET)
            compiled = (regex, _ANCHOR_START, 1) if regex.ok() else None
        if compiled is None:
            regex = _compile(source)
            if not regex.ok():  # never a reason to stop matching the others: this record just cannot match
                self._refused.add(index)
                self._on_refused(index, f"RE2 cannot compile the pattern: {regex.error()}")
                return _NEVER
            compiled = (regex, _UNANCHORED, 0)
        budget = SHORT_MEMORY if compiled[1] is _ANCHOR_START else RE2_MEMORY
        while self._compiled and (len(self._compiled) >= MAX_COMPILED or self._held + budget > MAX_HELD_MEMORY):
            oldest = next(iter(self._compiled))
            self._held -= SHORT_MEMORY if self._compiled.pop(oldest)[1] is _ANCHOR_START else RE2_MEMORY
        self._compiled[key] = compiled
        self._held += budget
        return compiled
