"""Translation of portable patterns into each engine's dialect.

This is the only module that knows how the dialects differ.  Every
translation is generated from the parse tree (never by string surgery), so
capture groups keep their numbers and every character is spelled the same
way everywhere:

* literals: ASCII letters, digits, ``_`` and space as-is; the metacharacters
  ``\\^$.|?*+()[]{}`` backslash-escaped; control characters as ``\\xHH``;
  other ASCII punctuation and all non-ASCII characters as-is;
* inside classes every ASCII punctuation character is escaped (this also
  avoids Python's "possible set operation" warnings for ``[[``, ``--``, ``&&``);
* ``$`` becomes ``\\Z`` for Python (Python's ``$`` also matches before a final
  newline); RE2's ``$`` already means end of text;
* for hyperscan, negated classes, ``\\D`` and ``\\W`` also exclude ``\\n`` (no
  effect on single lines; keeps matches inside one line when a whole buffer is
  scanned with ``HS_FLAG_MULTILINE``, where ``^``/``$`` then become line anchors).

Lines are assumed to contain no line terminator (``\\n``, ``\\r``, U+2028,
U+2029): ``.`` excludes all four in JavaScript but only ``\\n`` elsewhere.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .escapes import SYNTAX_CHARS
from .nodes import (
    Alternation,
    Anchor,
    Any,
    CharClass,
    ClassEscape,
    ClassRange,
    Group,
    Literal,
    Node,
    PatternSyntaxError,
    Repeat,
    Sequence,
)
from .parser import parse
from .portability import matches_every_line, portability
from .problem import PatternProblem

__all__ = [
    "HS_FLAG_UTF8",
    "HYPERSCAN_FLAGS",
    "PYTHON_FLAGS",
    "NonPortablePatternError",
    "normalize_escapes",
    "python_regex",
    "to_hyperscan",
    "to_hyperscan_existence",
    "to_js",
    "to_python",
    "to_re2",
]

HS_FLAG_UTF8 = 32
"""Value of ``hyperscan.HS_FLAG_UTF8`` (kept here so hyperscan stays an optional import)."""

HYPERSCAN_FLAGS = HS_FLAG_UTF8
"""Flags to compile every translated pattern with in hyperscan.

