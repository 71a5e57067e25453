"""Each record's site at the new commit, found in three passes over all records (never by its line alone).

1. ``diff``: the record's first line is untouched by the diff and a site starts at the mapped line of the
   mapped file: that is its statement (unchanged when file, line and text are the same; moved otherwise;
   reworded when the statement now writes another message);
2. ``content``: a site that writes the same message (its text equal to the record's ``errorMessage``, or its
   pattern to the record's ``messagePattern``), preferring the mapped file, the same function, the nearest
   line: moved (or unchanged when it is where the record says);
3. ``fingerprint``: a site with the record's fingerprint, or in the same file and function making the same
   call, whose message is similar (:data:`~errdex.drift.fingerprint.SIMILAR`): reworded.

Whatever is left is vanished. Each site is claimed by one record at most; in a pass the best pairs are taken
first, over all records, so that the order of the records does not decide.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from errdex.drift.fingerprint import SIMILAR, fingerprint, similarity, statement_text
from errdex.drift.linemap import Mapped
from errdex.drift.outcomes import Drifted, Kind, Place
from errdex.harvest.sites import Site

__all__ = ["Moving", "OldStatement", "SitesAt", "relocate"]


@dataclass(frozen=True)
class OldStatement:
    """A record's statement at its own commit: where, its text, the function and the call (errorClass)."""

    path: str
    line: int
    end_line: int
    text: str
    function: str | None
    call: str | None


@dataclass(frozen=True)
class Moving:
    """A record to relocate: its id, message, pattern, old statement and where the diff maps its first line."""

    record_id: str
    message: str
    pattern: str
    old: OldStatement
    mapped: Mapped

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.old.function, self.old.text)


class SitesAt:
    """The sites at the new commit with their drafts, indexed; ``lines(path)`` gives a file's lines."""

    def __init__(self, pairs: Sequence[tuple[Site, dict[str, Any]]],
                 lines: Callable[[str], Sequence[str] | None]) -> None:
        self.pairs, self.lines = pairs, lines
        self.at: dict[tuple[str, int], list[int]] = defaultdict(list)
        self.by_message: dict[str, list[int]] = defaultdict(list)
        self.by_fingerprint: dict[str, list[int]] = defaultdict(list)
        self.by_function: dict[tuple[str, str | None], list[int]] = defaultdict(list)
        self.texts: list[str] = []
        for index, (site, draft) in enumerate(pairs):
            text = statement_text(lines(site.path) or (), site.line, site.end_line)
            self.texts.append(text)
            self.at[(site.path, site.line)].append(index)
            self.by_message[f"m\x00{draft['errorMessage']}"].append(index)
            self.by_message[f"p\x00{draft['messagePattern']}"].append(index)
            self.by_fingerprint[fingerprint(site.function, text)].append(index)
            self.by_function[(site.path, site.function)].append(index)

    def message(self, index: int) -> str:
        return str(self.pairs[index][1]["errorMessage"])

    def same_message(self, moving: Moving, index: int) -> bool:
        draft = self.pairs[index][1]
        return bool(draft["errorMessage"] == moving.message or draft["messagePattern"] == moving.pattern)

    def place(self, index: int) -> Place:
        site = self.pairs[index][0]
        return Place(site.path, site.line, site.end_line)


Pair = tuple[tuple[Any, ...], int, int]  # (score, record number, site index): lowest score first


def _diff_pass(moving: Sequence[Moving], sites: SitesAt, claimed: set[int]) -> Iterable[Pair]:
    for number, item in enumerate(moving):
        mapped = item.mapped
        if not mapped.untouched or mapped.path is None:
            continue
        for index in sites.at.get((mapped.path, mapped.line), ()):
            same_fp = sites.pairs[index][0].function == item.old.function
            yield (not sites.same_message(item, index), not same_fp), number, index


def _content_pass(moving: Sequence[Moving], sites: SitesAt, claimed: set[int]) -> Iterable[Pair]:
    ranks = _ranks(moving, sites, claimed)
    for number, item in enumerate(moving):
        found = {*sites.by_message.get(f"m\x00{item.message}", ()), *sites.by_message.get(f"p\x00{item.pattern}", ())}
        for index in found:
            site = sites.pairs[index][0]
            yield (site.path != item.mapped.path, site.function != item.old.function,
                   ranks.out_of_order(number, index), abs(site.line - item.mapped.line), site.path, site.line), \
                number, index


