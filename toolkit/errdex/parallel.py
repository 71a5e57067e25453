"""Work split across forked processes: one large log file to match, the pages of a large site.

The caller does the first piece of the work in this process while each
later piece runs in a forked child, which already holds everything loaded
(compiled patterns, records). A child writes its results to a temporary
file as a stream of pickled chunks, so memory stays bounded on both sides;
the parent reads them in order once its own piece is done, so the result
is the same as with one process.

A child that fails for any reason costs only time: the caller does that
piece itself. Forking is used only on systems that have it and only when
this process runs a single thread (forking a threaded process can deadlock).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

__all__ = ["Child", "WorkQueue", "available_cpus", "can_fork", "child_items", "finished", "partial_items",
           "start_child", "stop_child"]


def available_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether a child may be forked safely now."""
    return hasattr(os, "fork") and threading.active_count() == 1


@dataclass
class Child:
    """A forked child writing its results to a temporary file: ``fd``, open in this process too; its name
    ``path`` is removed as soon as the child runs, so no kill of either process can leave the file behind."""

    pid: int
    path: str
    status: int | None = None
    fd: int = -1


def start_child(work: Callable[[BinaryIO], None]) -> Child:
    """Fork a child that runs ``work(results_stream)`` and exits (0 when ``work`` returned)."""
    import signal  # as tempfile
    import tempfile  # here: start-up time (with random and shutil, ~3 ms; a one-process match forks nothing)

    fd, path = tempfile.mkstemp(prefix="errdex-part-")
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        code = 1
        try:
            _end_with(parent)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            with os.fdopen(fd, "wb") as out:
                work(out)
            code = 0
        except BaseException:  # the parent redoes the piece
            pass
        os._exit(code)
    with contextlib.suppress(OSError):
        os.unlink(path)  # the child writes through its descriptor, this process reads through its own
    return Child(pid, path, fd=fd)


def _end_with(parent: int) -> None:
    """In a forked child: have the kernel kill this process when its parent dies, however it dies (a parent
    killed with kill -9 cannot stop its children, which went on with their pieces to the end); end at once if
    the parent is already gone. Linux only; elsewhere a child runs its piece to the end."""
    import ctypes  # only in a child (start-up time)
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: not Linux
        return
    if os.getppid() != parent:  # died before the request was made
        os._exit(1)


_PR_SET_PDEATHSIG = 1


def finished(child: Child) -> bool:
    """Whether the child has ended (without waiting)."""
    if child.status is None:
        pid, status = os.waitpid(child.pid, os.WNOHANG)
        if pid == 0:
            return False
        child.status = status
    return True


def child_items(child: Child) -> Iterator[Any] | None:
    """The child's chunks of results, in order, once it has finished; None when it failed."""
    if child.status is None:
        _, child.status = os.waitpid(child.pid, 0)
    if child.status != 0:
        return None
    return _chunks(child)


def _chunks(child: Child) -> Iterator[Any]:
    import pickle  # only once a child has run: a one-line start never forks (start-up time)

    os.lseek(child.fd, 0, os.SEEK_SET)  # the child's writes moved the offset the two descriptors share
    with os.fdopen(os.dup(child.fd), "rb") as stream:
        while True:
            try:
                yield pickle.load(stream)
            except EOFError:
                return


def partial_items(child: Child) -> list[Any]:
    """Every chunk a child wrote completely, even when it failed part-way (waits for it to end)."""
    if child.status is None:
        _, child.status = os.waitpid(child.pid, 0)
    import pickle  # as in _chunks

    found = []
    try:
        for chunk in _chunks(child):
            found.append(chunk)
    except (pickle.UnpicklingError, ValueError, AttributeError, IndexError, OSError):
        pass  # a chunk cut short by the child's end
    return found


class WorkQueue:
    """Numbered tasks shared by this process and its forked children: each takes the next one until none is left.

    A pipe filled before forking: a 4-byte read is one task number, and reads
    from a pipe never split a record written whole, so no task is taken twice.
    Whoever is free takes the next task, which balances the load by itself.
    """

    _SIZE = 4

    def __init__(self, count: int) -> None:
        if count * self._SIZE > 65536:
            raise ValueError("too many tasks for one pipe")
        self._read, write = os.pipe()
        os.write(write, b"".join(index.to_bytes(self._SIZE, "little") for index in range(count)))
        os.close(write)

    def next(self) -> int | None:
        """The next task's number, or None when every task is taken."""
        data = os.read(self._read, self._SIZE)
        return int.from_bytes(data, "little") if len(data) == self._SIZE else None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._read)


def stop_child(child: Child) -> None:
    """Kill the child if it still runs, reap it and remove its results."""
    import signal  # as in start_child

    if child.status is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            _, child.status = os.waitpid(child.pid, 0)
    if child.fd >= 0:
        with contextlib.suppress(OSError):
            os.close(child.fd)
        child.fd = -1
