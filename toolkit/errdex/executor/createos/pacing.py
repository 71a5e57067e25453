"""Request pacing shared by every client in the process.

CreateOS allows 300 requests per minute per caller IP, so requests to one API
URL start at least ``pace_ms`` apart, in the order they asked for a turn.
"""

from __future__ import annotations

import threading
import time

from errdex.executor.createos.deadline import Deadline

__all__ = ["wait_for_turn"]


class _Pacer:
    """The start time of the last request to one API URL."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: float | None = None

    def reserve(self, interval: float) -> float:
        """Book the next start time at least ``interval`` seconds after the previous one."""
        with self._lock:
            now = time.monotonic()
            slot = now if self._last is None else max(now, self._last + interval)
            self._last = slot
            return slot


_pacers: dict[str, _Pacer] = {}
_pacers_lock = threading.Lock()


def wait_for_turn(api_url: str, pace_ms: int, deadline: Deadline) -> None:
    """Block until a request to ``api_url`` may start; cancellation and the deadline interrupt the wait."""
    deadline.check()
    with _pacers_lock:
        pacer = _pacers.setdefault(api_url, _Pacer())
    deadline.sleep_until(pacer.reserve(pace_ms / 1000))
