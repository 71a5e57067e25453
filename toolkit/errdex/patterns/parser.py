"""Recursive-descent parser for JavaScript regular expressions (``u`` flag).

The parser accepts exactly what ``new RegExp(source, "u")`` accepts (ES2024,
without the ``v`` flag and without ES2025 ``(?i:...)`` modifiers), with one
implementation limit: nesting deeper than :data:`MAX_PARSE_DEPTH` groups is
rejected.  Constructs that JavaScript accepts but errdex does not (lookaround,
backreferences, named groups, ``\\u``/``\\p``/``\\c``/``\\0`` escapes, ``\\s``)
are kept in the tree or recorded as :class:`~.nodes.Note` so that
:func:`errdex.patterns.portability_problems` can report them.

Several things that other dialects accept are syntax errors under ``u``
(``(?i)``, ``(?P<n>``, ``(?>``, ``a++``, ``\\A``, ``\\Z``, ``{,3}``, lone
``]``/``}``, ``\\:``); for these the error message says what to write instead.
Escapes and classes are parsed by :class:`~.escapes.EscapeParser`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .escapes import EscapeParser, literal_run
from .nodes import (
    ANCHORS,
    Alternation,
    Anchor,
    Any,
    Group,
    Literal,
    Lookaround,
    Node,
    Note,
    Pattern,
    PatternSyntaxError,
    Repeat,
    Sequence,
)

__all__ = ["MAX_PARSE_DEPTH", "parse"]

MAX_PARSE_DEPTH = 200
_QUANTIFIER_START = frozenset("*+?{")
_QUANT_RE = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_POSIX_RE = re.compile(r"\[:\^?[A-Za-z]+:\]\Z")
_OPEN_BOUND_RE = re.compile(r"\{,[0-9]+\}")
_INLINE_FLAGS_RE = re.compile(r"\(\?[a-zA-Z]*-?[a-zA-Z]*[:)]")
_PLAIN_RUN = re.compile("[^\\\\^$.*+?()\\[\\]{}|\ud800-\udfff]+")


class _Parser(EscapeParser):
    __slots__ = ()

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
                    items.extend(literal_run(s, i, j))
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
            atom = Anchor(ANCHORS[c], start, self.i)
            quantifiable = False
        elif c == "\\":
            nxt = s[start + 1] if start + 1 < self.n else ""
            if nxt == "b" or nxt == "B":
                self.i += 2
                atom = Anchor(ANCHORS["\\" + nxt], start, self.i)
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
