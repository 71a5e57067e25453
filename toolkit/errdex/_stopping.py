"""Signals that stop a run which holds something of the system's (a root sshd, a Unix account) cleanly.

Python's default for SIGTERM and SIGHUP ends the process at once: no ``finally`` runs, and what the run made
outlives it. While :func:`stop_on_signals` is active (in the main thread; elsewhere a signal handler cannot be
set) SIGTERM and SIGHUP raise :class:`~errdex.errors.Stopped` and SIGINT ``KeyboardInterrupt``, so the run
unwinds through its ``finally`` blocks and removes what it made. Inside :func:`critical` (useradd, userdel,
stopping an sshd: work that must not be cut in half) a signal waits until the block ends, then is raised.
A handler the program set itself, or a signal it ignores, is left as it is.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from errdex.errors import Stopped

__all__ = ["critical", "stop_on_signals"]

_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
_state = {"depth": 0, "critical": 0, "pending": 0}
_previous: dict[int, object] = {}


def _error(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Stopped(signum)


def _handler(signum: int, frame: FrameType | None) -> None:
    if _state["critical"]:
        _state["pending"] = _state["pending"] or signum
        return
    raise _error(signum)


def _ours(signum: int, current: object) -> bool:
    """Whether errdex may take this signal: the process left it to Python's default (not ignored, not set)."""
    default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
    return current is default or current is _handler


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise ``Stopped`` and SIGINT ``KeyboardInterrupt``
    (re-entrant; a no-op outside the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _state["depth"] == 0:
        for signum in _SIGNALS:
            current = signal.getsignal(signum)
            if _ours(signum, current):
                _previous[signum] = current
                signal.signal(signum, _handler)
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1
        if _state["depth"] == 0:
            for number, previous in list(_previous.items()):
                signal.signal(number, previous)  # type: ignore[arg-type]  # what getsignal gave back
                del _previous[number]


@contextmanager
def critical() -> Iterator[None]:
    """A signal that comes while the block runs is raised when it ends (at once if the block ended by an error:
    that error is on its way out already, and the signal's exception takes its place). Handlers run in the main
    thread only, so elsewhere this is a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _state["critical"] += 1
    try:
        yield
    finally:
        _state["critical"] -= 1
        if _state["critical"] == 0 and _state["pending"]:
            signum, _state["pending"] = _state["pending"], 0
            raise _error(signum)
