"""The literal text of patterns: what every match contains, and how specific a pattern is."""

from __future__ import annotations

from dataclasses import dataclass

from .nodefacts import children, walk
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
from .parser import parse

__all__ = ["Lits", "exact_text", "group_count", "literal_chars", "lits", "required_literals", "variable_parts"]


def _single_char(node: CharClass) -> str | None:
    s = class_set(node)
    if len(s) == 1 and s[0][0] == s[0][1]:
        return chr(s[0][0])
    return None


def _literal_chars(node: Node) -> int:
    if isinstance(node, Literal):
        return 1
    if isinstance(node, CharClass):
        return 1 if _single_char(node) is not None else 0
    if isinstance(node, Group):
        return _literal_chars(node.child)
    if isinstance(node, Sequence):  # a literal character counts here: no call for each one
        return sum(1 if type(i) is Literal else _literal_chars(i) for i in node.items)
    if isinstance(node, Alternation):
        return min(_literal_chars(b) for b in node.branches)
    if isinstance(node, Repeat):
        return node.min * _literal_chars(node.child) if node.max != 0 else 0
    return 0


def literal_chars(pattern: str) -> int:
    """Number of literal characters every match must contain.

    Literals count 1 (a class of exactly one character, e.g. ``[.]``, counts
    as a literal); classes, ``.``, anchors and optional parts count 0; a
    repeat counts ``min`` times its body; an alternation counts its poorest
    branch.  Raises :class:`PatternSyntaxError` for invalid patterns.
    """
    return _literal_chars(parse(pattern).root)


def _is_literal(node: Node) -> bool:
    if isinstance(node, Literal):
        return True
    if isinstance(node, CharClass):
        return _single_char(node) is not None
    if isinstance(node, (Group, Repeat)):
        return _is_literal(node.child) and (not isinstance(node, Repeat) or node.max != 0)
    if isinstance(node, Sequence):
        return all(_is_literal(i) or isinstance(i, Anchor) for i in node.items)
    return False


def _variable_parts(node: Node) -> int:
    if isinstance(node, (Literal, Anchor)):
        return 0
    if isinstance(node, CharClass):
        return 0 if _single_char(node) is not None else 1
    if isinstance(node, (Any, Alternation, Backreference, Lookaround)):
        return 1
    if isinstance(node, Group):
        return _variable_parts(node.child)
    if isinstance(node, Sequence):  # a literal character counts nothing: no call for each one
        return sum(_variable_parts(i) for i in node.items if type(i) is not Literal)
    assert isinstance(node, Repeat)
    if node.max == 0:
        return 0
    if node.min == node.max:
        return _variable_parts(node.child)
    if node.min == 0:
        return 1
    return 0 if _is_literal(node.child) else 1


def variable_parts(pattern: str) -> int:
    """Number of non-literal items in the pattern (groups are transparent).

    Counts 1 for: a class of more than one character, ``.``, an alternation
    (whatever its branches), an optional part (``x?``, ``x*``, ``x{0,n}``), a
    variable-count repeat of something non-literal (``\\d+``, ``(.+)``).  A
    variable-count repeat of a literal with ``min >= 1`` (``a+``, `` +``)
    counts 0; a fixed-count repeat counts like its body (``\\d{4}`` = 1).
    Literals and anchors count 0.  Raises :class:`PatternSyntaxError`.
    """
    return _variable_parts(parse(pattern).root)


@dataclass(slots=True)
class Lits:
    exact: str | None      # the node always matches exactly this text
    prefix: str            # every match starts with this
    middles: list[str]     # every match contains these, in order, after prefix
    suffix: str            # every match ends with this


_MAX_EXPAND = 256


