"""One output stream of a process: UTF-8 decoded across frames, only its tail kept."""

from __future__ import annotations

import codecs

__all__ = ["OUTPUT_TAIL_CHARS", "OutputTail"]

OUTPUT_TAIL_CHARS = 4_194_304


class OutputTail:
    """The last ``limit`` characters of a byte stream decoded as UTF-8 incrementally.

    A character split across frames is joined; invalid bytes become U+FFFD, as
    does an incomplete sequence left when the stream is flushed.
    """

    def __init__(self, limit: int = OUTPUT_TAIL_CHARS) -> None:
        self.limit = limit
        self.truncated = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._parts: list[str] = []
        self._size = 0

    def feed(self, data: bytes) -> str:
        """Decode ``data``; the text it completes (possibly empty)."""
        return self._append(self._decoder.decode(data))

    def flush(self) -> str:
        """End the stream; the text of an incomplete tail (one U+FFFD) or ``""``."""
        return self._append(self._decoder.decode(b"", final=True))

    @property
    def text(self) -> str:
        """The kept text: at most ``limit`` characters, the newest ones."""
        self._compact()
        return self._parts[0] if self._parts else ""

    def _append(self, text: str) -> str:
        if text:
            self._parts.append(text)
            self._size += len(text)
            if self._size > 2 * self.limit:
                self._compact()
        return text

    def _compact(self) -> None:
        joined = "".join(self._parts)
        if len(joined) > self.limit:
            joined = joined[-self.limit :]
            self.truncated = True
        self._parts = [joined] if joined else []
        self._size = len(joined)
