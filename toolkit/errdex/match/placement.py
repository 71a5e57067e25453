"""Ranking matches: by how specific their pattern is, then among equals by what the line says of where it was
written (:mod:`errdex.records.placement`, the rule the SQL and browser matchers read too)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from errdex.records.placement import (
    agrees,
    excluded,
    foreign,
    line_program,
    origin_pattern,
    placement_pattern,
    standing,
)

__all__ = ["Preference", "Ranked", "prefer_placed", "rank_key", "rank_of"]


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


@dataclass(frozen=True)
class Preference:
    """What the user says of every line (``errdex match --program NAME --platform NAME``): the program that
    wrote them (in place of the one a line's syslog tag names) and the platform it ran on."""

    program: str | None = None
    platform: str | None = None

    @property
    def given(self) -> bool:
        return self.program is not None or self.platform is not None


NO_PREFERENCE = Preference()


def rank_key(match: Ranked) -> tuple[int, int, str]:
    """Most literal characters first, then fewest variable parts, then record id."""
    return rank_of(match.literal_chars, match.variable_parts, match.view["id"])


def rank_of(literal_chars: int, variable_parts: int, record_id: str) -> tuple[int, int, str]:
    """:func:`rank_key` from the three facts it orders by (for a match not built as an object)."""
    return (-literal_chars, variable_parts, record_id)


@functools.lru_cache(maxsize=4096)
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _names(source: str | None, line: str) -> bool:
    return source is not None and _compiled(source).search(line) is not None


def prefer_placed(matches: list[M], line: str | bytes, preference: Preference = NO_PREFERENCE) -> list[M]:
    """``matches`` (ranked by :func:`rank_key`) reordered by what the line and ``preference`` say:

    1. a record that could not have written the line (the line's program, :data:`PROGRAM_TAG
       <errdex.records.placement.PROGRAM_TAG>` or ``preference.program``, is not among its file's known
       programs; or its file is for another platform than ``preference.platform``) goes after every one that
       could, whatever its pattern; then a record of test code or of a file for another platform
       (:func:`~errdex.records.placement.foreign`) after the rest;
    2. among matches tied on (literal characters, variable parts), those whose file and line the line names
       come first (:func:`~errdex.records.placement.placement_pattern`: log4j ``Class@368``), then those whose
       module or class it names (:func:`~errdex.records.placement.origin_pattern`), then those known to be
       built into the line's program, then by :func:`~errdex.records.placement.standing` (platform, then role:
       main, contrib, test); the record id last, as before. Nothing else moves."""
    if len(matches) < 2:
        return matches
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    program = preference.program.lower() if preference.program else line_program(text)
    platform = preference.platform
    tier = [2 if (program or platform) and excluded(m.record, program, platform)
            else int(foreign(m.record, platform)) for m in matches]
    if any(tier):
        order = sorted(range(len(matches)), key=tier.__getitem__)  # stable: each tier keeps its rank order
        matches[:], tier = [matches[i] for i in order], [tier[i] for i in order]
    start = 0
    while start < len(matches):
        key = (tier[start], *rank_key(matches[start])[:2])
        end = start + 1
        while end < len(matches) and (tier[end], *rank_key(matches[end])[:2]) == key:
            end += 1
        if end - start > 1:
            matches[start:end] = sorted(matches[start:end], key=lambda m: (
                not _names(placement_pattern(m.record), text), not _names(origin_pattern(m.record), text),
                not agrees(m.record, program), standing(m.record, platform)))
        start = end
    return matches