def lits(node: Node) -> Lits:
    if isinstance(node, Literal):
        return Lits(node.char, node.char, [], node.char)
    if isinstance(node, CharClass):
        ch = _single_char(node)
        return Lits(ch, ch, [], ch) if ch is not None else Lits(None, "", [], "")
    if isinstance(node, (Anchor, Lookaround)):
        return Lits("", "", [], "")
    if isinstance(node, Group):
        return lits(node.child)
    if isinstance(node, Sequence):
        parts: list[Lits] = []
        run: list[str] = []
        for item in node.items:
            if type(item) is Literal:  # the common case: a run of plain characters
                run.append(item.char)
                continue
            if run:
                text = "".join(run)
                parts.append(Lits(text, text, [], text))
                run = []
            parts.append(lits(item))
        if run:
            text = "".join(run)
            parts.append(Lits(text, text, [], text))
        return _lits_seq(parts)
    if isinstance(node, Alternation):
        bs = [lits(b) for b in node.branches]
        if all(b.exact is not None for b in bs) and len({b.exact for b in bs}) == 1:
            return bs[0]
        return Lits(None, _common_prefix([b.prefix for b in bs]), [],
                     _common_suffix([b.suffix for b in bs]))
    if isinstance(node, Repeat):
        if node.max == 0 or node.min == 0:
            return Lits("", "", [], "") if node.max == 0 else Lits(None, "", [], "")
        b = lits(node.child)
        if b.exact is not None:
            times = min(node.min, _MAX_EXPAND // max(len(b.exact), 1) or 1)
            text = b.exact * times
            if node.min == node.max and times == node.min:
                return Lits(text, text, [], text)
            return Lits(None, text, [], text)
        return Lits(None, b.prefix, list(b.middles), b.suffix)
    return Lits(None, "", [], "")  # Any, Backreference


def _lits_seq(parts: list[Lits]) -> Lits:
    if all(p.exact is not None for p in parts):
        text = "".join(p.exact or "" for p in parts)
        return Lits(text, text, [], text)
    runs: list[str] = []
    cur = ""
    prefix: str | None = None
    for p in parts:
        if p.exact is not None:
            cur += p.exact
            continue
        cur += p.prefix
        if prefix is None:
            prefix = cur
        else:
            runs.append(cur)
        runs.extend(p.middles)
        cur = p.suffix
    return Lits(None, prefix or "", [r for r in runs if r], cur)


def _common_prefix(xs: list[str]) -> str:
    if not xs:
        return ""
    a, b = min(xs), max(xs)
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[:i]


def _common_suffix(xs: list[str]) -> str:
    return _common_prefix([x[::-1] for x in xs])[::-1]


def _plain_text(root: Node) -> str | None:
    """The text of a tree of literal characters only (what :func:`lits` finds exact there), else None: most
    patterns without a group are such a sequence, and this is one pass over it."""
    if type(root) is Literal:
        return root.char
    if type(root) is not Sequence:
        return None
    chars = [item.char for item in root.items if type(item) is Literal]
    return "".join(chars) if len(chars) == len(root.items) else None


def required_literals(pattern: str) -> list[str]:
    """Maximal literal strings every match contains, in order of appearance.

    ``CreateOS request failed \\(HTTP (\\d+)\\) during (.+)\\.`` gives
    ``["CreateOS request failed (HTTP ", ") during ", "."]``.  Repeats with
    ``min >= 1`` contribute their body (``xa+y`` gives ``["xa", "ay"]``: two
    neighbours may overlap in the text when the repeat matches once);
    alternations contribute the common prefix/suffix of their branches; a
    one-character class such as ``[.]`` counts as a literal.
    Raises :class:`PatternSyntaxError`.
    """
    root = parse(pattern).root
    text = _plain_text(root)
    if text is not None:
        return [text] if text else []
    found = lits(root)
    if found.exact is not None:
        return [found.exact] if found.exact else []
    out = [s for s in [found.prefix, *found.middles, found.suffix] if s]
    while isinstance(root, Group):
        root = root.child
    if isinstance(root, Repeat) and len(out) == 2 and out[0] == out[1]:
        del out[1]  # ``(?:ab)+``: prefix and suffix may be the same occurrence
    return out


def exact_text(pattern: str) -> str | None:
    """The one text the pattern matches, when it is plain literal text (no groups, anchors or choices); else None.

    ``Sandbox 4 was not created\\.`` gives ``"Sandbox 4 was not created."``;
    a matcher can then find it with a substring search instead of a regex.
    Raises :class:`PatternSyntaxError`.
    """
    tree = parse(pattern)
    if tree.group_count or isinstance(tree.root, (Anchor, Backreference)):
        return None
    text = _plain_text(tree.root)
    if text is not None:
        return text or None
    for node in walk(tree.root):  # non-leaf nodes; their leaf children are checked here
        if isinstance(node, Lookaround) or any(isinstance(c, (Anchor, Backreference)) for c in children(node)):
            return None
    return lits(tree.root).exact or None


def group_count(pattern: str) -> int:
    """Number of capturing groups.  Raises :class:`PatternSyntaxError`."""
    return parse(pattern).group_count
