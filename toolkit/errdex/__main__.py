"""``python -m errdex``: the command line, with compiled bytecode kept in errdex's cache folder when the
interpreter is told not to write it beside the sources (``PYTHONDONTWRITEBYTECODE``, ``-B``); without it every
start compiles every module again (about 0.15-0.3 s)."""

from __future__ import annotations

import os
import sys


def _bytecode_in_cache() -> None:
    """Keep bytecode under ``<cache>/pycache`` (the folder :func:`errdex.cache.cache_dir` names, found here without
    importing anything, so that every errdex module is compiled into it); nothing when it cannot be written."""
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return
    root = os.environ.get("ERRDEX_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "errdex")
    folder = os.path.join(os.path.abspath(root), "pycache")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return
    if os.access(folder, os.W_OK | os.X_OK):
        sys.pycache_prefix = folder
        sys.dont_write_bytecode = False


_bytecode_in_cache()

from errdex.cli import main  # noqa: E402  (after the bytecode folder is set, so the CLI's modules use it)

main()
