"""Reading log lines as a stream: files (plain or compressed), stdin, byte ranges of a large file.

Lines are decoded as UTF-8 with replacement, so offsets are character
offsets into the decoded line. A file is never read whole: lines come a
block at a time, and a line longer than ``MAX_LINE_BYTES`` is cut there (the
rest of it is skipped, and the reader says which line) so memory stays
bounded. Only what a stream has ready is waited for, so from a pipe or a
terminal each line is matched as soon as it is written. Growing files are
followed by :mod:`~errdex.match.follow`; finding lines inside a block is
:mod:`~errdex.match.lines`.
"""

from __future__ import annotations

import functools
import io
import itertools
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, cast

from errdex.errors import InputError, from_oserror, os_reason
from errdex.match.lines import (
    LineFinder,
    line_end,
    line_start,
    normalised,
    numbered_lines,
)

__all__ = ["BLOCK_BYTES", "FIFO_WAIT_SECONDS", "MAX_LINE_BYTES", "SNIFF_BYTES", "LineFinder", "binary_reason",
           "compression", "cut_lines",
           "line_end", "line_start", "numbered_lines", "open_log", "read_blocks", "read_blocks_range", "read_lines",
           "read_marked_blocks", "split_file"]

MAX_LINE_BYTES = 64 * 1024 * 1024
#: Bytes read at a time by ``read_blocks``. A block small enough to stay in the core's cache while it is
#: read, copied, checked, scanned and counted: on 10M lines, 1 MiB blocks took 10% less time than 8 MiB ones.
BLOCK_BYTES = 1024 * 1024
#: How long opening a named pipe (FIFO) waits for a writer to connect.
FIFO_WAIT_SECONDS = 10.0
#: The bytes at the start of an input (after decompression) that say whether it is text: an input whose first read
#: (up to this many bytes) holds a NUL byte, as grep's rule has it, or is more than a tenth control characters, is
#: binary, and skipped unless read as text (``text=True``, ``errdex match --text``). Bytes that are not UTF-8 are not
#: held against a log (a Latin-1 user name in a real log is text): they are matched with invalid sequences replaced.
SNIFF_BYTES = 32 * 1024
#: Control characters other than white space: more than a tenth of an input's start makes it binary.
_CONTROL = bytes(c for c in range(32) if chr(c) not in "\t\n\v\f\r\x1b") + b"\x7f"


def binary_reason(head: bytes) -> str | None:
    """Why the start of an input (its first read, :data:`SNIFF_BYTES` at most) is binary data; None for text."""
    head = head[:SNIFF_BYTES]
    if b"\0" in head:
        return "a NUL byte"
    if head and len(head) - len(head.translate(None, _CONTROL)) > len(head) // 10:
        return "mostly control characters"
    return None


def _refuse_binary(source: str | Path, head: bytes) -> None:
    """InputError when ``head`` (an input's first read) is binary data."""
    reason = binary_reason(head)
    if reason is not None:
        raise InputError(f"{source}: binary data ({reason} in its first {SNIFF_BYTES // 1024} KiB): skipped "
                         "(--text matches it as text)")


def _gzip(raw: Any) -> Any:
    import gzip  # on first use: a plain log, the usual case, never needs a decompressor (start-up time)
    return gzip.GzipFile(fileobj=raw)


def _bzip2(raw: Any) -> Any:
    import bz2  # on first use (start-up time)
    return bz2.BZ2File(raw)


def _xz(raw: Any) -> Any:
    import lzma  # on first use (start-up time)
    return lzma.LZMAFile(raw)  # an opener: the caller closes it


#: Magic bytes of the compressed formats read transparently, and how to open each.
_COMPRESSED: tuple[tuple[bytes, str, Callable[[Any], Any]], ...] = (
    (b"\x1f\x8b", "gzip", _gzip),
    (b"BZh", "bzip2", _bzip2),
    (b"\xfd7zXZ\x00", "xz", _xz),
)


