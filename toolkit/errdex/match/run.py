"""Matching whole inputs: files, stdin, growing files; with a summary like an unclassified-failures list."""

from __future__ import annotations

import functools
import heapq
import os
import re
import stat
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from errdex import parallel
from errdex.errors import InputError
from errdex.match import readers
from errdex.match.engine import MAX_LINE_MATCHES
from errdex.match.follow import Follower, follow_files
from errdex.match.jsonl import joined, line_prefix
from errdex.match.knowledge import KnowledgeBase, LineMatch
from errdex.match.lines import LineFinder, numbered_lines
from errdex.match.readers import read_marked_blocks, split_file
from errdex.records.vocabulary import SEVERITY_RANK

__all__ = ["SEVERITY_ORDER", "SEVERITY_RANK", "MatchSummary", "match_files", "match_files_jsonl"]

#: The old name of the vocabulary's :data:`~errdex.records.vocabulary.SEVERITY_RANK`, kept for callers of it.
SEVERITY_ORDER = SEVERITY_RANK
#: Lines that look like an error, for the list of lines no record explains.
ERROR_LOOKING = re.compile(rb"(?i)\b(error|exception|fatal|fail(ed|ure)?|panic|traceback|refused|timed? ?out)\b")
MAX_UNCLASSIFIED_SAMPLES = 50
MAX_WARNINGS = 20
#: A file is cut into pieces for several processes only when each piece would hold at least this many bytes.
MIN_PART_BYTES = 16 * 1024 * 1024
#: This process's piece, as a fraction of an equal share: it also writes every matched line and reads the
#: children's results (measured on 1M lines: 0.9 of a share was 3-13% faster than an equal share).
FIRST_SHARE = 0.9
#: The same for jsonl, whose children write their lines themselves: this process only joins each line's
#: number to its text and writes it (about 2% of the work on the generated 10M-line corpus).
FIRST_SHARE_JSONL = 0.97


@dataclass
class MatchSummary:
    """Counts per record, first and last line seen, and error-looking lines that matched nothing."""

    lines: int = 0
    matched_lines: int = 0
    per_record: dict[str, dict[str, Any]] = field(default_factory=dict)
    unclassified: int = 0
    unclassified_samples: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: What was matched differently than written (a line cut at the length limit), at most ``MAX_WARNINGS``.
    warnings: list[str] = field(default_factory=list)
    unshown_warnings: int = 0
    #: The highest severity rank (:data:`SEVERITY_RANK`) among the matches of the matched lines; -1 when none.
    worst: int = -1
    #: Lines that matched more records than are listed per line (:data:`~errdex.match.engine.MAX_LINE_MATCHES`).
    capped: int = 0
    #: Inputs named, and those of them that could not be read at all (a problem before their first line).
    inputs: int = 0
    unread: int = 0
    #: Called with each problem as it is met while following files (the run may last for hours).
    on_problem: Callable[[str], None] | None = field(default=None, repr=False, compare=False)

    def warn(self, message: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)
        else:
            self.unshown_warnings += 1

    def note_cut(self, source: str, number: int) -> None:
        """A line longer than the limit, matched on its first part only."""
        limit = readers.MAX_LINE_BYTES
        size = f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit} bytes"
        self.warn(f"{source}:{number}: line longer than {size}: matched on its first {size} only")

    def add(self, line: LineMatch) -> None:
        self.matched_lines += 1
        if line.more or line.unchecked:
            self.capped += 1
            if self.capped == 1:
                self.warn(f"{line.source}:{line.number}: more than {MAX_LINE_MATCHES} records match the line: "
                          f"the best {MAX_LINE_MATCHES} are listed, the others counted (as every such line's)")
        self.worst = max(self.worst, *(SEVERITY_RANK.get(m.view["severity"], 0) for m in line.matches))
        best = line.matches[0].view
        entry = self.per_record.setdefault(
            best["id"], {"id": best["id"], "slug": best["slug"], "errorClass": best["errorClass"],
                         "severity": best["severity"], "count": 0, "first": None, "last": None},
        )
        entry["count"] += 1
        where = {"file": line.source, "line": line.number}
        entry["first"] = entry["first"] or where
        entry["last"] = where

    def note_unclassified(self, source: str, number: int, text: str) -> None:
        """An error-looking line that matched no record."""
        self.note_unclassified_lines(source, 1, [(number, text)], ())

    @staticmethod
    def line_shape() -> Callable[[str], str] | None:
        """From an unclassified line's text, what :meth:`note_unclassified_lines` is to get of every such line (a
        summary that counts them by shape); None: only their count and the first :data:`MAX_UNCLASSIFIED_SAMPLES`."""
        return None

    def note_unclassified_lines(self, source: str, count: int, samples: Iterable[tuple[int, str]],
                                shapes: Iterable[tuple[int, str]]) -> None:
        """``count`` error-looking lines that matched no record: ``(number, text)`` of the first of them, and
        ``(number, shape)`` of each (when :meth:`line_shape` gives how to shape them)."""
        self.unclassified += count
        for number, text in samples:
            if len(self.unclassified_samples) < MAX_UNCLASSIFIED_SAMPLES:
                self.unclassified_samples.append({"file": source, "line": number, "text": text[:500]})

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "matchedLines": self.matched_lines,
            "records": sorted(self.per_record.values(), key=lambda e: (-e["count"], e["slug"])),
            "unclassified": self.unclassified,
            "unclassifiedSamples": self.unclassified_samples,
            "problems": self.problems,
        } | ({"cappedLines": self.capped} if self.capped else {})


