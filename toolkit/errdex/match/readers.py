"""Reading log lines as a stream: files (plain or compressed), stdin, growing files.

Lines are decoded as UTF-8 with replacement, so offsets are character
offsets into the decoded line. A file is never read whole: lines come a
block at a time, and a line longer than ``MAX_LINE_BYTES`` is cut there (the
rest of it is skipped, and the reader says which line) so memory stays
bounded. Only what a stream has ready is waited for, so from a pipe or a
terminal each line is matched as soon as it is written.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import select
import stat
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from errdex.errors import InputError, from_oserror, os_reason

__all__ = ["FIFO_WAIT_SECONDS", "FOLLOW_INTERVAL", "MAX_LINE_BYTES", "Follower", "LineFinder", "follow_files",
           "line_end", "line_start", "numbered_lines", "read_blocks", "read_blocks_range", "read_lines",
           "read_marked_blocks", "split_file"]

MAX_LINE_BYTES = 64 * 1024 * 1024
#: Bytes read at a time by ``read_blocks``.
BLOCK_BYTES = 8 * 1024 * 1024
#: Seconds between looks at followed files that had nothing new.
FOLLOW_INTERVAL = 0.2
#: How long opening a named pipe (FIFO) waits for a writer to connect.
FIFO_WAIT_SECONDS = 10.0
_LINE_END_CR = re.compile(rb"\r+(?=\n)|\r+\Z")
#: Magic bytes of the compressed formats read transparently, and how to open each.
_COMPRESSED: tuple[tuple[bytes, str, Callable[[Any], Any]], ...] = (
    (b"\x1f\x8b", "gzip", lambda raw: gzip.GzipFile(fileobj=raw)),
    (b"BZh", "bzip2", lambda raw: bz2.BZ2File(raw)),
    (b"\xfd7zXZ\x00", "xz", lambda raw: lzma.LZMAFile(raw)),
)
_DAMAGE = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


def _compression(head: bytes) -> tuple[str, Callable[[Any], Any]] | None:
    for magic, name, opener in _COMPRESSED:
        if head.startswith(magic):
            return name, opener
    return None


def _normalised(data: bytes) -> bytes:
    """Lines as the line reader gives them: carriage returns at line ends dropped, invalid UTF-8 replaced."""
    if b"\r" in data:
        data = _LINE_END_CR.sub(b"", data)
    if not data.isascii():
        data = data.decode("utf-8", "replace").encode("utf-8")
    return data


def _cut_lines(data: bytes) -> Iterator[tuple[bytes, bool]]:
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


def _raw_blocks(read: Callable[[int], bytes]) -> Iterator[tuple[bytes, bool]]:
    """``(block, cut)``: blocks of whole raw lines (no final break) from ``read``; ``cut``: the last line was cut."""
    pending: list[bytes] = []  # the start of a line not ended yet, in pieces (joined once it ends)
    held = 0
    skipping = False  # inside the rest of a line already cut
    while True:
        chunk = read(BLOCK_BYTES)
        if not chunk:
            if pending and not skipping:
                yield b"".join(pending), False
            return
        if skipping:
            first = chunk.find(b"\n")
            if first < 0:
                continue
            chunk, skipping = chunk[first + 1 :], False
            if not chunk:
                continue
        last = chunk.rfind(b"\n")
        if last < 0:
            pending.append(chunk)
            held += len(chunk)
            if held > MAX_LINE_BYTES:
                yield b"".join(pending)[:MAX_LINE_BYTES], True
                pending, held, skipping = [], 0, True
            continue
        data = b"".join([*pending, chunk[:last]]) if pending else chunk[:last]
        tail = chunk[last + 1 :]
        pending, held = ([tail], len(tail)) if tail else ([], 0)
        yield from _cut_lines(data)
        if held > MAX_LINE_BYTES:
            yield tail[:MAX_LINE_BYTES], True
            pending, held, skipping = [], 0, True


def _blocks(handle: Any) -> Iterator[tuple[bytes, bool]]:
    """``(block, cut)``: blocks of whole lines (separated by ``\\n``, no final break), normalised.

    A line longer than :data:`MAX_LINE_BYTES` is cut there and ends its block
    (``cut`` is then true); the rest of it, up to its break, is skipped. The
    cut falls at the same byte of the line wherever reading started, so every
    way of cutting a file into pieces gives the same lines. Only what the
    stream has ready is waited for (``read1``).
    """
    for block, cut in _raw_blocks(getattr(handle, "read1", None) or handle.read):
        yield _normalised(block), cut


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


def _open(source: str | Path, *, follow: bool = False) -> BinaryIO:
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
        elif not (stat.S_ISREG(mode) or os.isatty(fd) or (stat.S_ISCHR(mode) and _is_null(fd))):
            raise InputError(f"{source}: not a regular file, pipe or terminal; reading it might never end")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return io.BufferedReader(_Prefixed(fd, prefix) if prefix else io.FileIO(fd, "rb"))  # type: ignore[return-value]


def _is_null(fd: int) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(os.devnull))
    except OSError:
        return False


class _Salvaging:
    """A decompressing stream that ends, instead of failing, where the data is damaged (``damage`` says why)."""

    def __init__(self, stream: Any) -> None:
        self._stream, self.damage = stream, None

    def read1(self, size: int) -> bytes:
        if self.damage is not None:
            return b""
        try:
            return self._stream.read1(size)  # type: ignore[no-any-return]
        except _DAMAGE as exc:
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
    kind = _compression(head)
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
    """Open a log (``-``: stdin; gzip, bzip2 and xz content is decompressed) and run ``reader(stream)`` over it."""
    if str(source) == "-":
        stdin = sys.stdin.buffer
        yield from _streams("<stdin>", stdin if hasattr(stdin, "peek") else io.BufferedReader(stdin), reader)
        return
    with _open(source) as handle:
        yield from _streams(source, handle, reader)


def read_marked_blocks(source: str | Path, start: int = 0, stop: int | None = None) -> Iterator[tuple[bytes, bool]]:
    """``(block, cut)`` for a file or ``-``: blocks of whole lines as UTF-8 bytes, ``cut`` when the block's last
    line was longer than :data:`MAX_LINE_BYTES` and cut there. ``start``/``stop``: a byte range of a plain file
    (from :func:`split_file`)."""
    if start == 0 and stop is None:
        return _read(source, _blocks)
    return _read_range(source, start, stop)


def read_blocks(source: str | Path) -> Iterator[bytes]:
    """The lines of a file or ``-`` as blocks of UTF-8 bytes, for scanning many lines at once (no follow).

    Each block holds whole lines separated by ``\\n``, normalised as
    :func:`read_lines` gives them: ``block.decode().split("\\n")`` are its lines.
    """
    return (block for block, _ in read_marked_blocks(source))


def read_lines(source: str | Path) -> Iterator[str]:
    """The lines of a file (compressed content is decompressed) or of ``-`` (stdin)."""
    for block in read_blocks(source):
        yield from block.decode("utf-8", "replace").split("\n")


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


class _Range:
    """The bytes ``[start, stop)`` of an open file, read like a stream."""

    def __init__(self, handle: BinaryIO, start: int, stop: int | None) -> None:
        handle.seek(start)
        self._handle, self._left = handle, (stop - start) if stop is not None else None

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


def split_file(source: str | Path, parts: int, *, min_part: int, first_share: float | None = None) -> list[tuple[int, int]] | None:
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
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or _compression(handle.peek(6)[:6]):
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
    return list(zip(cuts, cuts[1:])) if len(cuts) > 2 else None


def _read_range(source: str | Path, start: int, stop: int | None) -> Iterator[tuple[bytes, bool]]:
    with _open(source) as handle:
        try:
            yield from _blocks(_Range(handle, start, stop))
        except OSError as exc:
            raise InputError(f"{source}: cannot read: {_damage_text(exc)}") from exc


def read_blocks_range(source: str | Path, start: int, stop: int) -> Iterator[bytes]:
    """Like :func:`read_blocks`, for the bytes ``[start, stop)`` of a plain file (a range from :func:`split_file`)."""
    return (block for block, _ in _read_range(source, start, stop))


class Follower:
    """Lines of a growing file, followed by name like ``tail -F``.

    Each :meth:`poll` gives the whole lines written since the last one. When
    the file is truncated (copy-and-truncate rotation) it is read again from
    its start, and the unfinished line before the truncation is dropped; when
    the name points to a new file (rename rotation), the rest of the old one
    is read first, then the new one from its start. A missing file is waited
    for. A compressed file is read once, a block per poll.
    """

    def __init__(self, source: str | Path) -> None:
        self.source = source
        self._handle: Any = None
        self._identity: tuple[int, int] | None = None
        self._pending: list[bytes] = []
        self._held = 0
        self._skipping = False
        self.finished = False
        self._compressed: Iterator[tuple[bytes, bool]] | None = None
        self._open()

    def _open(self) -> None:
        handle = _open(self.source, follow=True)
        info = os.fstat(handle.fileno())
        kind = _compression(handle.peek(6)[:6])
        if kind is not None:
            handle.close()
            self._compressed = read_marked_blocks(self.source)
            return
        self._handle, self._identity = handle, (info.st_dev, info.st_ino)
        self._pending, self._held, self._skipping = [], 0, False

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def _read(self, limit: int) -> list[tuple[bytes, bool]]:
        """Whole lines from what the open file holds now (up to about ``limit`` bytes)."""
        out: list[tuple[bytes, bool]] = []
        taken = 0
        while taken < limit:
            chunk = self._handle.read1(BLOCK_BYTES)
            if not chunk:
                break
            taken += len(chunk)
            if self._skipping:
                first = chunk.find(b"\n")
                if first < 0:
                    continue
                chunk, self._skipping = chunk[first + 1 :], False
            last = chunk.rfind(b"\n")
            if last < 0:
                self._pending.append(chunk)
                self._held += len(chunk)
            else:
                data = b"".join([*self._pending, chunk[:last]])
                tail = chunk[last + 1 :]
                self._pending, self._held = ([tail], len(tail)) if tail else ([], 0)
                out += _cut_lines(data)
            if self._held > MAX_LINE_BYTES:
                out.append((b"".join(self._pending)[:MAX_LINE_BYTES], True))
                self._pending, self._held, self._skipping = [], 0, True
        return out

    def _rest(self) -> list[tuple[bytes, bool]]:
        """The unfinished last line, as a line of its own."""
        rest = [] if self._skipping or not self._pending else [(b"".join(self._pending), False)]
        self._pending, self._held, self._skipping = [], 0, False
        return rest

    def poll(self, *, final: bool = False, limit: int = 4 * BLOCK_BYTES) -> list[tuple[str, bool]]:
        """``(line, cut)`` for the whole lines that have arrived; ``final``: the unfinished last line too."""
        if self._compressed is not None:  # one block at a time: a large (or bomb) file is never held whole
            for block, cut in self._compressed:
                return self._decode(block, cut)
            self.finished = True
            return []
        if self._handle is None:  # the name was missing: is there a file again?
            try:
                self._open()
            except InputError:
                return []
            if self._compressed is not None:
                return self.poll(final=final, limit=limit)
        raw = self._read(limit)
        if not raw:
            raw = self._rotated()
        if final:
            raw += self._rest()
        return [item for block, cut in raw for item in self._decode(_normalised(block), cut)]

    @staticmethod
    def _decode(block: bytes, cut: bool) -> list[tuple[str, bool]]:
        lines = block.decode("utf-8", "replace").split("\n")
        return [(line, cut and i == len(lines) - 1) for i, line in enumerate(lines)]

    def _rotated(self) -> list[tuple[bytes, bool]]:
        """At the end of the open file: reopen it when it was truncated or the name now names another file."""
        try:
            now = os.stat(self.source)
        except OSError:
            now = None
        position = self._handle.tell()
        if now is not None and (now.st_dev, now.st_ino) == self._identity:
            if now.st_size < position:  # truncated: what was not finished is gone
                self._handle.seek(0)
                self._pending, self._held, self._skipping = [], 0, False
            return []
        if now is None:
            return []  # moved away and not yet replaced: keep reading the old file
        rest = self._rest()  # renamed away and replaced: the old file is done
        self.close()
        try:
            self._open()
        except InputError:
            self._handle = None
        return rest


def follow_files(followers: Sequence[Follower], *, stop: Callable[[], bool] | None = None,
                 interval: float | None = None) -> Iterator[tuple[int, str, bool]]:
    """``(follower index, line, cut)`` as lines are written to any of the files, until ``stop()`` is true
    (then the unfinished last lines too); the files are closed at the end."""
    try:
        while True:
            stopping = stop is not None and stop()
            busy = False
            for index, follower in enumerate(followers):
                lines = follower.poll(final=stopping)
                busy = busy or bool(lines)
                for line, cut in lines:
                    yield index, line, cut
            if stopping:
                return
            if not busy:
                time.sleep(FOLLOW_INTERVAL if interval is None else interval)
    finally:
        for follower in followers:
            follower.close()
