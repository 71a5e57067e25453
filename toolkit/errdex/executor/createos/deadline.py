"""A deadline and a cancellation event, checked before every blocking step."""

from __future__ import annotations

import threading
import time

from errdex.executor.createos.errors import CreateosCancelledError, CreateosTimeoutError

__all__ = ["Deadline"]

# How long one blocking socket operation may wait before cancellation is looked at again.
_CANCEL_POLL_SECONDS = 0.05


class Deadline:
    """When waiting must stop: a ``time.monotonic()`` instant (or None: never) and an optional cancel event."""

    __slots__ = ("at", "cancel")

    def __init__(self, at: float | None, cancel: threading.Event | None = None) -> None:
        self.at = at
        self.cancel = cancel

    @classmethod
    def after_ms(cls, ms: float, cancel: threading.Event | None = None) -> Deadline:
        """A deadline ``ms`` milliseconds from now."""
        return cls(time.monotonic() + ms / 1000, cancel)

    def remaining(self) -> float | None:
        """Seconds left, or None without a deadline."""
        return None if self.at is None else self.at - time.monotonic()

    def check(self) -> None:
        """Raise the cancellation, or the timeout, if either has happened."""
        if self.cancel is not None and self.cancel.is_set():
            raise CreateosCancelledError()
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            raise CreateosTimeoutError()

    def slice(self) -> float | None:
        """How long the next blocking operation may wait (after :meth:`check`)."""
        self.check()
        remaining = self.remaining()
        if self.cancel is None:
            return remaining
        return _CANCEL_POLL_SECONDS if remaining is None else min(_CANCEL_POLL_SECONDS, remaining)

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds``; a cancellation or the deadline ends the wait with its error."""
        self.sleep_until(time.monotonic() + seconds)

    def sleep_until(self, instant: float) -> None:
        """Wait until the monotonic ``instant``; a cancellation or the deadline ends the wait with its error."""
        while True:
            self.check()
            wait = instant - time.monotonic()
            if wait <= 0:
                return
            remaining = self.remaining()
            if remaining is not None:
                wait = min(wait, remaining)
            if self.cancel is not None:
                self.cancel.wait(wait)
            else:
                time.sleep(wait)