def _damage() -> tuple[type[BaseException], ...]:
    """What a damaged compressed stream raises; evaluated only when one raises, so that starting needs neither
    zlib nor lzma (start-up time)."""
    import lzma
    import zlib
    return (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


def compression(head: bytes) -> tuple[str, Callable[[Any], Any]] | None:
    for magic, name, opener in _COMPRESSED:
        if head.startswith(magic):
            return name, opener
    return None


def cut_lines(data: bytes) -> Iterator[tuple[bytes, bool]]:
    """``data`` (whole lines, no final break) as blocks; a line longer than the cap is cut there and ends its block."""
    limit = MAX_LINE_BYTES
    if len(data) <= limit:
        yield data, False
        return
    start, done = 0, 0
    while True:
        end = data.find(b"\n", start)
        stop = len(data) if end < 0 else end
        if stop - start > limit:
            yield data[done : start + limit], True
            done = stop + 1
        if end < 0:
            break
        start = end + 1
    if done <= len(data):
        yield data[done:], False


@functools.cache  # once per process (a forked child has it done already)
def _keep_freed_blocks() -> None:
    """Have the C allocator keep freed memory of a block's size for the next block, once per process.

    A large log is read as a stream of blocks, each alive while the next is
    made. glibc's default is to hand such memory back to the system and then
    fault it in again, page by page (with 8 MiB blocks: 147,000 page faults
    and 0.17 s per 1.3 GB, a third of the reading). Where the allocator is
    not glibc's nothing changes.
    """
    try:
        import ctypes  # here: only a log of several blocks pays for it (2 ms)

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)  # blocks come from the heap, not from mmap each time
    mallopt(_M_TRIM_THRESHOLD, 128 << 20)  # and the heap keeps up to this much free memory for reuse


#: glibc's ``mallopt`` parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _raw_blocks(readinto: Callable[[bytearray], int],
                sniff: Callable[[bytes], None] | None = None) -> Iterator[tuple[bytes, bool]]:
    """``(block, cut)``: blocks of whole raw lines (no final break) from ``readinto``; ``cut``: the last line was cut.
    ``sniff``: called with the first read's first :data:`SNIFF_BYTES` before any line is given.

    One buffer of :data:`BLOCK_BYTES` is read into again and again, and each block is copied out of it once
    (with the start of a line the read before left unended).
    """
    buffer = bytearray(BLOCK_BYTES)
    view = memoryview(buffer)
    pending: list[bytes] = []  # the start of a line not ended yet, in pieces (joined once it ends)
    held = 0
    skipping = False  # inside the rest of a line already cut
    while True:
        size = readinto(buffer)
        if sniff is not None:
            sniff(bytes(view[: min(size, SNIFF_BYTES)]))
            sniff = None
        if not size:
            if pending and not skipping:
                yield b"".join(pending), False
            return
        if size == BLOCK_BYTES:
            _keep_freed_blocks()
        begin = 0
        if skipping:
            first = buffer.find(b"\n", 0, size)
            if first < 0:
                continue
            begin, skipping = first + 1, False
            if begin == size:
                continue
        last = buffer.rfind(b"\n", begin, size)
        if last < 0:
            pending.append(bytes(view[begin:size]))
            held += size - begin
            if held > MAX_LINE_BYTES:
                yield b"".join(pending)[:MAX_LINE_BYTES], True
                pending, held, skipping = [], 0, True
            continue
        data = b"".join([*pending, view[begin:last]]) if pending else bytes(view[begin:last])
        tail = bytes(view[last + 1 : size])
        pending, held = ([tail], len(tail)) if tail else ([], 0)
        yield from cut_lines(data)
        if held > MAX_LINE_BYTES:
            yield tail[:MAX_LINE_BYTES], True
            pending, held, skipping = [], 0, True


def _regular(handle: Any) -> bool:
    if isinstance(handle, _Range):
        return True
    try:
        return stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return False


def _reader_into(handle: Any) -> Callable[[bytearray], int]:
    """The handle's ``readinto1`` for a regular file, else its ``read1``/``read`` copied into the buffer: a
    buffered ``readinto1`` larger than its buffer waits for a full raw read once it has data, which on a pipe
    would hold back the lines already written."""
    direct = getattr(handle, "readinto1", None)
    if direct is not None and _regular(handle):
        return cast(Callable[[bytearray], int], direct)
    read = getattr(handle, "read1", None) or handle.read

    def readinto(buffer: bytearray) -> int:
        data = read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    return readinto


def _blocks(handle: Any, sniff: Callable[[bytes], None] | None = None) -> Iterator[tuple[bytes, bool]]:
    """``(block, cut)``: blocks of whole lines (separated by ``\\n``, no final break), normalised.

    A line longer than :data:`MAX_LINE_BYTES` is cut there and ends its block
    (``cut`` is then true); the rest of it, up to its break, is skipped. The
    cut falls at the same byte of the line wherever reading started, so every
    way of cutting a file into pieces gives the same lines. Only what the
    stream has ready is waited for (``read1``).
    """
    for block, cut in _raw_blocks(_reader_into(handle), sniff):
        yield normalised(block), cut


