"""Reading log lines as a stream: files (plain or gzip), stdin, growing files.

Lines are decoded as UTF-8 with replacement, so offsets are character
offsets into the decoded line. A file is never read whole: lines come one at
a time, and a line longer than ``MAX_LINE_BYTES`` is cut there (the rest of
it is skipped) so memory stays bounded.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from io import BufferedReader
from typing import BinaryIO, TypeVar

from errdex.errors import InputError

__all__ = ["MAX_LINE_BYTES", "line_end", "line_start", "numbered_lines", "read_blocks", "read_blocks_range",
           "read_lines", "split_file"]

T = TypeVar("T")

MAX_LINE_BYTES = 64 * 1024 * 1024
#: Bytes read at a time by ``read_blocks``.
BLOCK_BYTES = 8 * 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_LINE_END_CR = re.compile(rb"\r+(?=\n)|\r+\Z")


def _lines(handle: BinaryIO, *, follow: bool, stop: Callable[[], bool] | None) -> Iterator[str]:
    pending = b""
    while True:
        raw = handle.readline(MAX_LINE_BYTES)
        if not raw:
            if not follow or (stop is not None and stop()):
                if pending:
                    yield pending.decode("utf-8", "replace")
                return
            time.sleep(0.2)
            continue
        if follow and not raw.endswith(b"\n"):
            pending += raw  # a line still being written
            if len(pending) < MAX_LINE_BYTES:
                continue
            raw, pending = pending, b""
        elif pending:
            raw, pending = pending + raw, b""
        if not raw.endswith(b"\n") and len(raw) >= MAX_LINE_BYTES:
            while True:  # skip the rest of an overlong line
                rest = handle.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
        yield raw.rstrip(b"\r\n").decode("utf-8", "replace")


def _open(source: str | Path) -> BufferedReader:
    """A log file opened for reading; InputError naming it when it is a folder or cannot be opened."""
    if Path(source).is_dir():
        raise InputError(f"{source}: is a folder, not a log file")
    try:
        return open(source, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {(exc.strerror or str(exc)).lower()}") from exc


def _read(source: str | Path, reader: Callable[[BinaryIO, bool], Iterator[T]]) -> Iterator[T]:
    """Open a log (``-``: stdin; gzip content is decompressed) and run ``reader(stream, compressed)`` over it."""
    if str(source) == "-":
        yield from reader(sys.stdin.buffer, False)
        return
    with _open(source) as handle:
        try:
            if handle.peek(2)[:2] == _GZIP_MAGIC:
                with gzip.GzipFile(fileobj=handle) as unzipped:
                    yield from reader(unzipped, True)  # type: ignore[arg-type]
            else:
                yield from reader(handle, False)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{source}: cannot read: {exc}") from exc


def read_lines(source: str | Path, *, follow: bool = False, stop: Callable[[], bool] | None = None) -> Iterator[str]:
    """The lines of a file (gzip content is decompressed) or of ``-`` (stdin); ``follow`` waits for more."""
    return _read(source, lambda stream, compressed: _lines(stream, follow=follow and not compressed and str(source) != "-", stop=stop))


def _normalised(data: bytes) -> bytes:
    """Lines as the line reader gives them: carriage returns at line ends dropped, invalid UTF-8 replaced."""
    if b"\r" in data:
        data = _LINE_END_CR.sub(b"", data)
    if not data.isascii():
        data = data.decode("utf-8", "replace").encode("utf-8")
    return data


def _blocks(handle: BinaryIO) -> Iterator[bytes]:
    """Blocks of whole lines (separated by ``\\n``, no final break), read a block at a time."""
    pending = b""
    skipping = False  # inside the rest of an overlong line
    while True:
        block = handle.read(BLOCK_BYTES)
        if not block:
            if pending and not skipping:
                yield _normalised(pending)
            return
        data = pending + block
        cut = data.rfind(b"\n")
        if cut < 0:
            if skipping:
                pending = b""
            elif len(data) >= MAX_LINE_BYTES:
                yield _normalised(data[:MAX_LINE_BYTES])
                pending, skipping = b"", True
            else:
                pending = data
            continue
        head, pending = data[:cut], data[cut + 1 :]
        if skipping:  # the overlong line ends at the first break
            first = head.find(b"\n")
            head = head[first + 1 :] if first >= 0 else b""
            skipping = False
            if first < 0:
                continue
        yield _normalised(head)


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


def read_blocks(source: str | Path) -> Iterator[bytes]:
    """The lines of a file or ``-`` as blocks of UTF-8 bytes, for scanning many lines at once (no follow).

    Each block holds whole lines separated by ``\\n``, normalised as
    :func:`read_lines` gives them: ``block.decode().split("\\n")`` are its lines.
    """
    return _read(source, lambda stream, compressed: _blocks(stream))


class _Range:
    """The bytes ``[start, stop)`` of an open file, read like a stream."""

    def __init__(self, handle: BinaryIO, start: int, stop: int) -> None:
        handle.seek(start)
        self._handle, self._left = handle, stop - start

    def read(self, size: int) -> bytes:
        data = self._handle.read(min(size, self._left)) if self._left > 0 else b""
        self._left -= len(data)
        return data


def split_file(source: str | Path, parts: int, *, min_part: int, first_share: float | None = None) -> list[tuple[int, int]] | None:
    """Byte ranges that cut a plain (not gzip) regular file into up to ``parts`` pieces at line breaks.

    None when the input cannot be cut: stdin, gzip, not a regular file, or
    smaller than two pieces of ``min_part`` bytes. Each range but the first
    starts right after a line break, so every piece holds whole lines.
    ``first_share``: the first piece's share of the bytes (default: an equal share); the others share the rest.
    """
    if str(source) == "-" or parts < 2:
        return None
    try:
        with open(source, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or handle.peek(2)[:2] == _GZIP_MAGIC:
                return None
            parts = min(parts, size // max(min_part, 1))
            if parts < 2:
                return None
            cuts = [0]
            first = int(size * first_share) if first_share is not None else size // parts
            for k in range(1, parts):
                handle.seek(max(first + (size - first) * (k - 1) // (parts - 1), cuts[-1]))
                handle.readline(MAX_LINE_BYTES)  # to the end of the line the cut falls in
                cut = handle.tell()
                if cut >= size:
                    break
                if cut > cuts[-1]:
                    cuts.append(cut)
    except OSError:
        return None
    cuts.append(size)
    return list(zip(cuts, cuts[1:])) if len(cuts) > 2 else None


def read_blocks_range(source: str | Path, start: int, stop: int) -> Iterator[bytes]:
    """Like :func:`read_blocks`, for the bytes ``[start, stop)`` of a plain file (a range from :func:`split_file`)."""
    with _open(source) as handle:
        try:
            yield from _blocks(_Range(handle, start, stop))  # type: ignore[arg-type]
        except OSError as exc:
            raise InputError(f"{source}: cannot read: {exc}") from exc
