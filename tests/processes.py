"""Running errdex as a separate process, as a user would, for tests that kill it or run two at once; and
waiting for something another thread or process does, on the condition itself rather than a fixed sleep."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["ROOT", "errdex_env", "leftovers", "run", "start", "wait_until"]

ROOT = Path(__file__).resolve().parent.parent


def errdex_env(**extra: str) -> dict[str, str]:
    """This environment (the test's cache), with this checkout's toolkit first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "toolkit"), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def start(*args: str, cwd: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "errdex", *args], cwd=cwd, env=errdex_env(**env), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


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