class _Prefixed(io.RawIOBase):
    """A file descriptor read after some bytes already taken from it."""

    def __init__(self, fd: int, prefix: bytes) -> None:
        self._fd, self._prefix = fd, prefix

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            count = min(len(buffer), len(self._prefix))
            buffer[:count], self._prefix = self._prefix[:count], self._prefix[count:]
            return count
        data = os.read(self._fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def _wait_for_writer(fd: int, source: str | Path) -> bytes:
    """Wait (up to :data:`FIFO_WAIT_SECONDS`) until a named pipe has a writer; the bytes taken while checking.

    A pipe opened without blocking reads end-of-file while no writer is
    connected, and "try again" once one is connected but silent.
    """
    import select  # only for a named pipe (start-up time)

    poller = select.poll()
    poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + FIFO_WAIT_SECONDS
    while True:
        if poller.poll(50):
            return b""  # data, or a writer that came and went (end of file)
        try:
            data = os.read(fd, 1)
        except BlockingIOError:
            return b""  # a writer is connected
        if data:
            return data
        if time.monotonic() >= deadline:
            raise InputError(f"{source}: a named pipe that no program writes to (waited {FIFO_WAIT_SECONDS:g} s)")


def open_log(source: str | Path, *, follow: bool = False) -> io.BufferedReader:
    """A log file opened for reading; InputError naming it when it is a folder, cannot be opened or cannot end.

    Regular files, named pipes (once a writer connects), terminals and the
    null device are read; other devices (``/dev/zero``, disks) are refused,
    since reading them may never end.
    """
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if isinstance(exc, IsADirectoryError):
            raise InputError(f"{source}: is a folder, not a log file") from exc
        raise from_oserror(exc, source, action="read") from exc
    try:
        mode = os.fstat(fd).st_mode
        prefix = b""
        if stat.S_ISDIR(mode):
            raise InputError(f"{source}: is a folder, not a log file")
        if follow and not stat.S_ISREG(mode):
            raise InputError(f"{source}: --follow reads regular files only")
        if stat.S_ISFIFO(mode):
            prefix = _wait_for_writer(fd, source)
        else:
            _refuse_endless(fd, mode, source)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    raw: io.RawIOBase = _Prefixed(fd, prefix) if prefix else io.FileIO(fd, "rb")
    return io.BufferedReader(raw)


def _refuse_endless(fd: int, mode: int, source: str | Path) -> None:
    """InputError for a device that may never end (``/dev/zero``, a disk): not a regular file, pipe, socket,
    terminal or the null device."""
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)
            or (stat.S_ISCHR(mode) and _is_null(fd))):
        raise InputError(f"{source}: not a regular file, pipe or terminal; reading it might never end")


def _is_null(fd: int) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(os.devnull))
    except OSError:
        return False


