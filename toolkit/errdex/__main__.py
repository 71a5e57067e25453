"""``python -m errdex``: the command line, with compiled bytecode kept in errdex's cache folder when the
interpreter is told not to write it beside the sources (``PYTHONDONTWRITEBYTECODE``, ``-B``) and the install
did not compile it there (``.ci/setup`` does); without either, every start compiles every module again (about
0.15-0.3 s)."""

from __future__ import annotations

import os
import sys


def _compiled_beside_sources() -> bool:
    """Whether the install compiled errdex's bytecode beside its sources and it is current (checked on the
    modules every start imports). Python then reads it there, and the standard library's and the installed
    packages' too; a bytecode folder elsewhere would have all of them compiled again, 0.5 s for a first start."""
    import importlib.util  # imported already by ``-m``

    package = os.path.dirname(os.path.abspath(__file__))
    for source in (os.path.join(package, "__init__.py"), os.path.join(package, "cli", "__init__.py")):
        try:
            with open(importlib.util.cache_from_source(source), "rb") as handle:
                header = handle.read(16)
            info = os.stat(source)
        except (OSError, ValueError, NotImplementedError):
            return False
        # the header: magic, flags (0: checked by the source's time and size), source mtime, source size
        stamp = [(value & 0xFFFFFFFF).to_bytes(4, "little") for value in (int(info.st_mtime), info.st_size)]
        if header != b"".join([importlib.util.MAGIC_NUMBER, bytes(4), *stamp]):
            return False
    return True


def _bytecode_in_cache() -> None:
    """Keep bytecode under ``<cache>/pycache`` (the folder :func:`errdex.cache.cache_dir` names, found here without
    importing anything, so that every errdex module is compiled into it); nothing when it cannot be written, or
    when the install compiled it beside the sources (:func:`_compiled_beside_sources`)."""
    if not sys.dont_write_bytecode or sys.pycache_prefix or _compiled_beside_sources():
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