@functools.lru_cache(maxsize=1)
def _error_looking_database() -> Any:
    import hyperscan  # here, not at the top: only --summary and --format json look for unclassified lines

    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=[ERROR_LOOKING.pattern.replace(b"(?i)", b"")], ids=[0],
                     flags=[hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_MULTILINE])
    return database


def _error_looking_starts(block: bytes) -> set[int]:
    """Where each line of a block that looks like an error (:data:`ERROR_LOOKING`) starts.

    Hyperscan finds the words in one pass over the block (Python's ``re``
    takes seconds on a large log); the result is the same, line for line.
    """
    starts: set[int] = set()
    lines = LineFinder(block)

    def on_hit(index: int, start: int, end: int, flags: int, context: Any) -> None:
        starts.add(lines.start(end))

    if block:
        _error_looking_database().scan(block, match_event_handler=on_hit)
    return starts


def _error_looking(block: bytes, starts: Iterable[int] | None = None) -> Iterator[tuple[int, str]]:
    """``(line index, text)`` of each line of a block that looks like an error, in order (``starts``: of only
    these of them)."""
    for number, start, end in numbered_lines(block, _error_looking_starts(block) if starts is None else starts):
        yield number, block[start:end].decode("utf-8", "replace")


def _counting(lines: Generator[Any, None, int], total: list[int]) -> Iterator[Any]:
    """The items of ``lines``; its value (the block's count of lines) appended to ``total`` at its end."""
    total.append((yield from lines))


def _scan(blocks: Iterable[tuple[bytes, bool]], kb: KnowledgeBase, unclassified: bool,
          shape: Callable[[str], str] | None = None) -> Iterator[tuple[Any, ...]]:
    """Events for the lines of some blocks (from :func:`read_marked_blocks`), numbered from 1:
    ``("match", number, text, found)`` (``found``: :meth:`KnowledgeBase.found_block`'s tuples),
    ``("unclassified", count, samples, shapes)`` per block with error-looking lines that matched nothing
    (``samples``: ``(number, text)`` of the first of them, as long as fewer than
    :data:`MAX_UNCLASSIFIED_SAMPLES` were given; ``shapes``: ``(number, shape(text))`` of each, when ``shape``
    is given), ``("cut", number)`` for a line cut at the length limit, ``("lines", count)`` per block."""
    number = 0
    wanted = MAX_UNCLASSIFIED_SAMPLES  # samples still to give: only the first ones are kept
    for block, cut in blocks:
        matched: set[int] = set()  # where the matched lines start
        total: list[int] = []
        for index, start, end, found in _counting(kb.found_block(block), total):
            matched.add(start)
            yield "match", number + index + 1, block[start:end].decode("utf-8", "replace"), found
        if unclassified:
            starts = _error_looking_starts(block)
            starts.difference_update(matched)
            if starts:  # counted; only the lines needed decoded (a quarter of a log may look like errors)
                texts = [(number + index + 1, text) for index, text in
                         _error_looking(block, starts if shape is not None else heapq.nsmallest(wanted, starts))]
                first = [(line, text[:500]) for line, text in texts[:wanted]]
                wanted -= len(first)
                yield "unclassified", len(starts), first, [] if shape is None else [
                    (line, shape(text)) for line, text in texts]
        if cut:
            yield "cut", number + total[0]
        number += total[0]
        yield "lines", total[0]


