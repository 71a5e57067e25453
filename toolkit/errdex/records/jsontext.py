"""Strict JSON parsing that knows where every value sits in the text.

``parse_document`` decodes and parses one JSON document and collects every
problem it can see (invalid UTF-8, an empty document, a syntax error,
nesting deeper than :data:`MAX_DEPTH`, ``NaN``/``Infinity`` and numbers too
large for a double, integers outside 64 bits, lone UTF-16 surrogates, duplicate
keys) with its line and column instead of stopping at the first. ``Locator`` maps a JSON pointer to the line and column
of the value it names; it scans the text only when a location is asked for, so
clean documents never pay for it.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from errdex.records.problems import ParseProblem, ProblemKind

__all__ = [
    "INT_RANGE",
    "MAX_DEPTH",
    "Locator",
    "ParseProblem",
    "ParsedDocument",
    "ProblemKind",
    "escape_pointer",
    "parse_document",
    "without_surrogates",
]

#: Objects and arrays nest at most this deep: a record needs fewer than ten levels, and deeper values break
#: consumers that recurse (the models, the schema validator).
MAX_DEPTH = 64
#: Integers must fit in 64 bits, as DuckDB, Parquet and JavaScript readers of the records need.
INT_RANGE = (-(2**63), 2**63 - 1)


@dataclass
class ParsedDocument:
    """The outcome of parsing one document: its value (None when unparseable) and problems."""

    value: Any
    problems: list[ParseProblem] = field(default_factory=list)
    text: str = ""
    line_offset: int = 0
    #: True when the text writes a number with a fraction or exponent (records hold none, so checks can look
    #: closer only then: JSON Schema counts 79.0 as an integer, the models do not).
    has_decimals: bool = False

    @property
    def parsed(self) -> bool:
        return not any(p.kind.fatal for p in self.problems)


_BOM = "\ufeff"


def escape_pointer(token: str) -> str:
    """Escape one reference token of a JSON pointer (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def without_surrogates(value: Any) -> Any:
    """A copy of a parsed value with every lone surrogate replaced by U+FFFD, for the checks that run after an
    invalid-unicode problem was reported (the schema validator and the pattern engines cannot take them)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_surrogates(key): without_surrogates(item) for key, item in value.items()}
    return value


def _line_col(text: str, offset: int, line_offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1 + line_offset, offset - line_start + 1


class _Collector:
    """Hooks for ``json.loads`` that note problems instead of failing."""

    def __init__(self) -> None:
        self.duplicates = 0
        self.constants = 0
        self.overflows = 0
        self.out_of_range = 0
        self.decimals = 0

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self.duplicates += 1
        return result

    def constant(self, name: str) -> float:
        self.constants += 1
        return float(name)

    def number(self, text: str) -> float:
        value = float(text)
        self.decimals += 1
        if not math.isfinite(value):
            self.overflows += 1
        return value

    def integer(self, text: str) -> int:
        if len(text) < 19:  # at most 18 digits: always in range
            return int(text)
        # The length test first: int() of a string of thousands of digits is refused (or slow).
        value = int(text) if len(text) <= 20 else None
        if value is None or not INT_RANGE[0] <= value <= INT_RANGE[1]:
            self.out_of_range += 1
            return 0
        return value


#: A JSON string, written so that a long one costs no backtracking state: an alternation inside a repeat keeps
#: state for every character (600 MB for a 4 MB string), possessive runs between escapes keep none.
_STRING_TEXT = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_STRING = re.compile(_STRING_TEXT, re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _too_deep(text: str) -> bool:
    """True when arrays and objects nest deeper than MAX_DEPTH (a cheap test first: few brackets cannot)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(itertools.accumulate(_DEPTH_STEP[ord(c)] for c in brackets)) > MAX_DEPTH


def _deep_offset(text: str) -> int:
    """The offset of the first bracket that opens a level deeper than MAX_DEPTH."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group(match.lastindex or 0)
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return match.start(match.lastindex or 0)
        elif token in ("]", "}"):
            depth -= 1
    return 0


def _decode(data: bytes | str, line_offset: int) -> str | ParsedDocument:
    """The text of the document without a byte order mark, or the document of its UTF-8 problem."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            before = data[: exc.start].decode("utf-8", errors="replace")
            line, col = _line_col(before, len(before), line_offset)
            message = f"byte 0x{data[exc.start]:02x} is not valid UTF-8; save the file as UTF-8"
            problem = ParseProblem(ProblemKind.INVALID_UTF8, message, line, col)
            return ParsedDocument(None, [problem], "", line_offset)
    else:
        text = data
    return text[1:] if text.startswith(_BOM) else text


def _unparsed(text: str, line_offset: int, offset: int, message: str) -> ParsedDocument:
    """A document that holds no value: invalid JSON, with the place of the problem."""
    line, col = _line_col(text, offset, line_offset)
    return ParsedDocument(None, [ParseProblem(ProblemKind.INVALID_JSON, message, line, col)], text, line_offset)


def parse_document(data: bytes | str, *, line_offset: int = 0) -> ParsedDocument:
    """Parse one JSON document strictly, collecting every problem with its place."""
    text = _decode(data, line_offset)
    if isinstance(text, ParsedDocument):
        return text
    if not text.strip():
        problem = ParseProblem(ProblemKind.EMPTY_FILE, "the document is empty; write one record envelope as JSON",
                               1 + line_offset, 1)
        return ParsedDocument(None, [problem], text, line_offset)
    hooks = _Collector()
    try:
        value = json.loads(text, object_pairs_hook=hooks.pairs, parse_constant=hooks.constant,
                           parse_float=hooks.number, parse_int=hooks.integer)
    except json.JSONDecodeError as exc:
        return _unparsed(text, line_offset, exc.pos, f"not valid JSON: {exc.msg}")
    except RecursionError:
        deep = True
    else:
        deep = _too_deep(text)
    if deep:
        return _unparsed(text, line_offset, _deep_offset(text),
                         f"arrays and objects nest more than {MAX_DEPTH} levels deep; a record needs a few")
    document = ParsedDocument(value, [], text, line_offset, has_decimals=hooks.decimals > 0)
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
    if hooks.duplicates or hooks.constants or hooks.overflows or hooks.out_of_range or surrogates:
        document.problems.extend(_value_problems(text, line_offset))
    return document


def _value_problems(text: str, line_offset: int) -> list[ParseProblem]:
    """The problems of single values in text that ``json.loads`` accepted, in the order validate reports them:
    integers out of range, lone surrogates, duplicate keys, non-finite numbers."""
    scan = _Scanner(text)
    scan.run()
    problems: list[ParseProblem] = []

    def add(kind: ProblemKind, pointer: str, offset: int, message: str) -> None:
        line, col = _line_col(text, offset, line_offset)
        problems.append(ParseProblem(kind, message, line, col, pointer))

    for pointer, offset, literal in scan.out_of_range:
        shown = literal if len(literal) <= 24 else f"{literal[:12]}...({len(literal)} digits)"
        add(ProblemKind.NUMBER_OUT_OF_RANGE, pointer, offset,
            f"integer {shown} does not fit in 64 bits; errdex and its readers (DuckDB, Parquet) "
            "take integers from -2^63 to 2^63-1")
    for pointer, offset in scan.surrogates:
        add(ProblemKind.INVALID_UNICODE, pointer, offset,
            "the string holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its pair), "
            "which is not a character; remove it or write the character it was meant to be")
    for pointer, offset in scan.duplicates:
        add(ProblemKind.DUPLICATE_KEY, pointer, offset,
            f"key {pointer.rsplit('/', 1)[-1]!r} appears more than once in its object; keep one")
    for pointer, offset, word in scan.constants:
        add(ProblemKind.NON_FINITE_NUMBER, pointer, offset,
            f"{word} is not a JSON number; use a finite number or null" if word in ("NaN", "Infinity", "-Infinity")
            else f"{word[:24]} is too large for a double and would read as Infinity; use a finite number")
    return problems


_TOKEN = re.compile(
    r'[ \t\r\n]*(?:(' + _STRING_TEXT + r')|([{}\[\]:,])|(NaN|-?Infinity)|'
    r"(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null))",
    re.DOTALL,
)


class _Scanner:
    """Walks the tokens of text that ``json.loads`` accepted and notes positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = [
            (m.start(m.lastindex or 0), m.group(m.lastindex or 0), m.lastindex) for m in _TOKEN.finditer(text)
        ]
        self.index = 0
        self.positions: dict[str, int] = {}
        self.duplicates: list[tuple[str, int]] = []
        self.constants: list[tuple[str, int, str]] = []
        self.out_of_range: list[tuple[str, int, str]] = []
        self.surrogates: list[tuple[str, int]] = []

    def _string(self, pointer: str, offset: int, token: str) -> str:
        value: str = json.loads(token)
        if "\\u" in token and _LONE_SURROGATE.search(value):
            self.surrogates.append((pointer, offset))
        return value

    def run(self) -> None:
        if self.tokens:
            self._value("")

    def _next(self) -> tuple[int, str, int | None]:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def _value(self, pointer: str) -> None:
        offset, token, kind = self._next()
        self.positions[pointer] = offset
        if token == "{":
            seen: set[str] = set()
            while True:
                offset, token, kind = self._next()
                if token == "}":
                    return
                if token == ",":
                    continue
                key = json.loads(token)
                child = f"{pointer}/{escape_pointer(key)}"
                self._string(child, offset, token)
                if key in seen:
                    self.duplicates.append((child, offset))
                seen.add(key)
                self._next()  # the colon
                self._value(child)
        elif token == "[":
            position = 0
            while True:
                if self.tokens[self.index][1] == "]":
                    self.index += 1
                    return
                if self.tokens[self.index][1] == ",":
                    self.index += 1
                    continue
                self._value(f"{pointer}/{position}")
                position += 1
        elif kind == 3:
            self.constants.append((pointer, offset, token))
        elif kind == 1:
            self._string(pointer, offset, token)
        elif kind == 4 and token[-1].isdigit():
            if any(c in token for c in ".eE"):
                if not math.isfinite(float(token)):
                    self.constants.append((pointer, offset, token))
            elif len(token) > 20 or not INT_RANGE[0] <= int(token) <= INT_RANGE[1]:
                self.out_of_range.append((pointer, offset, token))


class Locator:
    """Finds the line and column of the value at a JSON pointer in a document."""

    def __init__(self, text: str, line_offset: int = 0) -> None:
        self.text = text
        self.line_offset = line_offset
        self._positions: dict[str, int] | None = None
        self._newlines: list[int] | None = None

    def _scan(self) -> dict[str, int]:
        if self._positions is None:
            scanner = _Scanner(self.text)
            try:
                scanner.run()
            except (IndexError, ValueError):
                pass
            self._positions = scanner.positions
        return self._positions

    def locate(self, pointer: str) -> tuple[int, int]:
        """Line and column (1-based) of the value at ``pointer``, or of its nearest existing parent."""
        positions = self._scan()
        while pointer not in positions and pointer:
            pointer = pointer.rsplit("/", 1)[0]
        offset = positions.get(pointer, 0)
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1 + self.line_offset, offset - start + 1
