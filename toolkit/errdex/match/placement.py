"""Ranking matches: by how specific their pattern is, and a tie for first place by where the line was written."""

from __future__ import annotations

import functools
import re
from typing import Any, Protocol, TypeVar

from errdex.records.placement import placement_pattern

__all__ = ["Ranked", "prefer_placed", "rank_key", "rank_of"]


class Ranked(Protocol):
    """What ranking reads of a match (:class:`errdex.match.engine.Match`)."""

    @property
    def view(self) -> dict[str, Any]: ...
    @property
    def literal_chars(self) -> int: ...
    @property
    def variable_parts(self) -> int: ...
    @property
    def record(self) -> dict[str, Any]: ...


M = TypeVar("M", bound=Ranked)


def rank_key(match: Ranked) -> tuple[int, int, str]:
    """Most literal characters first, then fewest variable parts, then record id."""
    return rank_of(match.literal_chars, match.variable_parts, match.view["id"])


def rank_of(literal_chars: int, variable_parts: int, record_id: str) -> tuple[int, int, str]:
    """:func:`rank_key` from the three facts it orders by (for a match not built as an object)."""
    return (-literal_chars, variable_parts, record_id)


@functools.lru_cache(maxsize=4096)
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _placed(record: dict[str, Any], line: str) -> bool:
    """Whether the line names the record's file and line (:func:`errdex.records.placement.placement_pattern`, the
    rule the SQL and browser matchers read too): log4j ``Class@368``, ``Class.java:368``, ``client.py:42``."""
    source = placement_pattern(record)
    return source is not None and _compiled(source).search(line) is not None


def prefer_placed(matches: list[M], line: str | bytes) -> list[M]:
    """Ranked ``matches`` with those tied for first place whose file and line the line names (:func:`_placed`)
    moved ahead of the others tied (two statements that write one message); nothing else moves. Reads the
    records only on such a tie."""
    top = rank_key(matches[0])[:2] if len(matches) > 1 else None
    tied = 0
    while tied < len(matches) and rank_key(matches[tied])[:2] == top:
        tied += 1
    if tied < 2:
        return matches
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    matches[:tied] = sorted(matches[:tied], key=lambda m: not _placed(m.record, text))  # stable: ties keep order
    return matches
