"""What every analysis asks of a pattern's tree: per-node facts, traversal and source snippets.

:class:`NodeFacts` computes, bottom-up and memoised per node, whether a node
can match the empty string, whether it is zero-width, and which characters
can start and end its non-empty matches; :meth:`NodeFacts.alphabet` gives
every character it can consume.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import charset as cs
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
    class_set,
)

__all__ = ["LEAVES", "Facts", "NodeFacts", "children", "fits", "snippet", "walk"]


class Facts:
    __slots__ = ("first", "last", "nullable", "zero_width")

    def __init__(self, nullable: bool, zero_width: bool, first: cs.Ranges, last: cs.Ranges) -> None:
        self.nullable = nullable      # can match the empty string
        # can match only the empty string and is not \b/\B (hyperscan refuses
        # word-boundary assertions before ^ and after $, so they count as content)
        self.zero_width = zero_width
        self.first = first            # characters that can start a non-empty match
        self.last = last              # characters that can end a non-empty match


_ZERO = Facts(True, True, cs.EMPTY, cs.EMPTY)
_BOUNDARY = Facts(True, False, cs.EMPTY, cs.EMPTY)
_DOT_FACTS = Facts(False, False, cs.DOT, cs.DOT)
_LITERAL_FACTS: dict[str, Facts] = {}


def _literal_facts(char: str) -> Facts:
    f = _LITERAL_FACTS.get(char)
    if f is None:
        r = ((ord(char), ord(char)),)
        f = Facts(False, False, r, r)
        if len(_LITERAL_FACTS) < 4096:
            _LITERAL_FACTS[char] = f
    return f


class NodeFacts:
    """Bottom-up facts, memoised per node object for one analysis run."""

    __slots__ = ("alpha_memo", "memo")

    def __init__(self) -> None:
        self.memo: dict[int, Facts] = {}
        self.alpha_memo: dict[int, cs.Ranges] = {}

    def __call__(self, node: Node) -> Facts:
        if type(node) is Literal:
            return _literal_facts(node.char)
        key = id(node)
        f = self.memo.get(key)
        if f is None:
            f = self._compute(node)
            self.memo[key] = f
        return f

    def _compute(self, node: Node) -> Facts:
        if isinstance(node, CharClass):
            r = class_set(node)
            return Facts(False, False, r, r)
        if isinstance(node, Any):
            return _DOT_FACTS
        if isinstance(node, Anchor):
            return _ZERO if node.kind in ("^", "$") else _BOUNDARY
        if isinstance(node, Lookaround):
            return _BOUNDARY
        if isinstance(node, Backreference):
            return Facts(True, False, cs.ALL, cs.ALL)
        if isinstance(node, Group):
            return self(node.child)
        if isinstance(node, Repeat):
            if node.max == 0:
                return _ZERO
            c = self(node.child)
            if node.min == 0 and not c.nullable:
                return Facts(True, c.zero_width, c.first, c.last)
            return c
        if isinstance(node, Alternation):
            fs = [self(b) for b in node.branches]
            return Facts(any(f.nullable for f in fs), all(f.zero_width for f in fs),
                          cs.union(*(f.first for f in fs)), cs.union(*(f.last for f in fs)))
        assert isinstance(node, Sequence)
        items = node.items
        if not items:
            return _ZERO
        firsts: list[cs.Ranges] = []
        nullable = True
        zero = True
        for item in items:
            f = self(item)
            if nullable:
                firsts.append(f.first)
            nullable = nullable and f.nullable
            zero = zero and f.zero_width
            if not nullable and not zero:
                break  # neither flag nor the first set can change any more
        lasts: list[cs.Ranges] = []
        for item in reversed(items):
            f = self(item)
            lasts.append(f.last)
            if not f.nullable:
                break
        return Facts(nullable, zero, cs.union(*firsts), cs.union(*lasts))

    def alphabet(self, node: Node) -> cs.Ranges:
        """Every character the node can consume."""
        key = id(node)
        a = self.alpha_memo.get(key)
        if a is None:
            if isinstance(node, (Literal, CharClass, Any, Backreference)):
                a = self(node).first
            elif isinstance(node, Repeat) and node.max == 0:
                a = cs.EMPTY
            else:
                kids = children(node)
                a = cs.union(*(self.alphabet(k) for k in kids)) if kids else cs.EMPTY
            self.alpha_memo[key] = a
        return a


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, (Group, Repeat, Lookaround)):
        return (node.child,)
    if isinstance(node, Sequence):
        return node.items
    if isinstance(node, Alternation):
        return node.branches
    return ()


LEAVES = (Literal, CharClass, Any, Anchor, Backreference)


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal of the non-leaf nodes below and including ``node``."""
    if isinstance(node, LEAVES):
        return
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in reversed(children(n)) if not isinstance(c, LEAVES))


def snippet(source: str, node: Node, limit: int = 40) -> str:
    text = source[node.offset:node.end]
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fits(node: Node, chars: cs.Ranges) -> bool:
    """Whether the node can match some text (possibly empty) made only of ``chars``."""
    if isinstance(node, Literal):
        o = ord(node.char)
        return cs.intersects(((o, o),), chars)
    if isinstance(node, CharClass):
        return cs.intersects(class_set(node), chars)
    if isinstance(node, Any):
        return cs.intersects(cs.DOT, chars)
    if isinstance(node, Anchor):
        return node.kind not in ("^", "$")
    if isinstance(node, (Group, Lookaround)):
        return fits(node.child, chars)
    if isinstance(node, Sequence):
        return all(fits(item, chars) for item in node.items)
    if isinstance(node, Alternation):
        return any(fits(branch, chars) for branch in node.branches)
    if isinstance(node, Repeat):
        return node.min == 0 or node.max == 0 or fits(node.child, chars)
    return True  # backreference
