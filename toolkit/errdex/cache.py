"""Where errdex keeps what it can rebuild: compiled pattern verdicts, indexes.

A cache only ever saves time. Every reader of a cache file treats a missing,
truncated or garbled entry as absent and rebuilds it; a cache folder that
cannot be used (a file in its place, a path under a file, no permission) is
bypassed with one warning line on stderr, and the work is done without it.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from errdex._files import clean_leftovers
from errdex.errors import os_reason
from errdex.terminal import safe

__all__ = ["Digest", "cache_dir", "read_marshal", "sha256", "usable_cache"]

_warned: set[str] = set()

#: Up to this many bytes :func:`sha256` uses the interpreter's own SHA-256; above it, OpenSSL's (faster per byte).
SMALL_HASH_BYTES = 1 << 16

_cleaned: set[str] = set()


def cache_dir() -> Path:
    """``$ERRDEX_CACHE_DIR``, else ``$XDG_CACHE_HOME/errdex``, else ``~/.cache/errdex``.

    The first time a process asks, the temporary files that killed runs left
    in the cache (and in its folders one level down) are removed.
    """
    explicit = os.environ.get("ERRDEX_CACHE_DIR")
    if explicit:
        root = Path(explicit)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = Path(base) / "errdex"
    if str(root) not in _cleaned:
        _cleaned.add(str(root))
        _clean(root)
    return root


def _clean(root: Path) -> None:
    clean_leftovers(root)
    try:
        folders = [entry.path for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for folder in folders:
        clean_leftovers(Path(folder))


def usable_cache(name: str = "") -> Path | None:
    """The cache folder ``name`` (created when missing), or None, after one warning, when it cannot be used."""
    folder = cache_dir() / name if name else cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError("not writable")
        return folder
    except OSError as exc:
        key = str(cache_dir())
        if key not in _warned:
            _warned.add(key)
            reason = os_reason(exc)
            sys.stderr.write(safe(f"errdex: warning: the cache folder {folder} cannot be used ({reason}); "
                                  f"working without a cache", newlines=False) + "\n")
        return None


def read_marshal(path: Path) -> Any:
    """The value of a cache file in Python's ``marshal`` format, read with the cyclic garbage collector paused.

    A large entry (the views of 100,000 records, a matcher's plan) is a million small objects: created with the
    collector running, each generation's collection walks every one created before it, which doubled the time
    of a cached start. What marshal builds holds no reference cycle, so nothing is left for the collector.
    Raises what reading or ``marshal.loads`` raise (OSError, ValueError, EOFError, TypeError).
    """
    data = path.read_bytes()
    paused = gc.isenabled()
    gc.disable()
    try:
        return marshal.loads(data)
    finally:
        if paused:
            gc.enable()


class Digest(Protocol):
    """What :func:`sha256` gives: the part of a hashlib object errdex reads."""

    def hexdigest(self) -> str: ...

    def digest(self) -> bytes: ...


def _builtin_sha256() -> Callable[[bytes], Digest] | None:
    """The interpreter's own SHA-256 (``_sha256`` on 3.11, ``_sha2`` from 3.12), or None when it has none."""
    for module in ("_sha256", "_sha2"):
        with contextlib.suppress(ImportError):
            found: Callable[[bytes], Digest] = importlib.import_module(module).sha256
            return found
    return None


def sha256(data: bytes) -> Digest:
    """``hashlib.sha256(data)``: the same digest, without loading :mod:`hashlib` for the small keys every start
    hashes (hashlib loads OpenSSL's library, about 2 ms of a 50 ms start; the builtin module takes 0.2 ms)."""
    if len(data) <= SMALL_HASH_BYTES:
        small = _builtin_sha256()
        if small is not None:
            return small(data)
    import hashlib  # for large data only, where OpenSSL's speed per byte repays its load (start-up time)

    return hashlib.sha256(data)
