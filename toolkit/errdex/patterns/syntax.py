"""Recursive-descent parser for JavaScript regular expressions (``u`` flag).

The parser accepts exactly what ``new RegExp(source, "u")`` accepts (ES2024,
without the ``v`` flag and without ES2025 ``(?i:...)`` modifiers), with one
implementation limit: nesting deeper than :data:`MAX_PARSE_DEPTH` groups is
rejected.  Constructs that JavaScript accepts but errdex does not (lookaround,
backreferences, named groups, ``\\u``/``\\p``/``\\c``/``\\0`` escapes, ``\\s``)
are kept in the tree or recorded as :class:`Note` so that
:func:`errdex.patterns.portability_problems` can report them.

Several things that other dialects accept are syntax errors under ``u``
(``(?i)``, ``(?P<n>``, ``(?>``, ``a++``, ``\\A``, ``\\Z``, ``{,3}``, lone
``]``/``}``, ``\\:``); for these the error message says what to write instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
import typing
from typing import TypeAlias

from . import charset as cs

__all__ = [
    "MAX_PARSE_DEPTH", "PatternSyntaxError", "Pattern", "Note", "Node", "ClassItem",
    "Literal", "ClassRange", "ClassEscape", "ClassProperty", "CharClass", "Any", "Group",
    "Alternation", "Sequence", "Repeat", "Anchor", "Lookaround", "Backreference", "parse",
    "class_set", "SYNTAX_CHARS",
]

MAX_PARSE_DEPTH = 200
SYNTAX_CHARS = frozenset("^$\\.*+?()[]{}|")
_QUANTIFIER_START = frozenset("*+?{")


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


# --------------------------------------------------------------------------- AST
# Nodes are plain slotted dataclasses (frozen ones cost 3x more to build, and
# parsing is on the validator's hot path).  Trees are shared through the parse
# cache: treat them as immutable.


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

    kind: typing.Literal["d", "D", "w", "W", "s", "S"]
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

    kind: typing.Literal["^", "$", "\\b", "\\B"]
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


# ------------------------------------------------------------------------ parser

_CONTROL_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_HEX = frozenset("0123456789abcdefABCDEF")
_QUANT_RE = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_POSIX_RE = re.compile(r"\[:\^?[A-Za-z]+:\]\Z")
_PROPERTY_RE = re.compile(r"\{([A-Za-z_]+(?:=[A-Za-z0-9_]+)?)\}")
_UNICODE_RE = re.compile(r"u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})")
_LOW_SURROGATE_RE = re.compile(r"\\u([dD][c-fC-F][0-9a-fA-F]{2})")
_OPEN_BOUND_RE = re.compile(r"\{,[0-9]+\}")
_INLINE_FLAGS_RE = re.compile(r"\(\?[a-zA-Z]*-?[a-zA-Z]*[:)]")
_SPECIAL_ESCAPES = {
    "A": "\\A is not JavaScript; use ^ for the start of the line",
    "Z": "\\Z is not JavaScript; use $ for the end of the line",
    "z": "\\z is not JavaScript; use $ for the end of the line",
    "G": "\\G is not supported; anchor with ^ instead",
    "Q": "\\Q...\\E quoting is not JavaScript; escape each metacharacter with a backslash",
    "E": "\\Q...\\E quoting is not JavaScript; escape each metacharacter with a backslash",
    "h": "\\h is not JavaScript; use [ \\t]",
    "R": "\\R is not JavaScript; lines never contain line breaks",
    "K": "\\K is not JavaScript; use a capturing group for the part you need",
    "e": "\\e is not JavaScript; errdex patterns cannot match escape characters portably",
    "a": "\\a is not JavaScript; errdex patterns cannot match bell characters portably",
    "X": "\\X is not JavaScript; use . for one character",
    "N": "\\N is not JavaScript; use [^\\n] or .",
    "C": "\\C is not JavaScript; use .",
}


# Literal nodes are interned by (offset, char): patterns share most of their
# literal nodes, which keeps allocation and garbage-collection work low.
_LITERALS: list[dict[str, Literal]] = [{} for _ in range(512)]
_LITERALS_MAX_PER_OFFSET = 256


_PLAIN_RUN = re.compile("[^\\\\^$.*+?()\\[\\]{}|\ud800-\udfff]+")


def _literals(s: str, i: int, j: int) -> list[Literal]:
    """Interned literal nodes for ``s[i:j]`` (plain characters only)."""
    if j > 512:
        return [_literal(c, k) for k, c in enumerate(s[i:j], i)]
    tables = _LITERALS
    out = []
    for k in range(i, j):
        c = s[k]
        node = tables[k].get(c)
        if node is None:
            node = _literal(c, k)
        out.append(node)
    return out


def _literal(c: str, i: int) -> Literal:
    if i >= 512:
        return Literal(c, i, i + 1)
    table = _LITERALS[i]
    node = table.get(c)
    if node is None:
        node = Literal(c, i, i + 1)
        if len(table) < _LITERALS_MAX_PER_OFFSET:
            table[c] = node
    return node


def _count_groups(s: str) -> int:
    """Pre-scan: number of capturing groups."""
    count = 0
    i, n = 0, len(s)
    in_class = False
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
        elif c == "(":
            if i + 1 < n and s[i + 1] == "?":
                if i + 2 < n and s[i + 2] == "<" and i + 3 < n and s[i + 3] not in "=!":
                    count += 1
            else:
                count += 1
        i += 1
    return count


class _Parser:
    __slots__ = ("s", "n", "i", "_total_groups", "group_index", "names", "notes", "backrefs")

    def __init__(self, source: str) -> None:
        self.s = source
        self.n = len(source)
        self.i = 0
        self._total_groups = -1
        self.group_index = 0
        self.names: list[str] = []
        self.notes: list[Note] = []
        self.backrefs: list[tuple[str, int]] = []

    @property
    def total_groups(self) -> int:
        """Number of capturing groups in the whole pattern (pre-scanned on demand)."""
        if self._total_groups < 0:
            self._total_groups = _count_groups(self.s)
        return self._total_groups

    def error(self, message: str, offset: int | None = None) -> PatternSyntaxError:
        return PatternSyntaxError(message, self.i if offset is None else offset)

    # Disjunction :: Alternative ( | Alternative )*
    def disjunction(self, depth: int) -> Node:
        start = self.i
        first = self.alternative(depth)
        if self.i >= self.n or self.s[self.i] != "|":
            return first
        branches = [first]
        while self.i < self.n and self.s[self.i] == "|":
            self.i += 1
            branches.append(self.alternative(depth))
        return Alternation(tuple(branches), start, self.i)

    # Alternative :: Term*
    def alternative(self, depth: int) -> Node:
        start = self.i
        items: list[Node] = []
        s, n = self.s, self.n
        plain = _PLAIN_RUN.match
        i = start
        while i < n:
            m = plain(s, i)
            if m is not None:
                # A run of plain literal characters; a quantifier after the run
                # belongs to its last character, which term() handles.
                j = m.end()
                if j < n and s[j] in _QUANTIFIER_START:
                    j -= 1
                if j > i:
                    items.extend(_literals(s, i, j))
                    i = j
                    continue
            c = s[i]
            if c == "|" or c == ")":
                break
            self.i = i
            items.append(self.term(depth))
            i = self.i
        self.i = i
        if len(items) == 1:
            return items[0]
        return Sequence(tuple(items), start, self.i)

    def term(self, depth: int) -> Node:
        s = self.s
        start = self.i
        c = s[start]
        quantifiable = True
        atom: Node
        if c == "^" or c == "$":
            self.i += 1
            atom = Anchor(c, start, self.i)  # type: ignore[arg-type]
            quantifiable = False
        elif c == "\\":
            nxt = s[start + 1] if start + 1 < self.n else ""
            if nxt == "b" or nxt == "B":
                self.i += 2
                atom = Anchor("\\" + nxt, start, self.i)  # type: ignore[arg-type]
                quantifiable = False
            else:
                atom = self.atom_escape()
        elif c == "(":
            atom, quantifiable = self.group(depth)
        elif c == ".":
            self.i += 1
            atom = Any(start, self.i)
        elif c == "[":
            atom = self.char_class()
        elif c in "*+?":
            raise self.error(f"nothing to repeat before {c!r}; escape it as \\{c} for a literal {c}")
        elif c == "{":
            if _OPEN_BOUND_RE.match(s, start):
                raise self.error("{,n} is not a JavaScript quantifier (and here there is nothing to "
                                 "repeat); escape it as \\{ for a literal {")
            if _QUANT_RE.match(s, start):
                raise self.error("nothing to repeat before '{'; escape it as \\{ for a literal {")
            raise self.error("lone '{' is a syntax error under the u flag; escape it as \\{")
        elif c == "}":
            raise self.error("lone '}' is a syntax error under the u flag; escape it as \\}")
        elif c == "]":
            m = _POSIX_RE.search(s, 0, start)
            if m:
                raise self.error(
                    f"POSIX class {m.group(0)} is not JavaScript; use an explicit class such as "
                    "[A-Za-z] or [0-9]", m.start())
            raise self.error("lone ']' is a syntax error under the u flag; escape it as \\]")
        else:
            self.i += 1
            if 0xD800 <= ord(c) <= 0xDFFF:
                self.notes.append(Note("surrogate", start, self.i))
            atom = Literal(c, start, self.i)
        if self.i < self.n and s[self.i] in "*+?{":
            return self.quantifier(atom, quantifiable, start)
        return atom

    def quantifier(self, atom: Node, quantifiable: bool, start: int) -> Node:
        s = self.s
        q = self.i
        c = s[q]
        if c == "{":
            m = _QUANT_RE.match(s, q)
            if not m:
                if _OPEN_BOUND_RE.match(s, q):
                    raise self.error("{,n} is not a JavaScript quantifier; write {0,n}", q)
                raise self.error(
                    "incomplete quantifier: '{' must start {n}, {n,} or {n,m}; escape it as \\{", q)
            if not quantifiable:
                raise self.error("nothing to repeat: an assertion cannot be quantified", q)
            lo = int(m.group(1))
            hi: int | None
            if m.group(2) is None:
                hi = lo
            elif m.group(3):
                hi = int(m.group(3))
            else:
                hi = None
            if hi is not None and hi < lo:
                raise self.error(f"numbers out of order in {m.group(0)} quantifier", q)
            self.i = m.end()
        else:
            if not quantifiable:
                raise self.error("nothing to repeat: an assertion cannot be quantified", q)
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.i += 1
        lazy = False
        if self.i < self.n and s[self.i] == "?":
            lazy = True
            self.i += 1
        if self.i < self.n and s[self.i] == "+":
            raise self.error(
                "possessive quantifiers (a++, a*+) are not JavaScript; drop the extra '+'", self.i)
        return Repeat(atom, lo, hi, lazy, start, self.i, q)

    def group(self, depth: int) -> tuple[Node, bool]:
        s, n = self.s, self.n
        start = self.i
        if depth >= MAX_PARSE_DEPTH:
            raise self.error(f"groups nested more than {MAX_PARSE_DEPTH} deep", start)
        kind = "capture"
        name: str | None = None
        body = start + 1
        if body < n and s[body] == "?":
            two = s[body + 1:body + 3]
            if two[:1] == ":":
                kind, body = "noncapture", body + 2
            elif two[:1] in ("=", "!"):
                kind, body = "ahead" + two[:1], body + 2
            elif two in ("<=", "<!"):
                kind, body = "behind" + two[1], body + 3
            elif two[:1] == "<":
                close = s.find(">", body + 2)
                name = s[body + 2:close] if close >= 0 else ""
                if close < 0 or not _valid_group_name(name):
                    raise self.error("invalid capture group name", body + 2)
                if name in self.names:
                    raise self.error(f"duplicate capture group name {name!r}", body + 2)
                self.names.append(name)
                kind, body = "named", close + 1
            elif two[:1] == "P":
                raise self.error(
                    "Python-style named groups (?P<name>...) / (?P=name) are not JavaScript; "
                    "use a plain group (...)", start)
            elif two[:1] == ">":
                raise self.error(
                    "atomic groups (?>...) are not JavaScript; use a non-capturing group (?:...)",
                    start)
            elif two[:1] == "#":
                raise self.error("comments (?#...) are not JavaScript; delete the comment", start)
            elif _INLINE_FLAGS_RE.match(s, start):
                raise self.error(
                    "inline flags such as (?i) or (?i:...) are not supported; spell the cases out, "
                    "e.g. [Ee]rror", start)
            else:
                raise self.error("invalid group: '(?' must be followed by ':', '=', '!', '<=', '<!' "
                                 "or '<name>'", start)
        index: int | None = None
        if kind in ("capture", "named"):
            self.group_index += 1
            index = self.group_index
        self.i = body
        child = self.disjunction(depth + 1)
        if self.i >= n or s[self.i] != ")":
            raise self.error("unterminated group: missing ')'", start)
        self.i += 1
        end = self.i
        if kind.startswith(("ahead", "behind")):
            la = Lookaround(child, kind.startswith("ahead"), kind.endswith("!"), start, end)
            return la, False
        return Group(child, index is not None, index, name, start, end), True

    def atom_escape(self) -> Node:
        s, n = self.s, self.n
        start = self.i
        if start + 1 >= n:
            raise self.error("'\\' at end of pattern; write \\\\ for a literal backslash")
        c = s[start + 1]
        if c in "dDwWsS":
            self.i = start + 2
            if c in "sS":
                self.notes.append(Note("space_class", start, self.i))
            return CharClass((ClassEscape(c, start),), False, start, self.i, False)  # type: ignore[arg-type]
        if c in "pP":
            item = self.property_escape(start, c == "P")
            return CharClass((item,), False, start, self.i, False)
        if "1" <= c <= "9":
            j = start + 1
            while j < n and s[j].isdigit() and s[j] in "0123456789":
                j += 1
            number = int(s[start + 1:j])
            if number > self.total_groups:
                raise self.error(
                    f"\\{number} refers to a missing group (octal escapes are not allowed under "
                    "the u flag)", start)
            self.i = j
            return Backreference(number, start, j)
        if c == "k":
            if start + 2 < n and s[start + 2] == "<":
                close = s.find(">", start + 3)
                if close > 0:
                    name = s[start + 3:close]
                    self.i = close + 1
                    self.backrefs.append((name, start))
                    return Backreference(name, start, self.i)
            raise self.error("invalid named reference: \\k must be followed by <name>", start)
        ch = self.character_escape(start, in_class=False)
        return Literal(ch, start, self.i)

    def property_escape(self, start: int, negated: bool) -> ClassProperty:
        s = self.s
        m = _PROPERTY_RE.match(s, start + 2)
        if not m:
            raise self.error("invalid property escape: \\p must be followed by {Name}", start)
        self.i = m.end()
        self.notes.append(Note("property_escape", start, self.i))
        return ClassProperty(m.group(1), negated, start)

    def character_escape(self, start: int, *, in_class: bool) -> str:
        """Parse ``\\X`` at ``start`` that denotes one character; return it."""
        s, n = self.s, self.n
        c = s[start + 1]
        if c in _CONTROL_ESCAPES:
            self.i = start + 2
            return _CONTROL_ESCAPES[c]
        if c in SYNTAX_CHARS or c == "/" or (in_class and c == "-"):
            self.i = start + 2
            return c
        if c == "0":
            if start + 2 < n and s[start + 2] in "0123456789":
                raise self.error("octal escapes are not allowed under the u flag; write the "
                                 "character itself", start)
            self.i = start + 2
            self.notes.append(Note("nul_escape", start, self.i))
            return "\0"
        if c == "c":
            if start + 2 < n and ("a" <= s[start + 2].lower() <= "z") and s[start + 2].isascii():
                self.i = start + 3
                self.notes.append(Note("control_escape", start, self.i))
                return chr(ord(s[start + 2]) % 32)
            raise self.error("invalid control escape: \\c must be followed by a letter", start)
        if c == "x":
            h = s[start + 2:start + 4]
            if len(h) == 2 and h[0] in _HEX and h[1] in _HEX:
                self.i = start + 4
                return chr(int(h, 16))
            if s[start + 2:start + 3] == "{":
                raise self.error("\\x{...} is not JavaScript; write the character itself", start)
            raise self.error("invalid escape: \\x must be followed by two hex digits", start)
        if c == "u":
            return self.unicode_escape(start)
        if c in _SPECIAL_ESCAPES:
            raise self.error(_SPECIAL_ESCAPES[c], start)
        if c.isascii() and c.isalnum():
            raise self.error(f"invalid escape \\{c} under the u flag", start)
        if c == "-":
            raise self.error("\\- is only allowed inside a class under the u flag; write - without "
                             "the backslash", start)
        raise self.error(f"unnecessary escape \\{c} is a syntax error under the u flag; write "
                         f"{c} without the backslash", start)

    def unicode_escape(self, start: int) -> str:
        s = self.s
        m = _UNICODE_RE.match(s, start + 1)
        if not m:
            raise self.error("invalid Unicode escape: use \\uXXXX or \\u{X...}", start)
        cp = int(m.group(1) or m.group(2), 16)
        if cp > cs.MAX_CODE_POINT:
            raise self.error("invalid Unicode escape: code point above U+10FFFF", start)
        end = m.end()
        if m.group(2) and 0xD800 <= cp <= 0xDBFF:
            m2 = _LOW_SURROGATE_RE.match(s, end)
            if m2:
                low = int(m2.group(1), 16)
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                end = m2.end()
        self.i = end
        self.notes.append(Note("unicode_escape", start, end))
        return chr(cp)

    def class_atom(self) -> tuple[ClassItem | None, int, int]:
        """One class atom: (class item or None for a char, code point, offset)."""
        s, n = self.s, self.n
        start = self.i
        c = s[start]
        if c != "\\":
            self.i += 1
            if 0xD800 <= ord(c) <= 0xDFFF:
                self.notes.append(Note("surrogate", start, self.i))
            return None, ord(c), start
        if start + 1 >= n:
            raise self.error("'\\' at end of pattern; write \\\\ for a literal backslash")
        e = s[start + 1]
        if e in "dDwWsS":
            self.i = start + 2
            if e in "sS":
                self.notes.append(Note("space_class", start, self.i))
            return ClassEscape(e, start), -1, start  # type: ignore[arg-type]
        if e in "pP":
            return self.property_escape(start, e == "P"), -1, start
        if e == "b":
            self.i = start + 2
            return None, 8, start
        if e == "B":
            raise self.error("\\B is not allowed inside a class", start)
        if "1" <= e <= "9":
            raise self.error(f"invalid class escape \\{e} (no octal or backreferences in a class)",
                             start)
        if e == "k":
            raise self.error("invalid class escape \\k", start)
        return None, ord(self.character_escape(start, in_class=True)), start

    def char_class(self) -> CharClass:
        s, n = self.s, self.n
        start = self.i
        self.i += 1
        negated = False
        if self.i < n and s[self.i] == "^":
            negated = True
            self.i += 1
        items: list[ClassItem] = []
        while True:
            if self.i >= n:
                raise self.error("unterminated character class: missing ']'", start)
            if s[self.i] == "]":
                self.i += 1
                break
            a_item, a_cp, a_off = self.class_atom()
            if self.i + 1 < n and s[self.i] == "-" and s[self.i + 1] != "]":
                self.i += 1
                b_item, b_cp, _ = self.class_atom()
                if a_item is not None or b_item is not None:
                    raise self.error("a class escape such as \\d cannot be a range endpoint "
                                     "under the u flag; escape the '-' as \\-", a_off)
                if a_cp > b_cp:
                    raise self.error("range out of order in character class", a_off)
                items.append(ClassRange(a_cp, b_cp, a_off))
            elif a_item is not None:
                items.append(a_item)
            else:
                items.append(ClassRange(a_cp, a_cp, a_off))
        if not items:
            self.notes.append(Note("empty_class", start, self.i))
        return CharClass(tuple(items), negated, start, self.i)


def _valid_group_name(name: str) -> bool:
    return bool(name) and (name.replace("$", "_").isidentifier())


@lru_cache(maxsize=65536)
def parse(pattern: str) -> Pattern:
    """Parse a JavaScript (``u`` flag) regex source into a :class:`Pattern`.

    Raises :class:`PatternSyntaxError` where ``new RegExp(pattern, "u")``
    would throw.  Results are cached (the tree is immutable).
    """
    if not isinstance(pattern, str):
        raise TypeError("pattern must be a str")
    p = _Parser(pattern)
    root = p.disjunction(0)
    if p.i < p.n:
        # disjunction() only stops early at an unmatched ')'.
        raise p.error("unmatched ')'; escape it as \\) for a literal )", p.i)
    for name, offset in p.backrefs:
        if name not in p.names:
            raise PatternSyntaxError(f"\\k<{name}> refers to a missing named group", offset)
    return Pattern(pattern, root, p.group_index, tuple(p.names), tuple(p.notes))
