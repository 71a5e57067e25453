"""Writing files so that a crash never leaves a half-written one, nor a half-made change of many files.

Every temporary file errdex makes is named so it can be told apart and its
owner found: ``.NAME.PID-XXXXXXXX.tmp`` (beside NAME, by :func:`write_atomic`
and :func:`stage`) and ``.NAME.PID.tmp`` / ``.NAME.PID.tmp.wal`` (a DuckDB
index being built). :func:`clean_leftovers` removes the ones whose process is
gone (killed before it could clean up), and never anything else. A scratch
folder in the system's temporary folder is ``errdex-KIND-PID-XXXXXXXX``
(:func:`scratch`), and the next one of its kind removes what dead processes left.

A change of many files (a release, a migration, a sync) is all or nothing with
:class:`errdex._journal.Change`, which stages its files here.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from errdex.errors import ConfigError, ErrdexError, UsageError, from_oserror

__all__ = ["alive", "clean_leftovers", "crash_point", "make_scratch", "read_regular", "replace_marked", "replacing",
           "rewrite_marked", "scratch", "stage", "write_atomic"]

_TEMP = re.compile(r"^\..+\.(?P<pid>[0-9]+)(?:-[a-z0-9_]{8}\.tmp|\.tmp|\.tmp\.wal)$")
_SCRATCH = re.compile(r"^errdex-(?P<kind>[a-z]+)-(?P<pid>[0-9]+)-[a-z0-9_]+$")
_OLD_TEMP = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")  # before the owner's pid was in the name
_OLD_AGE_S = 3600.0


def read_regular(path: Path, *, limit: int, error: type[ErrdexError], what: str) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes, or ``error`` saying why not: a FIFO or a
    device (``/dev/zero``) is refused at once instead of waited on or read forever. ``what`` names the file in
    the size message ("a plan")."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not wait for a writer
    except OSError as exc:
        raise from_oserror(exc, path, action="read", error=error) from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: not a regular file")
        if info.st_size > limit:
            raise error(f"{path}: file is {info.st_size:,} bytes; {what} holds at most {limit:,} bytes")
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise from_oserror(exc, path, action="read", error=error) from exc
    if len(data) > limit:  # grew while read
        raise error(f"{path}: file is over {limit:,} bytes; {what} holds at most {limit:,} bytes")
    return data



def read_toml(path: Path, *, limit: int, what: str) -> dict[str, Any]:
    """The TOML table in ``path`` (read as :func:`read_regular` reads, a UTF-8 BOM allowed, as Windows editors
    write it), or a :class:`ConfigError` of one line naming the file: not UTF-8, not TOML, nested too deep."""
    import tomllib  # here: start-up time (a cached match or explain reads no configuration file)

    raw = read_regular(path, limit=limit, error=ConfigError, what=what)
    try:
        return tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start + 1}); save it as UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path}: not valid TOML: nested too deep") from exc

def crash_point(name: str) -> None:
    """Die here as ``kill -9`` would when ``$ERRDEX_CRASH_AT`` names this point (for crash tests); with
    ``$ERRDEX_CRASH_SIGNAL`` set to ``TERM``, ``INT`` or ``HUP``, receive that signal here instead, as from a
    ``kill`` that can be caught."""
    if os.environ.get("ERRDEX_CRASH_AT") == name:
        import signal  # only in crash tests (start-up time)

        chosen = os.environ.get("ERRDEX_CRASH_SIGNAL", "KILL")
        os.kill(os.getpid(), getattr(signal, f"SIG{chosen}") if chosen in ("TERM", "INT", "HUP") else signal.SIGKILL)


def refuse_special(path: Path) -> None:
    """Refuse to replace ``path`` when it is a device, a FIFO or a socket: a write through a temporary file and a
    rename would put a regular file in its place (``--output /dev/null`` run as root replaced /dev/null)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode)):
        raise UsageError(f"{path} is not a regular file (a device, FIFO or socket); errdex replaces the files it "
                         "writes, so name a file (or '-' for stdout where a command takes it)")


def _temp_beside(path: Path) -> tuple[int, str]:
    import tempfile  # here: start-up time (with random and shutil, ~3 ms; a cached start writes nothing)

    refuse_special(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent)
    fcntl.flock(fd, fcntl.LOCK_EX)  # held while this process writes it: a cleaner leaves it alone
    return fd, tmp


