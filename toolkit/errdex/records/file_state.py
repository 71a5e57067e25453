"""Whether the record files changed since the loader cached them: a fingerprint of every file, and a manifest
that spares a large dataset one ``stat`` per file on each start.

The fingerprint hashes each record file's name, size and modification time.
Computing it costs a walk of the folders and a ``stat`` per file: about
0.6 s at 100,000 files. So for datasets of more than
:data:`FULL_CHECK_FILES` files, the cache also keeps a *manifest*: the
modification time of every folder walked, and the size and time of each
record file named directly (a bundle). While no folder's time changed, the
folder listings are the ones walked last time and the fingerprint is the one
stored. When a folder's time changed (a file added, removed or renamed, which
includes every editor that saves by writing a new file and renaming it), the
full check runs again: the walk, and the size and time of every file.

What is trusted: that editing a file of a large dataset in place changes its
folder's time. On most Linux filesystems it does not (only the file's time
changes); ``touch`` the folder after such an edit, or the cached records stay
in use. Datasets of at most :data:`FULL_CHECK_FILES` files are always fully
checked (a few milliseconds), so small edits are always seen. A folder whose
time is within :data:`RACY_NS` of the walk is not trusted (it may change
again within the filesystem's time granularity), and no manifest is kept.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from errdex._files import write_atomic
from errdex._version import __version__
from errdex.cache import sha256
from errdex.records.sources import record_files

__all__ = ["FULL_CHECK_FILES", "RACY_NS", "fingerprint_of", "records_fingerprint"]

#: Datasets with at most this many files are checked file by file on every start.
FULL_CHECK_FILES = 2000
#: A folder changed this recently (in ns) before the walk is not trusted to stay as walked.
RACY_NS = 2_000_000_000


def _stat_all(files: list[str]) -> list[os.stat_result] | None:
    """Each file's stat, or None when one is gone. (Threads were tried: with the GIL taken back after each
    stat they were slower, 0.67-0.92 s against 0.40 s for 100,000 files.)"""
    try:
        return [os.stat(name) for name in files]
    except OSError:
        return None


def fingerprint_of(files: list[str]) -> str | None:
    """A hash of each file's name, size and modification time (and of errdex, Python and the working folder);
    None when a file is gone."""
    infos = _stat_all(files)
    if infos is None:
        return None
    text = "".join(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\n" for name, info in zip(files, infos, strict=True))
    key = f"{__version__}\0{sys.version}\0{os.getcwd()}\n{text}"
    return sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _manifest_path(cache: Path, paths: Sequence[str | Path] | None) -> Path:
    key = "\0".join([__version__, sys.version, os.getcwd(), *(str(p) for p in paths or ())])
    return cache / f"{sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.manifest"


def _unchanged(manifest: Path) -> str | None:
    """The stored fingerprint when no folder or named file changed since the manifest was written, else None."""
    try:
        data = marshal.loads(manifest.read_bytes())
        folders, files, fingerprint = data["folders"], data["files"], data["fingerprint"]
        for name, mtime in folders:
            if os.stat(name).st_mtime_ns != mtime:
                return None
        for name, size, mtime in files:
            info = os.stat(name)
            if info.st_size != size or info.st_mtime_ns != mtime:
                return None
        return fingerprint if isinstance(fingerprint, str) else None
    except (OSError, ValueError, EOFError, KeyError, TypeError):
        return None


def _keep_manifest(manifest: Path, folders: list[str], named: list[str], fingerprint: str, started: int) -> None:
    """Write the manifest, unless a folder changed too close to the walk to be trusted."""
    try:
        folder_times = [(name, os.stat(name).st_mtime_ns) for name in folders]
        infos = [(name, os.stat(name)) for name in named]
    except OSError:
        return
    if any(mtime >= started - RACY_NS for _, mtime in folder_times):
        return
    files = [(name, info.st_size, info.st_mtime_ns) for name, info in infos]
    try:
        write_atomic(manifest, marshal.dumps({"folders": folder_times, "files": files, "fingerprint": fingerprint}),
                     durable=False)
    except OSError:
        pass  # a cache that cannot be written only costs time


def records_fingerprint(paths: Sequence[str | Path] | None, cache: Path | None) -> str | None:
    """The fingerprint of the record files the paths name (see the module's docstring for what is trusted);
    None when one is stdin or missing. ``cache``: the folder for the manifest (None: always the full check)."""
    manifest = _manifest_path(cache, paths) if cache is not None else None
    if manifest is not None:
        known = _unchanged(manifest)
        if known is not None:
            return known
    started = time.time_ns()
    folders: list[str] = []
    files = record_files(paths, folders=folders)
    if not files:
        return None
    fingerprint = fingerprint_of(files)
    if manifest is not None and fingerprint is not None and len(files) > FULL_CHECK_FILES:
        named = [str(p) for p in paths or () if not os.path.isdir(p)]
        _keep_manifest(manifest, folders, named, fingerprint, started)
    elif manifest is not None:
        with contextlib.suppress(OSError):  # a dataset that shrank to a size checked in full keeps none
            manifest.unlink()
    return fingerprint
