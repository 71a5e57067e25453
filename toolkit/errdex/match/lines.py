"""Lines inside a block of log bytes: where each starts and ends, numbered, and normalised as the readers give them.

A block is whole lines of UTF-8 separated by ``\\n`` with no final break (what
:func:`errdex.match.readers.read_blocks` yields); these helpers find lines in it without copying it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = ["LineFinder", "line_end", "line_start", "normalised", "numbered_lines"]

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
