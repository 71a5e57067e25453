"""What the matching tests share: the seed record's message and errdex run in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import errdex

__all__ = ["PACKAGE_ROOT", "SEED_MESSAGE", "errdex_child"]

PACKAGE_ROOT = Path(errdex.__file__).resolve().parents[1]  # the toolkit under test
SEED_MESSAGE = "CreateOS process creation could not be confirmed; destroy the lease before reusing it."


def errdex_child(*args: str, stdin: int | None = None, setup: str = "") -> subprocess.Popen[bytes]:
    """errdex in a child process (``setup``: Python run first, e.g. to shorten a limit)."""
    code = f"{setup}\nfrom errdex.cli import main\nmain({list(args)!r})"
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    return subprocess.Popen([sys.executable, "-c", code], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
