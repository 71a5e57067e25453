"""The tree of a parsed pattern: node classes, the syntax error, and the set of characters a class matches.

Nodes are plain slotted dataclasses (frozen ones cost 3x more to build, and
parsing is on the validator's hot path).  Trees are shared through the parse
cache: treat them as immutable.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import TypeAlias

from . import charset as cs

__all__ = [
    "ANCHORS",
    "SHORTHANDS",
    "Alternation",
    "Anchor",
    "AnchorKind",
    "Any",
    "Backreference",
    "CharClass",
    "ClassEscape",
    "ClassItem",
    "ClassProperty",
    "ClassRange",
    "Group",
    "Literal",
    "Lookaround",
    "Node",
    "Note",
    "NoteKind",
    "Pattern",
    "PatternSyntaxError",
    "Repeat",
    "Sequence",
    "ShorthandKind",
    "class_set",
]


class PatternSyntaxError(ValueError):
    """The pattern is not valid JavaScript regex syntax under the ``u`` flag.

    ``offset`` is the 0-based index (in code points, i.e. Python ``str``
    indices) of the offending construct.
    """

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message, offset)
        self.message = message
        self.offset = offset

    def __str__(self) -> str:
        return f"{self.message} (at offset {self.offset})"


@dataclass(slots=True)
class Literal:
    """One literal character."""

    char: str
    offset: int
    end: int


@dataclass(slots=True)
class ClassRange:
    """``lo-hi`` inside a class (a single character has ``lo == hi``)."""

    lo: int
    hi: int
    offset: int


@dataclass(slots=True)
class ClassEscape:
    """``\\d \\D \\w \\W \\s \\S`` inside or outside a class."""

    kind: ShorthandKind
    offset: int


@dataclass(slots=True)
class ClassProperty:
    """``\\p{...}`` / ``\\P{...}`` (never portable; its set is treated as unknown)."""

    name: str
    negated: bool
    offset: int


ClassItem: TypeAlias = ClassRange | ClassEscape | ClassProperty


@dataclass(slots=True)
class CharClass:
    """``[...]``, ``[^...]`` or a shorthand escape such as ``\\d`` (one item, ``bracketed=False``)."""

    items: tuple[ClassItem, ...]
    negated: bool
    offset: int
    end: int
    bracketed: bool = True


@dataclass(slots=True)
class Any:
    """``.`` (any character except a line terminator)."""

    offset: int
    end: int


@dataclass(slots=True)
class Group:
    """``(...)`` (``index`` set), ``(?:...)`` or a named group ``(?<name>...)``."""

    child: Node
    capturing: bool
    index: int | None
    name: str | None
    offset: int
    end: int


@dataclass(slots=True)
class Alternation:
    """``a|b|c``."""

    branches: tuple[Node, ...]
    offset: int
    end: int


@dataclass(slots=True)
class Sequence:
    """Items matched one after another (an empty sequence matches the empty string)."""

    items: tuple[Node, ...]
    offset: int
    end: int


@dataclass(slots=True)
class Repeat:
    """``x*``, ``x+``, ``x?``, ``x{n}``, ``x{n,}``, ``x{n,m}``, optionally lazy (``?``)."""

    child: Node
    min: int
    max: int | None
    lazy: bool
    offset: int
    end: int
    quantifier_offset: int


@dataclass(slots=True)
class Anchor:
    """``^``, ``$``, ``\\b`` or ``\\B``."""

    kind: AnchorKind
    offset: int
    end: int


@dataclass(slots=True)
class Lookaround:
    """``(?=...)``, ``(?!...)``, ``(?<=...)``, ``(?<!...)`` (never portable)."""

    child: Node
    ahead: bool
    negative: bool
    offset: int
    end: int


@dataclass(slots=True)
class Backreference:
    """``\\1`` or ``\\k<name>`` (never portable)."""

    ref: int | str
    offset: int
    end: int


Node: TypeAlias = (
    Literal | CharClass | Any | Group | Alternation | Sequence | Repeat | Anchor | Lookaround
    | Backreference
)

ShorthandKind: TypeAlias = typing.Literal["d", "D", "w", "W", "s", "S"]
AnchorKind: TypeAlias = typing.Literal["^", "$", "\\b", "\\B"]
#: The shorthand escapes and anchors by their text, typed (a parser reads them as plain strings).
SHORTHANDS: dict[str, ShorthandKind] = {"d": "d", "D": "D", "w": "w", "W": "W", "s": "s", "S": "S"}
ANCHORS: dict[str, AnchorKind] = {"^": "^", "$": "$", "\\b": "\\b", "\\B": "\\B"}

NoteKind: TypeAlias = typing.Literal[
    "unicode_escape", "property_escape", "control_escape", "nul_escape", "space_class",
    "empty_class", "surrogate",
]


@dataclass(slots=True)
class Note:
    """A lexical construct that is valid JavaScript but outside the portable subset."""

    kind: NoteKind
    offset: int
    end: int


@dataclass(slots=True)
class Pattern:
    """A parsed pattern: the tree plus facts gathered while parsing."""

    source: str
    root: Node
    group_count: int
    group_names: tuple[str, ...]
    notes: tuple[Note, ...]


def class_set(node: CharClass) -> cs.Ranges:
    """The exact set of code points a class (or shorthand escape) matches.

    ``\\p{...}`` is unknown to errdex and counts as every code point.
    """
    parts: list[cs.Ranges] = []
    for item in node.items:
        if isinstance(item, ClassRange):
            parts.append(((item.lo, item.hi),))
        elif isinstance(item, ClassEscape):
            parts.append(cs.SHORTHAND[item.kind])
        else:
            parts.append(cs.ALL)
    s = cs.union(*parts) if parts else cs.EMPTY
    return cs.negate(s) if node.negated else s