``HS_FLAG_UTF8`` is always set: without it hyperscan counts bytes, so ``.``,
negated classes, ``\\D``/``\\W`` and counted repeats of them (``.{3}``,
``[^ ]{2}``) disagree with the other engines on non-ASCII lines, and
non-ASCII characters inside classes would be split into bytes.  It costs
about 10% more compile time and requires valid UTF-8 input (encode ``str``
lines with ``"utf-8"``).  Add ``HS_FLAG_SINGLEMATCH`` (per-line scans) or
``HS_FLAG_SOM_LEFTMOST`` / ``HS_FLAG_MULTILINE`` as the scanning mode needs;
``HS_FLAG_ALLOWEMPTY`` is never needed (portable patterns cannot match empty).
"""

PYTHON_FLAGS = re.ASCII
"""Flags for ``re.compile`` of :func:`to_python` output."""


class NonPortablePatternError(ValueError):
    """The pattern parses but is outside the portable subset."""

    def __init__(self, pattern: str, problems: list[PatternProblem]) -> None:
        first = problems[0]
        super().__init__(f"pattern is not portable: {first.message} (at offset {first.offset})")
        self.pattern = pattern
        self.problems = problems
        self.offset = first.offset


def _checked(pattern: str, allow_empty: bool = False) -> Node:
    problems = portability(pattern)
    if problems and not (allow_empty and matches_every_line(pattern)):
        try:
            parse(pattern)
        except PatternSyntaxError:
            raise
        raise NonPortablePatternError(pattern, list(problems))
    return parse(pattern).root


_META = frozenset("\\^$.|?*+()[]{}")


def _char(c: str) -> str:
    if c.isascii():
        if c.isalnum() or c == "_" or c == " ":
            return c
        o = ord(c)
        if o < 0x20 or o == 0x7F:
            return f"\\x{o:02x}"
        return "\\" + c if c in _META else c
    return c


_CHAR_OUT: dict[str, str] = {}  # memo of _char() (the same in every dialect)


def _class_char(o: int) -> str:
    c = chr(o)
    if c.isascii():
        if c.isalnum() or c == "_" or c == " ":
            return c
        if o < 0x20 or o == 0x7F:
            return f"\\x{o:02x}"
        return "\\" + c
    return c


class _Emitter:
    __slots__ = ("dialect", "out")

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.out: list[str] = []

    def emit(self, node: Node) -> None:
        out = self.out
        if isinstance(node, Literal):
            out.append(_char(node.char))
        elif isinstance(node, Any):
            out.append(".")
        elif isinstance(node, CharClass):
            self.emit_class(node)
        elif isinstance(node, Sequence):
            table = _CHAR_OUT
            for item in node.items:
                if type(item) is Literal:
                    c = item.char
                    text = table.get(c)
                    if text is None:
                        text = _char(c)
                        if len(table) < 4096:
                            table[c] = text
                    out.append(text)
                else:
                    self.emit(item)
        elif isinstance(node, Alternation):
            for k, b in enumerate(node.branches):
                if k:
                    out.append("|")
                self.emit(b)
        elif isinstance(node, Group):
            out.append("(" if node.capturing else "(?:")
            self.emit(node.child)
            out.append(")")
        elif isinstance(node, Repeat):
            self.emit(node.child)
            lo, hi = node.min, node.max
            if (lo, hi) == (0, None):
                q = "*"
            elif (lo, hi) == (1, None):
                q = "+"
            elif (lo, hi) == (0, 1):
                q = "?"
            elif hi is None:
                q = f"{{{lo},}}"
            elif lo == hi:
                q = f"{{{lo}}}"
            else:
                q = f"{{{lo},{hi}}}"
            out.append(q + ("?" if node.lazy else ""))
        elif isinstance(node, Anchor):
            if node.kind == "$" and self.dialect == "python":
                out.append("\\Z")
            else:
                out.append(node.kind)
        else:  # pragma: no cover - rejected by the portability check
            raise TypeError(f"cannot translate {type(node).__name__}")

    def emit_class(self, node: CharClass) -> None:
        hs = self.dialect == "hyperscan"
        if not node.bracketed:
            item = node.items[0]
            assert isinstance(item, ClassEscape)
            if hs and item.kind in "DW":
                self.out.append(f"[^\\{item.kind.lower()}\\n]")
            else:
                self.out.append("\\" + item.kind)
            return
        parts = ["[^" if node.negated else "["]
        for item in node.items:
            if isinstance(item, ClassRange):
                parts.append(_class_char(item.lo))
                if item.hi != item.lo:
                    parts.append("-" + _class_char(item.hi))
            else:
                assert isinstance(item, ClassEscape)
                parts.append("\\" + item.kind)
        if hs and node.negated:
            parts.append("\\n")
        parts.append("]")
        self.out.append("".join(parts))


def _emit(root: Node, dialect: str) -> str:
    e = _Emitter(dialect)
    e.emit(root)
    return "".join(e.out)


@lru_cache(maxsize=65536)
def to_python(pattern: str) -> str:
    """Python ``re`` source; compile it with :data:`PYTHON_FLAGS` (``re.ASCII``)."""
    return _emit(_checked(pattern), "python")


@lru_cache(maxsize=65536)
def to_re2(pattern: str, allow_empty: bool = False) -> str:
    """Source for google-re2 (default options) and DuckDB's ``regexp_*`` functions.

    ``allow_empty``: also translate a pattern whose only problem is that it can match the empty string
    (it then matches every line; see :func:`errdex.patterns.matches_every_line`).
    """
    return _emit(_checked(pattern, allow_empty), "re2")


@lru_cache(maxsize=65536)
def to_hyperscan(pattern: str) -> bytes:
    """UTF-8 source for hyperscan; compile it with :data:`HYPERSCAN_FLAGS`."""
    return _emit(_checked(pattern), "hyperscan").encode("utf-8")


def to_js(pattern: str) -> dict[str, str]:
    """Arguments for ``new RegExp(source, flags)`` in the browser: the pattern itself, flag ``u``."""
    _checked(pattern)
    return {"source": pattern, "flags": "u"}


@lru_cache(maxsize=65536)
def python_regex(pattern: str) -> re.Pattern[str]:
    """Compiled Python regex for a portable pattern (cached)."""
    return re.compile(to_python(pattern), PYTHON_FLAGS)


def _is_wildcard(node: Node) -> bool:
    """``.*`` or ``.*?``, possibly inside groups: it matches any text, including none."""
    while isinstance(node, Group):
        node = node.child
    if isinstance(node, Repeat) and node.min == 0 and node.max is None:
        child = node.child
        while isinstance(child, Group):
            child = child.child
        return isinstance(child, Any)
    return False


@lru_cache(maxsize=65536)
def to_hyperscan_existence(pattern: str) -> bytes:
    """Hyperscan source that occurs in a line exactly when the pattern does, for whole-buffer scans.

    Leading and trailing ``.*``/``(.*?)`` items are dropped (they match any
    text, including none), so a hit is reported once where the fixed part ends
    instead of once per character after it. Groups are irrelevant to
    existence; the caller extracts them with RE2 on the line.
    """
    root = _checked(pattern)
    while isinstance(root, Group) and root.capturing is False:
        root = root.child
    if isinstance(root, Sequence):
        items = list(root.items)
        while items and _is_wildcard(items[0]) and any(isinstance(i, Literal) for i in items[1:]):
            items.pop(0)
        while items and _is_wildcard(items[-1]) and any(isinstance(i, Literal) for i in items[:-1]):
            items.pop()
        root = Sequence(tuple(items), root.offset, root.end)
    return _emit(root, "hyperscan").encode("utf-8")


#: A backslash before a character that is neither an ASCII letter or digit, nor a syntax character, nor ``/``
#: (``-`` is kept only inside a class, so it is found too): where the loop below might drop one. Found anywhere,
#: even where the backslash is itself escaped, it only sends the pattern through the loop; a pattern without one
#: is returned as it is, without the loop over its characters (most patterns escape only syntax characters).
_MAY_DROP = re.compile("\\\\[^A-Za-z0-9/" + re.escape("".join(sorted(SYNTAX_CHARS))) + "]")


def normalize_escapes(pattern: str) -> str:
    """The pattern with needless backslashes dropped: ``\\ ``, ``\\#``, ``\\-`` (outside a class), ``\\é``...

    Python's ``re.escape`` and many hand-written patterns escape characters
    that have no special meaning; under JavaScript's ``u`` flag such an escape
    is a syntax error, so the pattern would not be portable. Dropping the
    backslash keeps the meaning (the character matches itself) in every
    engine. Real escapes (``\\d``, ``\\n``, ``\\u0041``, ``\\.``, ``\\[``, ``\\/``,
    ``\\-`` inside a class) are kept as written. Validation still reports the
    original pattern (EDX121); matching uses this form.
    """
    if "\\" not in pattern or not _MAY_DROP.search(pattern):
        return pattern
    out, i, n, in_class = [], 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            keep = (nxt.isascii() and nxt.isalnum()) or nxt in SYNTAX_CHARS or nxt == "/" or (in_class and nxt == "-")
            out.append(c + nxt if keep else nxt)
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        out.append(c)
        i += 1
    return "".join(out)
