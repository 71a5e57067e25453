"""Matched lines gathered per record, in bounded memory, for ``errdex match``'s grouped output.

A group keeps counts and capped samples, never every line: the first :data:`LINE_NUMBERS` line numbers, the
earliest and latest timestamp, and per captured value at most :data:`MAX_DISTINCT` distinct values (clipped to
:data:`MAX_VALUE_CHARS`) with their counts; values met after that are only counted. Lines no record explains
are counted by shape (digits, hex and ids masked) in the same way. The memory is bounded by the number of
records, whatever the size of the log.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from errdex.match.knowledge import LineMatch
from errdex.match.run import MatchSummary
from errdex.match.timestamps import Stamp, find_stamp, strip_stamp

__all__ = ["LINE_NUMBERS", "MAX_DISTINCT", "MAX_SHAPES", "Capture", "GroupedSummary", "RecordGroup", "Shapes",
           "shape_of"]

#: Line numbers a group keeps (the rest are counted: "and K more").
LINE_NUMBERS = 5
#: Distinct values a group keeps per captured value, and distinct shapes of unclassified lines kept in all.
MAX_DISTINCT = 1000
MAX_SHAPES = 2000
MAX_VALUE_CHARS = 80
MAX_SHAPE_CHARS = 200

#: What :func:`shape_of` masks, in order; compiled on first use (start-up time: a log whose lines all match a
#: record, as a one-line match, never needs them). With each, what a text must hold for it to match: it is not
#: run over a text without it.
_MASK_SOURCES = (
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "<id>", ("-", 4)),
    (r"\b(?:\d{1,3}\.){3}\d{1,3}\b", "<ip>", (".", 3)),
    (r"\b0x[0-9a-fA-F]+\b", "<hex>", ("0x", 1)),
    (r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b", "<hex>", None),
    (r"\b[A-Za-z]+[_-]?\d[\w-]*", "<id>", None),  # blk_3886, job-42, ec2-52-80 ...: a word holding digits
    (r"\d+", "<n>", None),
)
#: A run of word characters, dots and dashes that holds a digit, from its start. Every match of a mask is
#: made of such characters only, and every mask but the first (a uuid may have no digit) holds a digit, so
#: those masks are run over each such run alone, which is where they can match; a mask's ``\b`` sees the same
#: neighbours there, as the characters around a run are none of those. The masks put in only ``<``, ``>`` and
#: letters, and join nothing, so what one leaves does not change where the next can match.
_RUN = r"(?<![\w.-])[\w.-]*?\d[\w.-]*"


@functools.cache
def _masks() -> tuple[list[tuple[re.Pattern[str], str, tuple[str, int] | None]], re.Pattern[str]]:
    return [(re.compile(source), mask, needs) for source, mask, needs in _MASK_SOURCES], re.compile(_RUN)


def _masked_run(found: re.Match[str]) -> str:
    """One run (see :data:`_RUN`) with the masks but the first applied, in order."""
    run = found.group()
    if run.isdigit():  # only the last mask can match
        return "<n>"
    for pattern, mask, needs in _masks()[0][1:]:
        if needs is None or run.count(needs[0]) >= needs[1]:
            run = pattern.sub(mask, run)
    return run


def shape_of(text: str) -> str:
    """What stays of a line when its timestamp, ids, addresses, hex and numbers are masked."""
    shape = strip_stamp(text)[: MAX_SHAPE_CHARS * 2]
    masks, runs = _masks()
    if shape.count("-") >= 4:
        shape = masks[0][0].sub(masks[0][1], shape)
    shape = runs.sub(_masked_run, shape)
    return shape.strip()[:MAX_SHAPE_CHARS]


@dataclass
class Capture:
    """The values one capture group took in a group's lines: the first :data:`MAX_DISTINCT` distinct ones counted,
    later new ones only in ``other``."""

    values: Counter[str] = field(default_factory=Counter)
    other: int = 0

    def add(self, value: str | None) -> None:
        text = "-" if value is None else value[:MAX_VALUE_CHARS]
        if text in self.values or len(self.values) < MAX_DISTINCT:
            self.values[text] += 1
        else:
            self.other += 1

    @property
    def varies(self) -> bool:
        return len(self.values) > 1 or self.other > 0


@dataclass
class RecordGroup:
    """The lines one record explains (as their best match)."""

    match: Any  #: the first line's best :class:`~errdex.match.engine.Match` (its record is read when shown)
    count: int = 0
    where: list[tuple[str, int]] = field(default_factory=list)  #: (source, line number), the first ones
    first: Stamp | None = None
    last: Stamp | None = None
    unstamped: int = 0  #: lines without a timestamp
    captures: list[Capture] = field(default_factory=list)
    others: int = 0  #: the most other records a line of the group also matched
    unchecked: int = 0  #: the most records a line of the group held the literal text of but were not tried
    #: The message as the group's first line wrote it (the text the pattern matched, clipped): the record's
    #: ``errorMessage`` is an example from elsewhere (another status, another operation).
    message: str = ""

    def add(self, line: LineMatch) -> None:
        best = line.matches[0]
        if not self.count and best.span[0] >= 0:
            self.message = line.text[best.span[0]: min(best.span[1], best.span[0] + MAX_SHAPE_CHARS * 2)].strip()
        self.count += 1
        if len(self.where) < LINE_NUMBERS:
            self.where.append((line.source, line.number))
        stamp = find_stamp(line.text)
        if stamp is None:
            self.unstamped += 1
        else:
            self.first = stamp if self.first is None or stamp.key < self.first.key else self.first
            self.last = stamp if self.last is None or stamp.key >= self.last.key else self.last
        while len(self.captures) < len(best.groups):
            self.captures.append(Capture())
        for capture, value in zip(self.captures, best.groups, strict=False):
            capture.add(value)
        self.others = max(self.others, len(line.matches) - 1 + line.more)
        self.unchecked = max(self.unchecked, line.unchecked)

    def constant_groups(self) -> tuple[str | None, ...]:
        """The captured values the same on every line (to fill into the fix); ``None`` for those that vary."""
        return tuple(None if c.varies or not c.values else next(iter(c.values)) for c in self.captures)


@dataclass
class Shapes:
    """Unclassified lines counted by :func:`shape_of`, with the place of each shape's first line."""

    counts: Counter[str] = field(default_factory=Counter)
    first: dict[str, tuple[str, int]] = field(default_factory=dict)
    other: int = 0  #: lines of shapes met after :data:`MAX_SHAPES` were kept

    def add(self, source: str, number: int, text: str) -> None:
        self.add_shape(source, number, shape_of(text))

    def add_shape(self, source: str, number: int, shape: str) -> None:
        """A line whose shape was made already (where it was matched)."""
        if shape in self.counts or len(self.counts) < MAX_SHAPES:
            self.counts[shape] += 1
            self.first.setdefault(shape, (source, number))
        else:
            self.other += 1