def _fill(fd: int, tmp: str, path: Path, data: bytes, durable: bool = True) -> None:
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
    except OSError as exc:
        if exc.filename is None:  # a write to a descriptor names no file: name the one being written
            exc.filename = str(path)
        raise
    try:
        os.chmod(tmp, path.stat().st_mode & 0o777)
    except OSError:
        os.chmod(tmp, 0o644)


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write through a temporary file in the same folder, flushed to disk, then a rename. ``durable=False``: not
    waited for on disk (a cache, which is checked when read and rebuilt when a crash left it damaged)."""
    fd, tmp = _temp_beside(path)
    try:
        _fill(fd, tmp, path, data, durable)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextmanager
def replacing(target: Path, *, companions: Sequence[str] = ()) -> Iterator[Path]:
    """A temporary path beside ``target`` for the block to write (by any means: a DuckDB file, a Parquet export),
    renamed over ``target`` when the block ends without an error.

    The path is ``.NAME.PID.tmp`` (what :func:`clean_leftovers` recognises once its process is gone); it and its
    ``companions`` (suffixes added to its name, e.g. DuckDB's ``.wal``) are removed before the block and after
    it, whatever happened. OSErrors are the caller's to translate (it knows what it was writing).
    """
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    leftovers = [tmp, *(tmp.with_name(tmp.name + suffix) for suffix in companions)]
    try:
        for leftover in leftovers:
            leftover.unlink(missing_ok=True)
        yield tmp
        os.replace(tmp, target)
    finally:
        for leftover in leftovers:
            try:
                leftover.unlink(missing_ok=True)
            except OSError:
                pass


def stage(path: Path, data: bytes) -> Path:
    """A temporary file beside ``path`` holding ``data``, flushed to disk; the rename is the caller's."""
    fd, tmp = _temp_beside(path)
    try:
        _fill(fd, tmp, path, data)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return Path(tmp)


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (this one does)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError as exc:  # EPERM: it exists, owned by someone else
        return exc.errno != errno.ESRCH
    return True


def _unowned(path: Path) -> bool:
    """Nobody holds the file's lock (a writer holds it while it writes)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _leftover(entry: os.DirEntry[str]) -> bool:
    if not entry.is_file(follow_symlinks=False):
        return False
    found = _TEMP.match(entry.name)
    if found is not None:
        return not alive(int(found["pid"])) and _unowned(Path(entry.path))
    if _OLD_TEMP.match(entry.name):
        try:
            old = time.time() - entry.stat(follow_symlinks=False).st_mtime > _OLD_AGE_S
        except OSError:
            return False
        return old and _unowned(Path(entry.path))
    return False


def _clean_scratch(root: Path, kind: str) -> None:
    """Remove the scratch folders of ``kind`` that processes now gone left in ``root``: this user's own folders
    only, never through a link."""
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    uid = os.getuid()
    for entry in entries:
        found = _SCRATCH.match(entry.name)
        if found is None or found["kind"] != kind or alive(int(found["pid"])):
            continue
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == uid:
                import shutil  # on first use: most runs make no scratch folder (start-up time)
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            pass


def make_scratch(kind: str) -> Path:
    """A new private folder of this process in the system's temporary folder, ``errdex-KIND-PID-XXXXXXXX``,
    for work that does not belong beside the user's files (a bundle read from stdin, an index with no cache);
    what processes killed before they could remove theirs left of the same kind is removed first. The caller
    removes it (:func:`scratch` does)."""
    import tempfile  # on first use (start-up time)
    root = Path(tempfile.gettempdir())
    _clean_scratch(root, kind)
    return Path(tempfile.mkdtemp(prefix=f"errdex-{kind}-{os.getpid()}-", dir=root))


@contextmanager
def scratch(kind: str) -> Iterator[Path]:
    """:func:`make_scratch`, removed with what it holds when the block ends."""
    folder = make_scratch(kind)
    try:
        yield folder
    finally:
        import shutil
        shutil.rmtree(folder, ignore_errors=True)


def clean_leftovers(folder: Path, *, recursive: bool = False, keep: frozenset[str] = frozenset()) -> list[Path]:
    """Remove the temporary files of dead errdex processes in ``folder`` (and below it); what was removed.

    Symbolic links are never followed, and no other file is touched; ``keep``
    names paths to leave alone (those a journal still needs).
    """
    removed: list[Path] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if recursive and entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.path not in keep and _leftover(entry):
                try:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
                except OSError:
                    pass
    return removed


def replace_marked(text: str, start_marker: str, end_marker: str, body: str) -> str:
    """``text`` with what lies between the two markers replaced by ``body`` (a generated README block)."""
    start, end = text.find(start_marker), text.find(end_marker)
    if start < 0 or end < start:
        raise ValueError(f"the README has no {start_marker} ... {end_marker} block")
    return f"{text[: start + len(start_marker)]}\n{body}{text[end:]}"


def rewrite_marked(path: Path, start_marker: str, end_marker: str, body: str, *, check: bool, stale: str) -> int:
    """Write ``body`` between the markers of the file at ``path`` (atomically, only when it differs); with
    ``check`` write nothing and, when the block is stale, print ``stale`` to stderr. 0 when current or written,
    1 when ``check`` found it stale."""
    current = path.read_text(encoding="utf-8")
    wanted = replace_marked(current, start_marker, end_marker, body)
    if wanted == current:
        return 0
    if check:
        print(stale, file=sys.stderr)
        return 1
    write_atomic(path, wanted.encode("utf-8"))
    return 0
