"""Matching whole inputs: files, stdin, growing files; with a summary like an unclassified-failures list."""

from __future__ import annotations

import functools
import pickle
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from errdex import parallel
from errdex.errors import InputError
from errdex.match import readers
from errdex.match.follow import Follower, follow_files
from errdex.match.knowledge import KnowledgeBase, LineMatch
from errdex.match.lines import LineFinder, numbered_lines
from errdex.match.readers import read_marked_blocks, split_file
from errdex.records.vocabulary import SEVERITY_RANK

__all__ = ["SEVERITY_ORDER", "SEVERITY_RANK", "MatchSummary", "match_files"]

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
        self.unclassified += 1
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
        }


@functools.lru_cache(maxsize=1)
def _error_looking_database() -> Any:
    import hyperscan  # here, not at the top: only --summary and --format json look for unclassified lines

    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=[ERROR_LOOKING.pattern.replace(b"(?i)", b"")], ids=[0],
                     flags=[hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_MULTILINE])
    return database


def _error_looking(block: bytes) -> Iterator[tuple[int, str]]:
    """``(line index, text)`` of each line of a block that looks like an error (:data:`ERROR_LOOKING`), in order.

    Hyperscan finds the words in one pass over the block (Python's ``re``
    takes seconds on a large log); the result is the same, line for line.
    """
    starts: set[int] = set()
    lines = LineFinder(block)

    def on_hit(index: int, start: int, end: int, flags: int, context: Any) -> None:
        starts.add(lines.start(end))

    if block:
        _error_looking_database().scan(block, match_event_handler=on_hit)
    for number, start, end in numbered_lines(block, starts):
        yield number, block[start:end].decode("utf-8", "replace")


def _scan(blocks: Iterable[tuple[bytes, bool]], kb: KnowledgeBase, unclassified: bool) -> Iterator[tuple[Any, ...]]:
    """Events for the lines of some blocks (from :func:`read_marked_blocks`), numbered from 1:
    ``("match", number, text, matches)``, ``("unclassified", number, text)``, ``("cut", number)`` for a line cut at
    the length limit, ``("lines", count)`` per block."""
    number = 0
    for block, cut in blocks:
        matched: set[int] = set()
        count = yield from _block_events(kb.match_block(block), number, matched)
        if count is None:  # a knowledge base whose match_block does not count the lines
            count = block.count(b"\n") + 1
        if unclassified:
            for index, text in _error_looking(block):
                if index not in matched:
                    yield "unclassified", number + index + 1, text[:500]
        if cut:
            yield "cut", number + count
        number += count
        yield "lines", count


def _block_events(found: Iterator[tuple[int, str, list[Any]]], number: int,
                  matched: set[int]) -> Generator[tuple[Any, ...], None, int | None]:
    """``("match", ...)`` events of one block's matches (their line indexes noted in ``matched``); the value:
    the block's count of lines, when ``match_block`` gives it (its line breaks are then counted only once)."""
    while True:
        try:
            index, text, matches = next(found)
        except StopIteration as stop:
            return stop.value if isinstance(stop.value, int) else None
        matched.add(index)
        yield "match", number + index + 1, text, matches


#: Matches a child holds before it writes them out.
CHILD_CHUNK_MATCHES = 50_000


def _child_part(kb: KnowledgeBase, path: str | Path, start: int, stop: int, unclassified: bool, out: BinaryIO) -> None:
    """In a forked child: match ``[start, stop)`` of the file and write the events, a chunk per block."""
    chunk: list[tuple[Any, ...]] = []
    held = 0  # matches in the chunk: written out before they pass CHILD_CHUNK_MATCHES (memory stays bounded)
    try:
        for event in _scan(read_marked_blocks(path, start, stop), kb, unclassified):
            if event[0] == "match":
                compact = [(m.index, m.span, m.groups) for m in event[3]]
                chunk.append((*event[:3], compact))
                held += len(compact)
                if held >= CHILD_CHUNK_MATCHES:
                    pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)
                    chunk, held = [], 0
                continue
            chunk.append(event)
            if event[0] == "lines":
                pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)
                chunk, held = [], 0
    except InputError as exc:
        chunk.append(("problem", str(exc)))
    pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)


