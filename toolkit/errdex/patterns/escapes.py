"""Escapes and character classes of the pattern parser, with the tables they read.

:class:`EscapeParser` holds the parser's state and parses what follows a
backslash and what sits between ``[`` and ``]``; :mod:`.parser` builds the
rest of the grammar on it.
"""

from __future__ import annotations

import re

from . import charset as cs
from .nodes import (
    SHORTHANDS,
    Backreference,
    CharClass,
    ClassEscape,
    ClassItem,
    ClassProperty,
    ClassRange,
    Literal,
    Node,
    Note,
    PatternSyntaxError,
)

__all__ = ["SYNTAX_CHARS", "EscapeParser", "literal_run"]

SYNTAX_CHARS = frozenset("^$\\.*+?()[]{}|")

_CONTROL_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_HEX = frozenset("0123456789abcdefABCDEF")
_PROPERTY_RE = re.compile(r"\{([A-Za-z_]+(?:=[A-Za-z0-9_]+)?)\}")
_UNICODE_RE = re.compile(r"u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})")
_LOW_SURROGATE_RE = re.compile(r"\\u([dD][c-fC-F][0-9a-fA-F]{2})")
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


def literal_run(s: str, i: int, j: int) -> list[Literal]:
    """Interned literal nodes for ``s[i:j]`` (plain characters only)."""
    if j > 512:
        return [_literal(c, k) for k, c in enumerate(s[i:j], i)]
    tables = _LITERALS
    # One comprehension (a node is never falsy): most of a pattern's characters are met here.
    return [tables[k].get(c) or _literal(c, k) for k, c in enumerate(s[i:j], i)]


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


class EscapeParser:
    """The parser's state, and the parsing of escapes and character classes."""

    __slots__ = ("_total_groups", "backrefs", "group_index", "i", "n", "names", "notes", "s")

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
            return CharClass((ClassEscape(SHORTHANDS[c], start),), False, start, self.i, False)
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
            return ClassEscape(SHORTHANDS[e], start), -1, start
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