@dataclass(frozen=True)
class _Ranks:
    """Where each record stands among the records of its message in one file (by old line; the file the diff
    maps it to), and each site among the sites of its message in one file (by new line): (group, rank, size)."""

    records: dict[int, tuple[tuple[str, str | None], int, int]]
    sites: dict[int, tuple[tuple[str, str | None], int, int]]

    def out_of_order(self, number: int, index: int) -> bool:
        """Whether pairing the record with the site breaks the order of identical statements: a file that
        writes the same message N times before and N times after keeps their order (a block re-indented or moved
        into another function moves every line, and the nearest line would cross them); with other counts, the
        order says nothing."""
        record, site = self.records.get(number), self.sites.get(index)
        if record is None or site is None or record[0] != site[0] or record[2] != site[2]:
            return False
        return record[1] != site[1]


def _ranks(moving: Sequence[Moving], sites: SitesAt, claimed: set[int]) -> _Ranks:
    """The ranks of the records still to place and of the sites not claimed yet."""
    groups: dict[tuple[str, str | None], list[tuple[int, int]]] = defaultdict(list)
    for number, item in enumerate(moving):
        groups[(item.message, item.mapped.path or item.old.path)].append((item.old.line, number))
    records = {number: (key, rank, len(members)) for key, members in groups.items()
               for rank, (_, number) in enumerate(sorted(members))}
    placed: dict[tuple[str, str | None], list[tuple[int, int]]] = defaultdict(list)
    for key in groups:
        for index in sites.by_message.get(f"m\x00{key[0]}", ()):
            if index not in claimed and sites.pairs[index][0].path == key[1]:
                placed[key].append((sites.pairs[index][0].line, index))
    found = {index: (key, rank, len(members)) for key, members in placed.items()
             for rank, (_, index) in enumerate(sorted(members))}
    return _Ranks(records, found)


def _fingerprint_pass(moving: Sequence[Moving], sites: SitesAt, claimed: set[int]) -> Iterable[Pair]:
    for number, item in enumerate(moving):
        same = set(sites.by_fingerprint.get(item.fingerprint, ()))
        path = item.mapped.path or item.old.path
        near = [index for index in sites.by_function.get((path, item.old.function), ())
                if sites.pairs[index][1]["errorClass"] == item.old.call]
        for index in same.union(near):
            ratio = similarity(item.message, sites.message(index))
            if ratio < SIMILAR:
                continue
            site = sites.pairs[index][0]
            yield (-ratio, index not in same, abs(site.line - item.mapped.line), site.path, site.line), number, index


def _claim(pairs: Iterable[Pair], found: dict[int, tuple[int, str]], claimed: set[int], how: str) -> None:
    """Take the best pairs first; a record or a site already taken is passed over."""
    for _, number, index in sorted(pairs, key=lambda pair: pair[0]):
        if number in found or index in claimed:
            continue
        found[number] = (index, how)
        claimed.add(index)


def _kind(item: Moving, sites: SitesAt, index: int) -> Kind:
    if not sites.same_message(item, index):
        return "reworded"
    place = sites.place(index)
    if (place.path, place.line) == (item.old.path, item.old.line) and sites.texts[index] == item.old.text:
        return "unchanged"
    return "moved"


def relocate(moving: Sequence[Moving], sites: SitesAt) -> tuple[list[Drifted], set[int]]:
    """Every record's outcome, in the records' order, and the indexes of the sites they claimed."""
    found: dict[int, tuple[int, str]] = {}
    claimed: set[int] = set()
    remaining = list(range(len(moving)))
    for how, finder in (("diff", _diff_pass), ("content", _content_pass), ("fingerprint", _fingerprint_pass)):
        subset = [moving[number] for number in remaining]
        local: dict[int, tuple[int, str]] = {}
        _claim(finder(subset, sites, claimed), local, claimed, how)
        for position, outcome in local.items():
            found[remaining[position]] = outcome
        remaining = [number for number in remaining if number not in found]
    drifted: list[Drifted] = []
    for number, item in enumerate(moving):
        old = Place(item.old.path, item.old.line, item.old.end_line)
        if number not in found:
            drifted.append(Drifted(item.record_id, "vanished", old, None, item.message))
            continue
        index, how = found[number]
        site, draft = sites.pairs[index]
        drifted.append(Drifted(item.record_id, _kind(item, sites, index), old, sites.place(index), item.message,
                               how=how, site=site, draft=draft))
    return drifted, claimed
