"""A problem found in a pattern by one of the analyses (portability, backtracking, size)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PatternProblem"]


@dataclass(frozen=True, slots=True)
class PatternProblem:
    """A problem found in a pattern: ``offset`` is a 0-based index into the source."""

    offset: int
    message: str
