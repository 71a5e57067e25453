"""Following growing log files by name, like ``tail -F``: rotation, truncation and files that appear later.

The limits are the readers' (:data:`~errdex.match.readers.MAX_LINE_BYTES`,
:data:`~errdex.match.readers.BLOCK_BYTES`), read from that module each time so that one setting governs both.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from errdex.errors import InputError
from errdex.match import readers
from errdex.match.lines import normalised

__all__ = ["FOLLOW_INTERVAL", "Follower", "follow_files"]

#: Seconds between looks at followed files that had nothing new.
FOLLOW_INTERVAL = 0.2


class Follower:
    """Lines of a growing file, followed by name like ``tail -F``.

    Each :meth:`poll` gives the whole lines written since the last one. When
    the file is truncated (copy-and-truncate rotation) it is read again from
    its start, and the unfinished line before the truncation is dropped; when
    the name points to a new file (rename rotation), the rest of the old one
    is read first, then the new one from its start. A missing file is waited
    for. A compressed file is read once, a block per poll.
    """

    def __init__(self, source: str | Path, *, text: bool = False) -> None:
        """``text``: follow a file that starts with binary data too (else InputError, as the readers refuse it)."""
        self.source = source
        self._text = text
        self._handle: Any = None
        self._identity: tuple[int, int] | None = None
        self._pending: list[bytes] = []
        self._held = 0
        self._skipping = False
        self.finished = False
        self._compressed: Iterator[tuple[bytes, bool]] | None = None
        self._open()

    def _open(self) -> None:
        handle = readers.open_log(self.source, follow=True)
        info = os.fstat(handle.fileno())
        kind = readers.compression(handle.peek(6)[:6])
        if kind is not None:
            handle.close()
            self._compressed = readers.read_marked_blocks(self.source, text=self._text)
            return
        reason = None if self._text else readers.binary_reason(handle.peek(readers.SNIFF_BYTES))
        if reason is not None:
            handle.close()
            raise InputError(f"{self.source}: binary data ({reason} at its start): skipped "
                             "(--text matches it as text)")
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
            chunk = self._handle.read1(readers.BLOCK_BYTES)
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
                out += readers.cut_lines(data)
            if self._held > readers.MAX_LINE_BYTES:
                out.append((b"".join(self._pending)[:readers.MAX_LINE_BYTES], True))
                self._pending, self._held, self._skipping = [], 0, True
        return out

    def _rest(self) -> list[tuple[bytes, bool]]:
        """The unfinished last line, as a line of its own."""
        rest = [] if self._skipping or not self._pending else [(b"".join(self._pending), False)]
        self._pending, self._held, self._skipping = [], 0, False
        return rest

    def poll(self, *, final: bool = False, limit: int = 4 * readers.BLOCK_BYTES) -> list[tuple[str, bool]]:
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
        return [item for block, cut in raw for item in self._decode(normalised(block), cut)]

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
