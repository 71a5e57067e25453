"""How big a pattern is for the engines that compile it: its length and the size its counted repeats expand to.

Engines pay for a pattern's size before they match anything: hyperscan and
RE2 write counted repeats out (``.{0,1000}`` becomes a thousand optional
copies of ``.``, each an alternation of UTF-8 byte sequences), so ten short
patterns with ``.{0,1000}`` cost minutes of hyperscan compiling (and are
refused in the end), and a 70 KB pattern costs RE2 its DFA memory. Both sizes
are estimated here from the pattern's text and parse tree alone, before any
engine sees it; a pattern over either bound is reported (EDX125) and no engine
compiles it.
"""

from __future__ import annotations

from .nodes import (
    Alternation,
    Any,
    Backreference,
    CharClass,
    Group,
    Literal,
    Lookaround,
    Node,
    PatternSyntaxError,
    Repeat,
    Sequence,
    class_set,
)
from .parser import parse
from .problem import PatternProblem

__all__ = ["MAX_ALTERNATIONS", "MAX_EXPANSION", "MAX_LENGTH", "WIDE_WEIGHT", "expanded_size", "size_problems"]

#: Characters of pattern source; longer patterns are not parsed at all.
MAX_LENGTH = 4000
#: Character positions the counted repeats of a pattern may expand to.
MAX_EXPANSION = 2000
#: Alternations (``a|b``) a pattern may hold: hyperscan's compile time grows steeply with them (250 groups such as
#: ``(a0|b)(a1|b)...`` took it 3 s each before it refused them as too large).
MAX_ALTERNATIONS = 100
#: What one ``.`` (or a class holding non-ASCII characters) counts: engines that match UTF-8 bytes write it as up to
#: four byte positions.
WIDE_WEIGHT = 4


def _weight(node: Node) -> int:
    """Positions of one copy of the node, repeats inside written out (capped just above the bound)."""
    if isinstance(node, Literal):
        return 1
    if isinstance(node, Any):
        return WIDE_WEIGHT
    if isinstance(node, CharClass):
        chars = class_set(node)
        return WIDE_WEIGHT if chars and chars[-1][1] > 0x7F else 1
    if isinstance(node, Backreference):
        return 1
    if isinstance(node, (Group, Lookaround)):
        return _weight(node.child)
    if isinstance(node, Sequence):
        return min(sum(_weight(item) for item in node.items), MAX_EXPANSION + 1)
    if isinstance(node, Alternation):
        return min(sum(_weight(branch) for branch in node.branches), MAX_EXPANSION + 1)
    if isinstance(node, Repeat):
        return min(_weight(node.child) * _count(node), MAX_EXPANSION + 1)
    return 0  # anchors


def _count(node: Repeat) -> int:
    """How many copies of its body an engine writes for a repeat: its maximum, or its minimum (at least one) when
    unbounded."""
    return node.max if node.max is not None else max(node.min, 1)


def _outer_repeats(node: Node) -> list[Repeat]:
    """The repeats of more than one copy that are not inside another such repeat."""
    found: list[Repeat] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Repeat) and _count(n) > 1:
            found.append(n)
            continue
        if isinstance(n, (Group, Lookaround, Repeat)):
            stack.append(n.child)
        elif isinstance(n, Sequence):
            stack.extend(n.items)
        elif isinstance(n, Alternation):
            stack.extend(n.branches)
    return found


def _alternations(node: Node) -> list[Alternation]:
    """Every alternation in the pattern, in source order."""
    found: list[Alternation] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Alternation):
            found.append(n)
            stack.extend(n.branches)
        elif isinstance(n, (Group, Lookaround, Repeat)):
            stack.append(n.child)
        elif isinstance(n, Sequence):
            stack.extend(n.items)
    return sorted(found, key=lambda a: a.offset)


def _cannot_be_too_large(pattern: str) -> bool:
    """True when neither bound below the length can be passed, seen from the text alone: a repeat of more than
    one copy is only ever written with ``{`` (``*``, ``+`` and ``?`` count one copy) and each alternation
    starts at a ``|``. Most patterns hold neither, and the walks of their trees cost more than all else here."""
    return "{" not in pattern and pattern.count("|") <= MAX_ALTERNATIONS


def expanded_size(pattern: str) -> tuple[int, Repeat | None]:
    """Positions the pattern's counted repeats expand to (capped just above :data:`MAX_EXPANSION`), and the repeat
    that contributes most. Plain text outside repeats counts nothing (:data:`MAX_LENGTH` bounds it).
    Raises :class:`PatternSyntaxError`."""
    repeats = _outer_repeats(parse(pattern).root)
    sizes = [(_weight(r), r) for r in repeats]
    total = min(sum(size for size, _ in sizes), MAX_EXPANSION + 1)
    worst = max(sizes, key=lambda pair: pair[0], default=(0, None))[1]
    return total, worst


def size_problems(pattern: str) -> list[PatternProblem]:
    """The pattern is too long, or its counted repeats expand too far, for engines to compile it in bounded time.

    Unparseable patterns give ``[]`` beyond the length bound (see :func:`errdex.patterns.portability_problems`).
    """
    if len(pattern) > MAX_LENGTH:
        return [PatternProblem(MAX_LENGTH, f"pattern is {len(pattern):,} characters long, above the limit of "
                                           f"{MAX_LENGTH:,}; match a shorter, distinctive part of the message")]
    if _cannot_be_too_large(pattern):
        return []
    try:
        alternations = _alternations(parse(pattern).root)
        total, worst = expanded_size(pattern)
    except PatternSyntaxError:
        return []
    if len(alternations) > MAX_ALTERNATIONS:
        return [PatternProblem(alternations[MAX_ALTERNATIONS].offset,
                               f"pattern holds {len(alternations):,} alternations (a|b), above the limit of "
                               f"{MAX_ALTERNATIONS}, which engines compile slowly or refuse; match a shorter, "
                               "distinctive part of the message")]
    if total <= MAX_EXPANSION:
        return []
    where = pattern[worst.offset:worst.end] if worst is not None else ""
    if len(where) > 40:
        where = where[:37] + "..."
    return [PatternProblem(worst.offset if worst is not None else 0,
                           f"counted repeats expand to more than {MAX_EXPANSION:,} character positions (the largest: "
                           f"{where}; . and classes with non-ASCII characters count {WIDE_WEIGHT}), which engines "
                           "compile slowly or refuse; use a smaller count, or + or * where any length will do")]