class _Salvaging:
    """A decompressing stream that ends, instead of failing, where the data is damaged (``damage`` says why)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.damage: BaseException | None = None

    def read1(self, size: int) -> bytes:
        if self.damage is not None:
            return b""
        try:
            data: bytes = self._stream.read1(size)
            return data
        except _damage() as exc:
            self.damage = exc
            return b""


def _damage_text(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "the data ends early"
    if isinstance(exc, OSError) and exc.errno:  # the system's trouble, in errdex's words
        return os_reason(exc)
    return (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).lower()


def _streams(source: str | Path, handle: Any, reader: Callable[[Any], Iterator[Any]]) -> Iterator[Any]:
    """``reader`` over a handle, decompressed when it starts with a known magic; damage after the good part
    is an InputError (raised once everything before it was given)."""
    try:
        head = handle.peek(6)[:6]
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {_damage_text(exc)}") from exc
    kind = compression(head)
    if kind is None:
        try:
            yield from reader(handle)
        except OSError as exc:
            raise InputError(f"{source}: cannot read: {_damage_text(exc)}") from exc
        return
    name, opener = kind
    stream = _Salvaging(opener(handle))
    yield from reader(stream)
    if stream.damage is not None:
        raise InputError(f"{source}: damaged {name} data ({_damage_text(stream.damage)}); "
                         f"the lines before the damage were matched")


def _read(source: str | Path, reader: Callable[[Any], Iterator[Any]]) -> Iterator[Any]:
    """Open a log (``-``: stdin; gzip, bzip2 and xz content is decompressed) and run ``reader(stream)`` over it.
    (``reader`` may refuse binary data: :func:`binary_reason`.)"""
    if str(source) == "-":
        stdin = sys.stdin.buffer
        try:
            descriptor = stdin.fileno()
            mode = os.fstat(descriptor).st_mode
        except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
            pass  # not a descriptor (a test's stream): nothing to check
        else:
            _refuse_endless(descriptor, mode, "<stdin>")
        yield from _streams("<stdin>", stdin if hasattr(stdin, "peek") else io.BufferedReader(stdin), reader)
        return
    with open_log(source) as handle:
        yield from _streams(source, handle, reader)


def read_marked_blocks(source: str | Path, start: int = 0, stop: int | None = None, *,
                       text: bool = False) -> Iterator[tuple[bytes, bool]]:
    """``(block, cut)`` for a file or ``-``: blocks of whole lines as UTF-8 bytes, ``cut`` when the block's last
    line was longer than :data:`MAX_LINE_BYTES` and cut there. ``start``/``stop``: a byte range of a plain file
    (from :func:`split_file`). An input whose start is binary data (:func:`binary_reason`; for a range, the
    file's start, read by the range that holds it) is refused with an InputError before any line, unless
    ``text``."""
    named = "<stdin>" if str(source) == "-" else source
    sniff = None if text or start else functools.partial(_refuse_binary, named)
    if start == 0 and stop is None:
        return _read(source, functools.partial(_blocks, sniff=sniff))
    return _read_range(source, start, stop, sniff)


def read_blocks(source: str | Path, *, text: bool = False) -> Iterator[bytes]:
    """The lines of a file or ``-`` as blocks of UTF-8 bytes, for scanning many lines at once (no follow).

    Each block holds whole lines separated by ``\\n``, normalised as
    :func:`read_lines` gives them: ``block.decode().split("\\n")`` are its lines.
    """
    return (block for block, _ in read_marked_blocks(source, text=text))


def read_lines(source: str | Path, *, text: bool = False) -> Iterator[str]:
    """The lines of a file (compressed content is decompressed) or of ``-`` (stdin); binary data is refused
    unless ``text`` (:func:`read_marked_blocks`)."""
    for block in read_blocks(source, text=text):
        yield from block.decode("utf-8", "replace").split("\n")


class _Range:
    """The bytes ``[start, stop)`` of an open file, read like a stream."""

    def __init__(self, handle: io.BufferedReader, start: int, stop: int | None) -> None:
        handle.seek(start)
        self._handle, self._left = handle, (stop - start) if stop is not None else None

    def readinto1(self, buffer: bytearray) -> int:
        want = len(buffer) if self._left is None else min(len(buffer), self._left)
        if want <= 0:
            return 0
        count = self._handle.readinto(memoryview(buffer)[:want]) or 0
        if self._left is not None:
            self._left -= count
        return count

    def read1(self, size: int) -> bytes:
        if self._left is None:
            return self._handle.read(size)
        data = self._handle.read(min(size, self._left)) if self._left > 0 else b""
        self._left -= len(data)
        return data


def _to_line_end(handle: BinaryIO) -> None:
    """Move past the next line break (or to the end), however long the line."""
    while True:
        piece = handle.readline(1 << 20)
        if not piece or piece.endswith(b"\n"):
            return


def split_file(source: str | Path, parts: int, *, min_part: int,
               first_share: float | None = None) -> list[tuple[int, int]] | None:
    """Byte ranges that cut a plain (not compressed) regular file into up to ``parts`` pieces at line breaks.

    None when the input cannot be cut: stdin, compressed, not a regular file,
    or smaller than two pieces of ``min_part`` bytes. Each range but the first
    starts right after a line break (however long the line before it), so
    every piece holds whole lines.
    ``first_share``: the first piece's share of the bytes (default: an equal share); the others share the rest.
    """
    if str(source) == "-" or parts < 2:
        return None
    try:
        if not stat.S_ISREG(os.stat(source).st_mode):  # before opening: opening a named pipe would wait
            return None
        with open(source, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or compression(handle.peek(6)[:6]):
                return None
            parts = min(parts, size // max(min_part, 1))
            if parts < 2:
                return None
            cuts = [0]
            first = int(size * first_share) if first_share is not None else size // parts
            for k in range(1, parts):
                handle.seek(max(first + (size - first) * (k - 1) // (parts - 1), cuts[-1]))
                _to_line_end(handle)  # to the end of the line the cut falls in
                cut = handle.tell()
                if cut >= size:
                    break
                if cut > cuts[-1]:
                    cuts.append(cut)
    except OSError:
        return None
    cuts.append(size)
    return list(itertools.pairwise(cuts)) if len(cuts) > 2 else None


def _read_range(source: str | Path, start: int, stop: int | None,
                sniff: Callable[[bytes], None] | None = None) -> Iterator[tuple[bytes, bool]]:
    with open_log(source) as handle:
        try:
            yield from _blocks(_Range(handle, start, stop), sniff)
        except OSError as exc:
            raise InputError(f"{source}: cannot read: {_damage_text(exc)}") from exc


def read_blocks_range(source: str | Path, start: int, stop: int) -> Iterator[bytes]:
    """Like :func:`read_blocks`, for the bytes ``[start, stop)`` of a plain file (a range from :func:`split_file`)."""
    return (block for block, _ in _read_range(source, start, stop))