class GroupedSummary(MatchSummary):
    """A :class:`~errdex.match.run.MatchSummary` that also groups the matched lines per record (in the order
    records were first met), counts lines per severity and unclassified lines per shape. Its
    :meth:`~errdex.match.run.MatchSummary.as_dict` is the plain summary's."""

    @staticmethod
    def line_shape() -> Callable[[str], str]:
        """Each unclassified line's shape is counted: made where the line is matched (in a worker process for a
        piece of a large file), so only the shape comes back."""
        return shape_of

    def __init__(self) -> None:
        super().__init__()
        self.groups: dict[str, RecordGroup] = {}
        self.per_severity: Counter[str] = Counter()
        self.shapes = Shapes()

    def add(self, line: LineMatch) -> None:
        super().add(line)
        best = line.matches[0]
        group = self.groups.get(best.view["id"])
        if group is None:
            group = self.groups[best.view["id"]] = RecordGroup(best)
        group.add(line)
        self.per_severity[best.view["severity"]] += 1

    def note_unclassified(self, source: str, number: int, text: str) -> None:
        super().note_unclassified(source, number, text)
        self.shapes.add(source, number, text)

    def note_unclassified_lines(self, source: str, count: int, samples: Iterable[tuple[int, str]],
                                shapes: Iterable[tuple[int, str]]) -> None:
        super().note_unclassified_lines(source, count, samples, shapes)
        for number, shape in shapes:
            self.shapes.add_shape(source, number, shape)
