"""Running git, the one way errdex reads a repository without a checkout (harvest, drift, validate --source).

Every call names the repository with ``-C``, trusts it whatever its owner (``safe.directory=*``: errdex only
reads) and keeps paths unquoted (``core.quotePath=false``), so that file names come back as they are.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from errdex.errors import InputError, UsageError, from_oserror

__all__ = ["run_git"]


def run_git(repo: Path, *args: str, check: bool = True, reader: str = "errdex") -> subprocess.CompletedProcess[bytes]:
    """``git -C repo ARGS``, its output captured; ``check``: a failure is an input error naming the repository
    and git's last line. ``reader`` names the command for the message when git is missing."""
    try:
        done = subprocess.run(["git", "-c", "safe.directory=*", "-c", "core.quotePath=false", "-C", str(repo), *args],
                              capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise UsageError(f"git is not installed ({reader} reads the repository through git)") from exc
    except OSError as exc:
        raise from_oserror(exc, repo, action="run git in") from exc
    if check and done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"{repo}: git {args[0]} failed: {lines[-1] if lines else done.returncode}")
    return done
