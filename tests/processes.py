"""Running errdex as a separate process, as a user would, for tests that kill it or run two at once; waiting
for something another thread or process does, on the condition itself rather than a fixed sleep; and the two
ways a test speaks of time without asserting a speed: a guard that stops a hang, and how work grows with input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest

__all__ = ["ROOT", "errdex_env", "growth", "leftovers", "run", "start", "time_limit", "wait_until"]

ROOT = Path(__file__).resolve().parent.parent


def errdex_env(**extra: str) -> dict[str, str]:
    """This environment (the test's cache), with this checkout's toolkit first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "toolkit"), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def _hear_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Python then installs its own Ctrl-C handler at start-up


def start(*args: str, cwd: Path, **env: str) -> subprocess.Popen[str]:
    """errdex started as a user starts it: one that hears Ctrl-C (SIGINT) even when these tests run as a
    background job, whose shell made it ignore SIGINT (a setting every child would otherwise inherit)."""
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    return subprocess.Popen([sys.executable, "-m", "errdex", *args], cwd=cwd, env=errdex_env(**env), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_hear_ctrl_c if ignored else None)


def run(*args: str, cwd: Path, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "errdex", *args], cwd=cwd, env=errdex_env(**env), text=True,
                          capture_output=True, timeout=timeout)


def leftovers(*folders: Path) -> list[Path]:
    """errdex's temporary files and journals under these folders."""
    return sorted(p for folder in folders for p in folder.rglob(".*")
                  if p.name.endswith((".tmp", ".wal")) or p.name == ".errdex-journal.json")


def wait_until(condition: Callable[[], object], *, what: str, timeout: float = 10.0, every: float = 0.005) -> None:
    """Return as soon as ``condition()`` is true; fail the test, naming ``what`` was awaited, if it is still false
    after ``timeout`` seconds. The timeout only stops a hang: nothing is asserted about how long the wait took."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting, after {timeout:g} s, for {what}")
        time.sleep(every)  # a poll between two looks at the condition, not a guess at how long something takes


class _Hang(BaseException):
    """Raised by the alarm: not an Exception, so that no handler of errdex's own can swallow it."""


@contextmanager
def time_limit(seconds: float, *, what: str) -> Iterator[None]:
    """Fail the test if the block is still running after ``seconds``: a guard that stops a hang (an exponential
    blow-up, a wait that is never interrupted), set far beyond what the block needs; never a measure of speed.
    In the main thread only (it uses SIGALRM)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _Hang()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Hang:
        pytest.fail(f"{what}: still running after {seconds:g} s (a hang, not a slow machine)")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def growth(work: Callable[[int], object], size: int, *, factor: int = 4, tries: int = 2) -> float:
    """How many times longer ``work(factor * size)`` takes than ``work(size)`` (the best of ``tries`` each).

    A ratio, not a time: it is the same on a fast and a slow machine. Linear work gives about ``factor``,
    quadratic work ``factor ** 2``; assert it stays well under the latter."""

    def best(n: int) -> float:
        times = []
        for _ in range(tries):
            started = time.perf_counter()
            work(n)
            times.append(time.perf_counter() - started)
        return min(times)

    small = best(size)
    return best(factor * size) / max(small, 1e-4)
