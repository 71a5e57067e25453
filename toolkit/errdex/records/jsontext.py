"""Strict JSON parsing that knows where every value sits in the text.

``parse_document`` decodes and parses one JSON document and collects every
problem it can see (invalid UTF-8, an empty document, a syntax error,
``NaN``/``Infinity``, duplicate keys) with its line and column instead of
stopping at the first. ``Locator`` maps a JSON pointer to the line and column
of the value it names; it scans the text only when a location is asked for, so
clean documents never pay for it.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Locator", "ParseProblem", "ParsedDocument", "escape_pointer", "parse_document"]


@dataclass(frozen=True)
class ParseProblem:
    """A problem found while reading a document, located in its text."""

    code: str
    name: str
    message: str
    line: int
    column: int
    pointer: str = ""


@dataclass
class ParsedDocument:
    """The outcome of parsing one document: its value (None when unparseable) and problems."""

    value: Any
    problems: list[ParseProblem] = field(default_factory=list)
    text: str = ""
    line_offset: int = 0

    @property
    def parsed(self) -> bool:
        return not any(p.code in _FATAL for p in self.problems)


_FATAL = {"EDX001", "EDX002", "EDX005"}
_BOM = "\ufeff"


def escape_pointer(token: str) -> str:
    """Escape one reference token of a JSON pointer (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def _line_col(text: str, offset: int, line_offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1 + line_offset, offset - line_start + 1


class _Collector:
    """Hooks for ``json.loads`` that note problems instead of failing."""

    def __init__(self) -> None:
        self.duplicates = 0
        self.constants = 0

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self.duplicates += 1
        return result

    def constant(self, name: str) -> float:
        self.constants += 1
        return float(name)


def parse_document(data: bytes | str, *, line_offset: int = 0) -> ParsedDocument:
    """Parse one JSON document strictly, collecting every problem with its place."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            before = data[: exc.start].decode("utf-8", errors="replace")
            line, col = _line_col(before, len(before), line_offset)
            problem = ParseProblem(
                "EDX002",
                "invalid-utf8",
                f"byte 0x{data[exc.start]:02x} is not valid UTF-8; save the file as UTF-8",
                line,
                col,
            )
            return ParsedDocument(None, [problem], "", line_offset)
    else:
        text = data
    if text.startswith(_BOM):
        text = text[1:]
    if not text.strip():
        problem = ParseProblem("EDX005", "empty-file", "the document is empty; write one record envelope as JSON", 1 + line_offset, 1)
        return ParsedDocument(None, [problem], text, line_offset)
    hooks = _Collector()
    try:
        value = json.loads(text, object_pairs_hook=hooks.pairs, parse_constant=hooks.constant)
    except json.JSONDecodeError as exc:
        line, col = _line_col(text, exc.pos, line_offset)
        problem = ParseProblem("EDX001", "invalid-json", f"not valid JSON: {exc.msg}", line, col)
        return ParsedDocument(None, [problem], text, line_offset)
    except RecursionError:
        problem = ParseProblem("EDX001", "invalid-json", "not valid JSON: nested too deeply", 1 + line_offset, 1)
        return ParsedDocument(None, [problem], text, line_offset)
    document = ParsedDocument(value, [], text, line_offset)
    if hooks.duplicates or hooks.constants:
        scan = _Scanner(text)
        scan.run()
        for pointer, offset in scan.duplicates:
            line, col = _line_col(text, offset, line_offset)
            document.problems.append(
                ParseProblem(
                    "EDX004",
                    "duplicate-key",
                    f"key {pointer.rsplit('/', 1)[-1]!r} appears more than once in its object; keep one",
                    line,
                    col,
                    pointer,
                )
            )
        for pointer, offset, word in scan.constants:
            line, col = _line_col(text, offset, line_offset)
            document.problems.append(
                ParseProblem(
                    "EDX003",
                    "non-finite-number",
                    f"{word} is not a JSON number; use a finite number or null",
                    line,
                    col,
                    pointer,
                )
            )
    return document


_TOKEN = re.compile(
    r'[ \t\r\n]*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|(NaN|-?Infinity)|'
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
            self._newlines = [i for i, ch in enumerate(self.text) if ch == "\n"]
        line = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1 + self.line_offset, offset - start + 1