def _scan_jsonl(blocks: Iterable[tuple[bytes, bool]], kb: KnowledgeBase) -> Iterator[tuple[Any, ...]]:
    """:func:`_scan`'s events with each block's matched lines already written as jsonl:
    ``("jsonl", numbers, tails, worst)`` (:meth:`JsonLines.block <errdex.match.jsonl.JsonLines.block>`)."""
    writer = kb.jsonl_writer
    number = 0
    for block, cut in blocks:
        total: list[int] = []
        lines = _counting(kb.found_block(block), total)
        while not total:  # a part of the block at a time: at most CHILD_CHUNK_MATCHES matches held
            numbers, tails, worst = writer.block(block, lines, number + 1, CHILD_CHUNK_MATCHES)
            if numbers:
                yield "jsonl", numbers, tails, worst
        if cut:
            yield "cut", number + total[0]
        number += total[0]
        yield "lines", total[0]


#: Matches a child holds before it writes them out.
CHILD_CHUNK_MATCHES = 50_000

Scan = Callable[[Iterable[tuple[bytes, bool]]], Iterator[tuple[Any, ...]]]


def _child_part(scan: Scan, path: str | Path, start: int, stop: int, out: BinaryIO, text: bool = False) -> None:
    """In a forked child: match ``[start, stop)`` of the file and write the events, a chunk per block."""
    import pickle  # only in a child: a one-line start never forks (start-up time)

    chunk: list[tuple[Any, ...]] = []
    held = 0  # matches in the chunk: written out before they pass CHILD_CHUNK_MATCHES (memory stays bounded)
    try:
        for event in scan(read_marked_blocks(path, start, stop, text=text)):
            chunk.append(event)
            if event[0] == "match":
                held += len(event[3])
                if held < CHILD_CHUNK_MATCHES:
                    continue
            elif event[0] not in ("lines", "jsonl"):  # a jsonl event holds up to CHILD_CHUNK_MATCHES already
                continue
            pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)
            chunk, held = [], 0
    except InputError as exc:
        chunk.append(("problem", str(exc)))
    pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)


def _pieces(path: str | Path, scan: Scan, jobs: int, children: list[parallel.Child],
            share: float, kb: KnowledgeBase, text: bool = False) -> list[Callable[[], Iterator[tuple[Any, ...]]]]:
    """The file's pieces in order, each a function giving its events; later pieces run in forked children.
    ``share``: this process's piece as a fraction of an equal share; ``text``: read binary data as text."""
    ranges = (split_file(path, jobs, min_part=MIN_PART_BYTES, first_share=share / jobs)
              if jobs > 1 and parallel.can_fork() else None)
    if not ranges:
        return [lambda: scan(read_marked_blocks(path, text=text))]
    kb.matcher.ensure_database()  # once, here, not in each child
    pieces: list[Callable[[], Iterator[tuple[Any, ...]]]] = []
    for start, stop in ranges[1:]:
        child = parallel.start_child(functools.partial(_child_part, scan, path, start, stop, text=text))
        children.append(child)

        def piece(child: parallel.Child = child, start: int = start, stop: int = stop) -> Iterator[tuple[Any, ...]]:
            chunks = parallel.child_items(child)
            if chunks is None:  # the child failed: match the piece here
                return scan(read_marked_blocks(path, start, stop, text=text))
            return (event for chunk in chunks for event in chunk)

        pieces.append(piece)
    first = ranges[0]
    return [lambda: scan(read_marked_blocks(path, *first, text=text)), *pieces]


def _identity(path: str | Path) -> tuple[int, int, int] | None:
    """``(device, inode, size)`` of a regular file; None for stdin and anything else."""
    if str(path) == "-":
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size) if stat.S_ISREG(info.st_mode) else None


def _note_shrinking(summary: MatchSummary, source: str, before: tuple[int, int, int] | None,
                    after: tuple[int, int, int] | None) -> None:
    """A warning when a file was truncated while it was read: the lines past the cut were never seen (and the
    line the cut fell in may be matched cut short)."""
    if before is not None and after is not None and before[:2] == after[:2] and after[2] < before[2]:
        summary.warn(f"{source}: shrank from {before[2]} to {after[2]} bytes while it was read: the lines past the "
                     "cut were not matched")