def _from_child(kb: KnowledgeBase, chunks: Iterator[list[tuple[Any, ...]]]) -> Iterator[tuple[Any, ...]]:
    rebuild = kb.matcher.rebuild
    for chunk in chunks:
        for event in chunk:
            if event[0] == "match":
                matches = [rebuild(index, span, groups) for index, span, groups in event[3]]
                yield (*event[:3], matches)
            else:
                yield event


def _pieces(path: str | Path, kb: KnowledgeBase, unclassified: bool, jobs: int,
            children: list[parallel.Child]) -> list[Callable[[], Iterator[tuple[Any, ...]]]]:
    """The file's pieces in order, each a function giving its events; later pieces run in forked children."""
    ranges = (split_file(path, jobs, min_part=MIN_PART_BYTES, first_share=FIRST_SHARE / jobs)
              if jobs > 1 and parallel.can_fork() else None)
    if not ranges:
        return [lambda: _scan(read_marked_blocks(path), kb, unclassified)]
    pieces: list[Callable[[], Iterator[tuple[Any, ...]]]] = []
    for start, stop in ranges[1:]:
        child = parallel.start_child(functools.partial(_child_part, kb, path, start, stop, unclassified))
        children.append(child)

        def piece(child: parallel.Child = child, start: int = start, stop: int = stop) -> Iterator[tuple[Any, ...]]:
            chunks = parallel.child_items(child)
            if chunks is None:  # the child failed: match the piece here
                return _scan(read_marked_blocks(path, start, stop), kb, unclassified)
            return _from_child(kb, chunks)

        pieces.append(piece)
    first = ranges[0]
    return [lambda: _scan(read_marked_blocks(path, *first), kb, unclassified), *pieces]


def match_files(
    paths: Sequence[str | Path],
    *,
    kb: KnowledgeBase,
    summary: MatchSummary | None = None,
    follow: bool = False,
    stop: Callable[[], bool] | None = None,
    unclassified: bool = True,
    jobs: int | None = None,
) -> Iterator[LineMatch]:
    """Matched lines of every input in order; an unreadable input is noted in the summary and skipped.

    ``unclassified``: also count the error-looking lines that matched nothing.
    ``jobs``: processes for one large plain file (default: the CPUs available);
    the output does not depend on it.
    """
    summary = summary if summary is not None else MatchSummary()
    jobs = parallel.available_cpus() if jobs is None else max(1, jobs)
    if follow:
        yield from _follow(paths, kb=kb, summary=summary, stop=stop, unclassified=unclassified)
        return
    for path in paths or ["-"]:
        source = "<stdin>" if str(path) == "-" else str(path)
        number = 0
        children: list[parallel.Child] = []
        try:
            for piece in _pieces(path, kb, unclassified, jobs, children):
                offset = number
                for event in piece():
                    kind = event[0]
                    if kind == "match":
                        line = LineMatch(source, offset + event[1], event[2], event[3])
                        summary.add(line)
                        yield line
                    elif kind == "unclassified":
                        summary.note_unclassified(source, offset + event[1], event[2])
                    elif kind == "lines":
                        summary.lines += event[1]
                        number += event[1]
                    elif kind == "cut":
                        summary.note_cut(source, offset + event[1])
                    else:  # a problem a child met
                        raise InputError(event[1])
        except InputError as exc:
            summary.problems.append(str(exc))
        finally:
            for child in children:
                parallel.stop_child(child)


def _follow(paths: Sequence[str | Path], *, kb: KnowledgeBase, summary: MatchSummary, stop: Callable[[], bool] | None,
            unclassified: bool) -> Iterator[LineMatch]:
    """Every file followed at once, each line matched as it arrives."""
    followers, sources = [], []
    for path in paths:
        try:
            followers.append(Follower(path))
            sources.append(str(path))
        except InputError as exc:
            summary.problems.append(str(exc))
            if summary.on_problem is not None:
                summary.on_problem(str(exc))
    if not followers:  # nothing to follow: waiting would never end and never show anything
        return
    numbers = [0] * len(followers)
    try:
        for index, text, cut in follow_files(followers, stop=stop):
            numbers[index] += 1
            number, source = numbers[index], sources[index]
            summary.lines += 1
            if cut:
                summary.note_cut(source, number)
            matches = kb.match(text)
            if matches:
                line = LineMatch(source, number, text, matches)
                summary.add(line)
                yield line
            elif unclassified and ERROR_LOOKING.search(text.encode("utf-8", "replace")):
                summary.note_unclassified(source, number, text)
    except InputError as exc:
        summary.problems.append(str(exc))
