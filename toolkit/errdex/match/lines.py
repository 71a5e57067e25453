"""Lines inside a block of log bytes: where each starts and ends, numbered, and normalised as the readers give them.

A block is whole lines of UTF-8 separated by ``\\n`` with no final break (what
:func:`errdex.match.readers.read_blocks` yields); these helpers find lines in it without copying it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["LARGE_BLOCK", "LineFinder", "break_counter", "line_end", "line_start", "normalised", "numbered_lines"]

#: Blocks of at least this many bytes are large: once :data:`LARGE_BLOCKS_BEFORE_NUMPY` of them were counted,
#: numpy counts the line breaks of the next ones (0.07 ms a MiB against 0.3 for ``bytes.count``, whose loop
#: goes a byte at a time); its import (about 55 ms) is paid only by inputs of hundreds of MB, where it pays back.
LARGE_BLOCK = 256 << 10
LARGE_BLOCKS_BEFORE_NUMPY = 128
_large: list[Any] = [0, None]  # large blocks counted so far in this process, and numpy once imported

_LINE_END_CR = re.compile(rb"\r+(?=\n)|\r+\Z")


def normalised(data: bytes) -> bytes:
    """Lines as the line reader gives them: carriage returns at line ends dropped, invalid UTF-8 replaced."""
    if b"\r" in data:
        # A log written with CRLF line ends: one replace (a pass in C; the regex took 0.18 s per 8 MiB),
        # the regex only for the rare line end of several carriage returns.
        data = data.replace(b"\r\n", b"\n").rstrip(b"\r")
        if b"\r\n" in data:
            data = _LINE_END_CR.sub(b"", data)
    if not data.isascii():
        data = data.decode("utf-8", "replace").encode("utf-8")
    return data


class LineFinder:
    """The start of the line holding each hit of one scan of a block, in time linear in the block.

    Scanners report hits in increasing order of end offset, so each line's
    bounds are found once, however many hits it holds (a hit out of order is
    still answered right, by a search back).
    """

    def __init__(self, block: bytes) -> None:
        self._block = block
        self._start, self._end = 0, -1  # the current line: [start, end), end at its break

    def start(self, offset: int) -> int:
        """Where the line holding the byte before ``offset`` starts (``offset``: the end of a hit)."""
        at = offset - 1
        if self._start <= at < self._end:
            return self._start
        if at < self._start:
            return line_start(self._block, offset)
        self._start = self._block.rfind(b"\n", max(self._end, 0), offset) + 1
        self._end = line_end(self._block, self._start)
        return self._start


def break_counter(block: bytes) -> Callable[[int, int], int]:
    """``count(start, end)``: the line breaks in ``block[start:end]`` (for a block's lines counted in order)."""
    numpy = _large[1]
    if numpy is None:
        if len(block) >= LARGE_BLOCK:
            _large[0] += 1
            if _large[0] > LARGE_BLOCKS_BEFORE_NUMPY:
                numpy = _numpy()
        if numpy is None:
            return lambda start, end: block.count(b"\n", start, end)
    breaks = numpy.frombuffer(block, numpy.uint8) == 10
    # the function behind numpy's dispatch wrapper (NEP 18), which costs more than counting a line or two
    count_nonzero = getattr(numpy.count_nonzero, "_implementation", numpy.count_nonzero)
    return lambda start, end: int(count_nonzero(breaks[start:end]))


def _numpy() -> Any:
    """numpy, imported once; None where it is not installed (``bytes.count`` then does all the counting)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no thread pool: this process may fork workers
    try:
        import numpy  # here: a small input never pays for its import
    except ImportError:
        _large[0] = -(1 << 62)  # never asked again
        return None
    _large[1] = numpy
    return numpy


def line_start(block: bytes, offset: int) -> int:
    """Where the line holding the byte before ``offset`` starts (``offset``: the end of a hit in the block)."""
    return block.rfind(b"\n", 0, offset) + 1 if offset else 0


def line_end(block: bytes, start: int) -> int:
    """Where the line starting at ``start`` ends (its line break, or the end of the block)."""
    end = block.find(b"\n", start)
    return len(block) if end < 0 else end


def numbered_lines(block: bytes, starts: Iterable[int]) -> Iterator[tuple[int, int, int]]:
    """``(line index, start, end)`` of the lines starting at ``starts`` (sorted here), counting line breaks once."""
    number, previous = 0, 0
    for start in sorted(starts):
        number += block.count(b"\n", previous, start)
        previous = start
        yield number, start, line_end(block, start)
