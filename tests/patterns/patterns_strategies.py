"""Hypothesis strategies: random patterns from the portable subset and lines to search."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import strategies as st

# Characters used for literals, classes and lines: regex metacharacters,
# ASCII word/non-word characters, and non-ASCII (Latin, CJK, astral, NBSP).
ALPHABET = [*"abcxyzAZ019_ -:.,/()[]{}*+?|^$\\'\"\t", "é", "ß", "中", "😀", "\u00a0", "\u2003"]
_SYNTAX = set("^$\\.*+?()[]{}|/")


@dataclass(frozen=True)
class Lit:
    char: str


@dataclass(frozen=True)
class Cls:
    items: tuple[tuple[str, str] | str, ...]  # (lo, hi) ranges or shorthand letters d D w W
    negated: bool


@dataclass(frozen=True)
class Dot:
    pass


@dataclass(frozen=True)
class Grp:
    child: object
    capturing: bool


@dataclass(frozen=True)
class Alt:
    branches: tuple[object, ...]


@dataclass(frozen=True)
class Seq:
    items: tuple[object, ...]


@dataclass(frozen=True)
class Rep:
    child: object
    lo: int
    hi: int | None
    lazy: bool


@dataclass(frozen=True)
class Anc:
    kind: str


def _lit_source(c: str, draw: st.DrawFn) -> str:
    if c in _SYNTAX:
        return "\\" + c
    if c == "\t":
        return draw(st.sampled_from(["\t", "\\t", "\\x09"]))
    if c.isascii() and c.isalnum() and draw(st.integers(0, 9)) == 0:
        return f"\\x{ord(c):02x}"
    return c


def _class_char_source(c: str) -> str:
    if c in "\\]^-[/":
        return "\\" + c
    if c == "\t":
        return "\\t"
    return c


def render(node: object, draw: st.DrawFn) -> str:
    """JavaScript source for a generated tree (escapes drawn at random)."""
    if isinstance(node, Lit):
        return _lit_source(node.char, draw)
    if isinstance(node, Dot):
        return "."
    if isinstance(node, Cls):
        if len(node.items) == 1 and isinstance(node.items[0], str) and not node.negated and draw(
                st.booleans()):
            return "\\" + node.items[0]
        parts = []
        for item in node.items:
            if isinstance(item, str):
                parts.append("\\" + item)
            else:
                lo, hi = item
                parts.append(_class_char_source(lo) if lo == hi else
                             f"{_class_char_source(lo)}-{_class_char_source(hi)}")
        return "[" + ("^" if node.negated else "") + "".join(parts) + "]"
    if isinstance(node, Grp):
        return ("(" if node.capturing else "(?:") + render(node.child, draw) + ")"
    if isinstance(node, Alt):
        return "|".join(render(b, draw) for b in node.branches)
    if isinstance(node, Seq):
        out = []
        for item in node.items:
            s = render(item, draw)
            out.append(s)
        return "".join(out)
    if isinstance(node, Rep):
        lo, hi = node.lo, node.hi
        q = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((lo, hi))
        if q is None:
            q = f"{{{lo}}}" if hi == lo else f"{{{lo},}}" if hi is None else f"{{{lo},{hi}}}"
        return render(node.child, draw) + q + ("?" if node.lazy else "")
    assert isinstance(node, Anc)
    return node.kind


_chars = st.sampled_from(ALPHABET)


@st.composite
def _class(draw: st.DrawFn) -> Cls:
    items: list[tuple[str, str] | str] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 4))
        if kind == 0:
            items.append(draw(st.sampled_from("dDwW")))
        elif kind == 1:
            a, b = sorted([draw(_chars), draw(_chars)])
            items.append((a, b))
        else:
            c = draw(_chars)
            items.append((c, c))
    return Cls(tuple(items), draw(st.booleans()))


@st.composite
def _atom(draw: st.DrawFn, depth: int) -> object:
    kind = draw(st.integers(0, 9 if depth > 0 else 6))
    if kind <= 3:
        return Lit(draw(_chars))
    if kind <= 5:
        return draw(_class())
    if kind == 6:
        return Dot()
    return Grp(draw(_node(depth - 1)), draw(st.booleans()))


@st.composite
def _term(draw: st.DrawFn, depth: int) -> object:
    atom = draw(_atom(depth))
    if draw(st.integers(0, 2)) == 0:
        lo, hi = draw(st.sampled_from([(0, None), (1, None), (0, 1), (1, 1), (2, 2), (0, 2),
                                       (1, 3), (2, None), (3, 3)]))
        return Rep(atom, lo, hi, draw(st.booleans()))
    return atom


@st.composite
def _node(draw: st.DrawFn, depth: int) -> object:
    if depth > 0 and draw(st.integers(0, 5)) == 0:
        return Alt(tuple(draw(st.lists(_seq(depth - 1), min_size=2, max_size=3))))
    return draw(_seq(depth))


@st.composite
def _seq(draw: st.DrawFn, depth: int) -> object:
    items = draw(st.lists(_term(depth), min_size=1, max_size=4))
    return Seq(tuple(items))


@st.composite
def pattern_trees(draw: st.DrawFn) -> object:
    """A tree from the portable subset (mostly non-nullable; may still need filtering)."""
    body = draw(_node(2))
    if isinstance(body, Alt):
        body = Grp(body, False)
    items: list[object] = []
    if draw(st.integers(0, 4)) == 0:
        items.append(Anc("^"))
    if draw(st.integers(0, 5)) == 0:
        items.append(Anc(draw(st.sampled_from(["\\b", "\\B"]))))
    items.append(body)
    items.append(Lit(draw(_chars)))  # keeps most patterns non-nullable
    if draw(st.integers(0, 5)) == 0:
        items.append(Anc(draw(st.sampled_from(["\\b", "\\B"]))))
    if draw(st.integers(0, 4)) == 0:
        items.append(Anc("$"))
    return Seq(tuple(items))


def _class_members(node: Cls) -> list[str]:
    def ok(c: str) -> bool:
        hit = False
        for item in node.items:
            if isinstance(item, str):
                hit = hit or bool(re.fullmatch("\\" + item, c, re.ASCII))
            else:
                hit = hit or item[0] <= c <= item[1]
        return hit != node.negated

    return [c for c in ALPHABET if ok(c)]


def sample(node: object, draw: st.DrawFn) -> str:
    """A string the tree probably matches (anchors are ignored)."""
    if isinstance(node, Lit):
        return node.char
    if isinstance(node, Dot):
        return draw(_chars)
    if isinstance(node, Cls):
        members = _class_members(node)
        return draw(st.sampled_from(members)) if members else ""
    if isinstance(node, Grp):
        return sample(node.child, draw)
    if isinstance(node, Alt):
        return sample(draw(st.sampled_from(node.branches)), draw)
    if isinstance(node, Seq):
        return "".join(sample(i, draw) for i in node.items)
    if isinstance(node, Rep):
        top = node.lo + 3 if node.hi is None else node.hi
        return "".join(sample(node.child, draw) for _ in range(draw(st.integers(node.lo, top))))
    return ""


@st.composite
def pattern_sources(draw: st.DrawFn) -> str:
    return render(draw(pattern_trees()), draw)


@st.composite
def pattern_and_lines(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A pattern source and a few lines, most built around strings the pattern matches."""
    tree = draw(pattern_trees())
    source = render(tree, draw)
    text = st.text(alphabet=_chars, max_size=8)
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 3)) == 0:
            lines.append(draw(st.text(alphabet=_chars, max_size=20)))
        else:
            lines.append(draw(text) + sample(tree, draw) + draw(text))
    return source, lines


# Raw fuzz: strings of regex syntax, mostly invalid or odd.
FUZZ_ALPHABET = list("()[]{}*+?|^$.\\-,:<>=!#PpkuxcdswbDSWBAZzGq0123456789aé ") + ["\\"] * 4
fuzz_sources = st.text(alphabet=st.sampled_from(FUZZ_ALPHABET), min_size=1, max_size=14)
