"""Position (Glushkov) automata of patterns and the graph algorithms run on them.

The backtracking analysis asks whether an automaton is exponentially
ambiguous; the linear-time proof asks which positions lie on cycles and how
many successors overlap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from . import charset as cs
from .nodefacts import NodeFacts
from .nodes import (
    Alternation,
    Anchor,
    Any,
    Backreference,
    CharClass,
    Group,
    Literal,
    Lookaround,
    Node,
    Repeat,
    Sequence,
)

__all__ = [
    "LOOP_COUNT",
    "Glushkov",
    "components",
    "exponentially_ambiguous",
    "in_cycles",
    "most_overlapping",
]

# A counted repeat that may iterate this many times is checked for ambiguity like an unbounded one:
# (?:[a-z]{1,30}){1,30} splits one word in more ways than any line could wait for.
LOOP_COUNT = 3


class Glushkov:
    """Position automaton with parallel edges counted (each repeat adds its own loop edges)."""

    __slots__ = ("edges", "facts", "loop_counted", "sets")

    def __init__(self, facts: NodeFacts, loop_counted: bool = False) -> None:
        self.facts = facts
        self.sets: list[cs.Ranges] = []
        self.edges: dict[tuple[int, int], int] = {}
        # counted repeats of more than LOOP_COUNT iterations built as unbounded ones (more paths, never fewer)
        self.loop_counted = loop_counted

    def edge(self, p: int, q: int) -> None:
        self.edges[(p, q)] = self.edges.get((p, q), 0) + 1

    def combine(self, parts: list[tuple[bool, list[int], list[int]]]) -> tuple[bool, list[int],
                                                                               list[int]]:
        pending: list[int] = []
        first: list[int] = []
        nullable = True
        for nul, f, last in parts:
            for p in pending:
                for q in f:
                    self.edge(p, q)
            if nullable:
                first = first + f
            pending = pending + last if nul else list(last)
            nullable = nullable and nul
        return nullable, first, pending

    def build(self, node: Node) -> tuple[bool, list[int], list[int]]:
        if isinstance(node, (Literal, CharClass, Any, Backreference)):
            self.sets.append(self.facts.alphabet(node))
            p = len(self.sets) - 1
            return isinstance(node, Backreference), [p], [p]
        if isinstance(node, (Anchor, Lookaround)):
            return True, [], []
        if isinstance(node, Group):
            return self.build(node.child)
        if isinstance(node, Sequence):
            return self.combine([self.build(i) for i in node.items])
        if isinstance(node, Alternation):
            parts = [self.build(b) for b in node.branches]
            return (any(p[0] for p in parts), [q for p in parts for q in p[1]],
                    [q for p in parts for q in p[2]])
        assert isinstance(node, Repeat)
        lo, hi = node.min, node.max
        if hi == 0:
            return True, [], []
        if self.loop_counted and hi is not None and hi > LOOP_COUNT:
            hi = None
        n1 = min(lo, 3)
        if hi is None:
            parts = [self.build(node.child) for _ in range(max(n1 - 1, 0))]
            nul, first, last = self.build(node.child)
            for p in last:
                for q in first:
                    self.edge(p, q)
            parts.append((nul or lo == 0, first, last))
            return self.combine(parts)
        m1 = n1 if hi == lo else max(min(hi, 3), n1 + 1)
        parts = [self.build(node.child) for _ in range(n1)]
        parts.append(self.optional_chain(node.child, m1 - n1))
        return self.combine(parts)

    def optional_chain(self, child: Node, k: int) -> tuple[bool, list[int], list[int]]:
        """``(x(x(x)?)?)?`` with ``k`` copies of ``x``."""
        if k == 0:
            return True, [], []
        head = self.build(child)
        _, first, last = self.combine([head, self.optional_chain(child, k - 1)])
        return True, first, last


def exponentially_ambiguous(g: Glushkov) -> bool:
    """Whether the automaton has a state with two distinct cycles reading the same word.

    Standard test on the squared automaton: some strongly connected component
    contains a diagonal pair (p, p) and either an off-diagonal pair or a
    diagonal step that can be taken along two parallel edges.
    """
    n = len(g.sets)
    sets = g.sets
    succ: list[list[int]] = [[] for _ in range(n)]
    for (p, q) in g.edges:
        succ[p].append(q)
    compat: dict[tuple[int, int], bool] = {}

    def ok(a: int, b: int) -> bool:
        key = (a, b) if a <= b else (b, a)
        v = compat.get(key)
        if v is None:
            v = compat[key] = cs.intersects(sets[a], sets[b])
        return v

    def pair_succ(node: int) -> list[int]:
        p, q = divmod(node, n)
        return [a * n + b for a in succ[p] for b in succ[q] if ok(a, b)]

    # The pairs reachable from diagonal pairs, component by component.
    roots = (start * n + start for start in range(n))
    return any(_component_is_ambiguous(comp, n, g.edges) for comp in components(roots, pair_succ))


def _component_is_ambiguous(comp: list[int], n: int, edges: dict[tuple[int, int], int]) -> bool:
    diag = [x // n for x in comp if x // n == x % n]
    if not diag:
        return False
    if len(diag) < len(comp):
        return True
    members = set(diag)
    return any(c >= 2 and p in members and q in members for (p, q), c in edges.items())


def most_overlapping(sets: list[cs.Ranges]) -> int:
    """The largest number of the sets that share one character."""
    events: list[tuple[int, int]] = []
    for s in sets:
        for lo, hi in s:
            events.append((lo, 1))
            events.append((hi + 1, -1))
    events.sort()
    best = depth = 0
    for _, step in events:
        depth += step
        best = max(best, depth)
    return best


def components(roots: Iterable[int], successors: Callable[[int], Iterable[int]]) -> Iterator[list[int]]:
    """The strongly connected components of the graph reachable from ``roots`` (iterative Tarjan, so deep
    graphs cannot exhaust Python's stack), each as soon as it is complete; a caller may stop early."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    counter = 0
    for root in roots:
        if root in index:
            continue
        work: list[tuple[int, Iterator[int]]] = [(root, iter(successors(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(successors(w))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                yield comp


def in_cycles(n: int, succ: list[list[int]]) -> set[int]:
    """The positions that lie on a cycle (strongly connected components of more than one, or a self-loop)."""
    looping: set[int] = set()
    for comp in components(range(n), succ.__getitem__):
        if len(comp) > 1 or comp[0] in succ[comp[0]]:
            looping.update(comp)
    return looping
