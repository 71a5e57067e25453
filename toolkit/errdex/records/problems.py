"""What can be wrong with a document before it is a record: typed problem kinds, located in the text.

The record layer reads files and says *what kind* of problem it met; it knows
no check codes. The checks layer declares, once, which check reports each kind
(``errdex.checks.parse``), and validation turns a problem into a finding with
that check's code and name.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["ParseProblem", "ProblemKind"]


class ProblemKind(enum.Enum):
    """A kind of problem met while reading a document; the value is its kebab-case name."""

    INVALID_JSON = "invalid-json"
    INVALID_UTF8 = "invalid-utf8"
    NON_FINITE_NUMBER = "non-finite-number"
    DUPLICATE_KEY = "duplicate-key"
    EMPTY_FILE = "empty-file"
    UNREADABLE_INPUT = "unreadable-input"
    NUMBER_OUT_OF_RANGE = "number-out-of-range"
    INVALID_UNICODE = "invalid-unicode"

    @property
    def fatal(self) -> bool:
        """Whether a document with this problem has no value at all (the others still parse)."""
        return self in _FATAL


_FATAL = frozenset({ProblemKind.INVALID_JSON, ProblemKind.INVALID_UTF8, ProblemKind.EMPTY_FILE,
                    ProblemKind.UNREADABLE_INPUT, ProblemKind.NUMBER_OUT_OF_RANGE})


@dataclass(frozen=True)
class ParseProblem:
    """A problem found while reading a document, located in its text (``pointer``: the value it is about)."""

    kind: ProblemKind
    message: str
    line: int
    column: int
    pointer: str = ""
