"""Polynomial backtracking: two repeats that can split the same text between them in many ways."""

from __future__ import annotations

from . import charset as cs
from .nodefacts import LEAVES, NodeFacts, fits, snippet, walk
from .nodes import Alternation, Anchor, Group, Lookaround, Node, Repeat, Sequence
from .problem import PatternProblem

__all__ = ["WIDE_COUNT", "Polynomial", "splits"]

# A counted repeat with this much choice in its count (max - min) splits text like an unbounded one:
# .{0,1000}x.{0,1000}y tries a million splits per start position.
WIDE_COUNT = 10
# Bounds of the separator bookkeeping of the polynomial check (the analysis itself stays linear).
_MAX_OPEN_TAILS = 64
_MAX_SEPARATORS = 16


def splits(node: Repeat) -> bool:
    """A repeat whose length is free enough for two of them to split text between them in many ways."""
    return node.max is None or node.max - node.min >= WIDE_COUNT


class _Open:
    """A repeat that text may still be split against, and the required items met since it."""

    __slots__ = ("alphabet", "repeat", "separators")

    def __init__(self, repeat: Repeat, alphabet: cs.Ranges, separators: tuple[Node, ...] = ()) -> None:
        self.repeat = repeat
        self.alphabet = alphabet
        self.separators = separators


class Polynomial:
    """Overlapping unbounded repeats with only optional items (or items both can match) between them.

    Problems are appended to ``problems``, one per head repeat, in the order found.
    """

    def __init__(self, source: str, facts: NodeFacts, problems: list[PatternProblem]) -> None:
        self.source = source
        self.facts = facts
        self.problems = problems
        self.heads_memo: dict[int, list[Repeat]] = {}
        self.tails_memo: dict[int, list[Repeat]] = {}
        self.reported: set[int] = set()
        self.after: dict[int, bool] = {}

    def heads(self, node: Node) -> list[Repeat]:
        return self._ends(node, self.heads_memo, front=True)

    def tails(self, node: Node) -> list[Repeat]:
        return self._ends(node, self.tails_memo, front=False)

    def _ends(self, node: Node, memo: dict[int, list[Repeat]], front: bool) -> list[Repeat]:
        got = memo.get(id(node))
        if got is not None:
            return got
        out: list[Repeat]
        if isinstance(node, Repeat):
            if node.max == 0:
                out = []
            elif splits(node):
                out = [node]
            else:
                out = self._ends(node.child, memo, front)
        elif isinstance(node, Group):
            out = self._ends(node.child, memo, front)
        elif isinstance(node, Alternation):
            out = [r for b in node.branches for r in self._ends(b, memo, front)]
        elif isinstance(node, Sequence):
            out = []
            for item in (node.items if front else reversed(node.items)):
                out += self._ends(item, memo, front)
                if not self.facts(item).nullable:
                    break
        else:
            out = []
        memo[id(node)] = out
        return out

    def required_after(self, root: Node) -> dict[int, bool]:
        """Node id -> whether text is still required after the node (so a match can fail after it)."""
        out: dict[int, bool] = {}
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, after = stack.pop()
            out[id(node)] = after
            if isinstance(node, Sequence):
                later = after
                for item in reversed(node.items):
                    stack.append((item, later))
                    later = later or not self.facts(item).nullable
            elif isinstance(node, Alternation):
                stack.extend((b, after) for b in node.branches)
            elif isinstance(node, (Group, Lookaround)):
                stack.append((node.child, after))
            elif isinstance(node, Repeat):
                stack.append((node.child, after or (node.min >= 2 and not self.facts(node.child).nullable)))
        return out

    def run(self, root: Node) -> None:
        """Report every head repeat that some earlier open repeat can split text with."""
        self.after = self.required_after(root)
        for node in walk(root):
            if isinstance(node, Sequence):
                self._sequence(node)
            elif isinstance(node, Repeat) and node.max is not None and node.max > 1:
                for h in self.heads(node.child):
                    ha = self.facts.alphabet(h)
                    for t in self.tails(node.child):
                        if cs.intersects(self.facts.alphabet(t), ha):
                            self._report(t, h, t is h)
                            break

    def _sequence(self, node: Sequence) -> None:
        open_tails: list[_Open] = []
        for item in node.items:
            if isinstance(item, LEAVES):
                if open_tails and not isinstance(item, Anchor):
                    open_tails = self._absorbed(open_tails, item)
                continue
            self._meet(open_tails, item)
            tails = [_Open(t, self.facts.alphabet(t)) for t in self.tails(item)]
            if self.facts(item).nullable:
                open_tails = open_tails + tails
            else:
                open_tails = self._absorbed(open_tails, item) + tails
            del open_tails[:-_MAX_OPEN_TAILS]

    def _report(self, t: Repeat, h: Repeat, across: bool, separators: tuple[Node, ...] = ()) -> None:
        if id(h) in self.reported:
            return
        self.reported.add(id(h))
        a, b = snippet(self.source, t, 20), snippet(self.source, h, 20)
        if separators:
            between = "".join(self.source[n.offset:n.end] for n in separators)
            if len(between) > 20:
                between = between[:17] + "..."
            self.problems.append(PatternProblem(
                h.offset, f"{a} (at {t.offset}) and {b} can both match {between!r} between them, so a match "
                          "that fails later tries every way of splitting the text (polynomial "
                          "backtracking); make one side unable to match the separator (such as "
                          "[^=]* instead of .*? before =) or make their character sets disjoint"))
            return
        if across:
            where = f"{b} repeated back to back"
        else:
            where = f"{a} (at {t.offset}) and {b}"
        self.problems.append(PatternProblem(
            h.offset, f"{where} can match the same characters with only optional items "
                      "between them, so a failing match tries every split (polynomial "
                      "backtracking); put a required literal between them or make their "
                      "character sets disjoint"))

    def _meet(self, open_tails: list[_Open], item: Node) -> None:
        for h in self.heads(item):
            ha = self.facts.alphabet(h)
            for o in open_tails:
                if o.repeat is h:
                    continue
                shared = cs.intersection(o.alphabet, ha)
                if not shared:
                    continue
                if not o.separators:
                    self._report(o.repeat, h, False)
                    break
                if self.after.get(id(h), False) and all(fits(n, shared) for n in o.separators):
                    self._report(o.repeat, h, False, o.separators)
                    break

    @staticmethod
    def _absorbed(open_tails: list[_Open], item: Node) -> list[_Open]:
        """The open repeats that can also match what a required item matches (the item between them)."""
        kept = []
        for o in open_tails:
            if len(o.separators) < _MAX_SEPARATORS and fits(item, o.alphabet):
                kept.append(_Open(o.repeat, o.alphabet, (*o.separators, item)))
        return kept