def _events(paths: Sequence[str | Path], scan: Scan, summary: MatchSummary, jobs: int, kb: KnowledgeBase,
            share: float = FIRST_SHARE, text: bool = False) -> Iterator[tuple[str, int, tuple[Any, ...]]]:
    """``(source, line offset, event)`` of every input in order, the summary's counts, cut lines and problems
    noted; an unreadable input (or binary data, unless ``text``) is noted in the summary and skipped."""
    for path in paths or ["-"]:
        source = "<stdin>" if str(path) == "-" else str(path)
        number = 0
        children: list[parallel.Child] = []
        summary.inputs += 1
        before = _identity(path)
        try:
            for piece in _pieces(path, scan, jobs, children, share, kb, text):
                offset = number
                for event in piece():
                    kind = event[0]
                    if kind == "lines":
                        summary.lines += event[1]
                        number += event[1]
                    elif kind == "cut":
                        summary.note_cut(source, offset + event[1])
                    elif kind == "problem":  # a problem a child met
                        raise InputError(event[1])
                    else:
                        yield source, offset, event
            _note_shrinking(summary, source, before, _identity(path))
        except InputError as exc:
            summary.problems.append(str(exc))
            summary.unread += not number
        finally:
            for child in children:
                parallel.stop_child(child)


def match_files(
    paths: Sequence[str | Path],
    *,
    kb: KnowledgeBase,
    summary: MatchSummary | None = None,
    follow: bool = False,
    stop: Callable[[], bool] | None = None,
    unclassified: bool = True,
    jobs: int | None = None,
    text: bool = False,
) -> Iterator[LineMatch]:
    """Matched lines of every input in order; an unreadable input is noted in the summary and skipped.

    ``unclassified``: also count the error-looking lines that matched nothing.
    ``jobs``: processes for one large plain file (default: the CPUs available);
    the output does not depend on it.
    ``text``: match an input that starts with binary data as text (by default it is skipped, a problem noted:
    :func:`errdex.match.readers.binary_reason`).
    """
    summary = summary if summary is not None else MatchSummary()
    jobs = parallel.available_cpus() if jobs is None else max(1, jobs)
    if follow:
        yield from _follow(paths, kb=kb, summary=summary, stop=stop, unclassified=unclassified, text=text)
        return
    matches_of = kb.matcher.matches_of
    scan = functools.partial(_scan, kb=kb, unclassified=unclassified, shape=summary.line_shape())
    for source, offset, event in _events(paths, scan, summary, jobs, kb, text=text):
        if event[0] == "match":
            line = LineMatch(source, offset + event[1], event[2], matches_of(event[3]))
            summary.add(line)
            yield line
        else:
            summary.note_unclassified_lines(source, event[1], [(offset + number, text) for number, text in event[2]],
                                            [(offset + number, shape) for number, shape in event[3]])


def match_files_jsonl(paths: Sequence[str | Path], *, kb: KnowledgeBase, summary: MatchSummary | None = None,
                      jobs: int | None = None, text: bool = False) -> Iterator[str]:
    """:func:`match_files`'s matched lines as ``errdex match --format jsonl`` writes them (each
    ``kb.jsonl(line) + "\\n"``), a block of lines at a time. Each process writes the lines of its piece of a
    file; the summary gets the counts of lines, matched lines and :attr:`MatchSummary.worst`, not the
    per-record counts."""
    summary = summary if summary is not None else MatchSummary()
    jobs = parallel.available_cpus() if jobs is None else max(1, jobs)
    prefixes: dict[str, str] = {}
    for source, offset, event in _events(paths, functools.partial(_scan_jsonl, kb=kb), summary, jobs, kb,
                                         FIRST_SHARE_JSONL, text):
        _, numbers, tails, worst = event
        prefix = prefixes.get(source) or prefixes.setdefault(source, line_prefix(source))
        summary.matched_lines += len(numbers)
        summary.worst = max(summary.worst, worst)
        yield joined(prefix, offset, numbers, tails)


def _follow(paths: Sequence[str | Path], *, kb: KnowledgeBase, summary: MatchSummary, stop: Callable[[], bool] | None,
            unclassified: bool, text: bool = False) -> Iterator[LineMatch]:
    """Every file followed at once, each line matched as it arrives."""
    followers, sources = [], []
    for path in paths:
        summary.inputs += 1
        try:
            followers.append(Follower(path, text=text))
            sources.append(str(path))
        except InputError as exc:
            summary.problems.append(str(exc))
            summary.unread += 1
            if summary.on_problem is not None:
                summary.on_problem(str(exc))
    if not followers:  # nothing to follow: waiting would never end and never show anything
        return
    numbers = [0] * len(followers)
    try:
        for index, written, cut in follow_files(followers, stop=stop):
            numbers[index] += 1
            number, source = numbers[index], sources[index]
            summary.lines += 1
            if cut:
                summary.note_cut(source, number)
            matches = kb.match(written)
            if matches:
                line = LineMatch(source, number, written, matches)
                summary.add(line)
                yield line
            elif unclassified and ERROR_LOOKING.search(written.encode("utf-8", "replace")):
                summary.note_unclassified(source, number, written)
    except InputError as exc:
        summary.problems.append(str(exc))
