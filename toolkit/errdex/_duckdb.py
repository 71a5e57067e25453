"""How errdex opens DuckDB: memory and spill to disk bounded, the spill in a folder errdex removes.

Left to itself DuckDB takes 80% of the memory, then spills up to 90% of the
free disk beside the database (``NAME.duckdb.tmp``: in the cache, for the
cached index) or in ``.tmp`` of the working folder (a database in memory),
and a process killed while it spills leaves it all there. Every connection
errdex opens (:func:`connect`) has a memory limit (:data:`MEMORY_DEFAULT`,
``$ERRDEX_DUCKDB_MEMORY``) and a spill limit (:data:`SPILL_DEFAULT`,
``$ERRDEX_DUCKDB_SPILL``; 0: never spill), and spills into a folder of its
own, ``spill/PID-N`` in the cache (in ``errdex-spill-UID`` of the system's
temporary folder when the cache cannot be used). DuckDB removes the folder when the connection
closes; the process removes what is left when it ends; and the first
connection of a process removes the folders of processes that are gone.
"""

from __future__ import annotations

import atexit
import itertools
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errdex._files import alive, make_scratch
from errdex.cache import usable_cache
from errdex.errors import ConfigError, address_space_limit, out_of_memory

if TYPE_CHECKING:
    import duckdb

__all__ = ["MEMORY_DEFAULT", "MEMORY_ENV", "SPILL_DEFAULT", "SPILL_ENV", "connect", "limits", "mib", "out_of_limits",
           "parse_size", "spill_folder"]

#: Memory a connection's buffers may take, unless ``$ERRDEX_DUCKDB_MEMORY`` says otherwise.
MEMORY_DEFAULT = "512MiB"
#: Disk a connection may spill to past its memory, unless ``$ERRDEX_DUCKDB_SPILL`` (or ``query --spill-limit``)
#: says otherwise.
SPILL_DEFAULT = "1GiB"
MEMORY_ENV = "ERRDEX_DUCKDB_MEMORY"
SPILL_ENV = "ERRDEX_DUCKDB_SPILL"
#: The least memory a connection is given (DuckDB cannot run a query in much less).
_MEMORY_FLOOR = 32 << 20
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$", re.IGNORECASE)
#: A spill folder: the owner's pid, then the connection's number in that process.
_FOLDER = re.compile(r"^(?P<pid>[0-9]+)-[0-9]+$")
#: How old a spill folder left beside a cached index by errdex before this module must be to be removed.
_OLD_AGE_S = 3600.0

#: Settings that bar changing others (temp_directory among them): set last, in this order.
_LATE = ("enable_external_access", "lock_configuration")
_numbers = itertools.count()
#: The spill folder of each cache this process used (a test changes caches), cleaned when first used.
_roots: dict[str, Path] = {}


def parse_size(text: str, *, what: str) -> int:
    """Bytes of a size such as ``512MiB``, ``2GB`` or ``0`` (units: B, KB, MB, GB, TB and KiB ... TiB); a
    ConfigError naming ``what`` for anything else."""
    found = _SIZE.match(text)
    unit = _UNITS.get(found[2].lower()) if found else None
    if found is None or unit is None:
        raise ConfigError(f"{what}: {text!r} is not a size (a number and a unit: 512MiB, 2GB, 0)")
    return int(float(found[1]) * unit)


def limits(*, spill: str | None = None) -> tuple[int, int]:
    """``(memory, spill)`` in bytes: ``spill`` if given, else the environment's, else the defaults."""
    memory = parse_size(os.environ.get(MEMORY_ENV) or MEMORY_DEFAULT, what=MEMORY_ENV)
    if memory < _MEMORY_FLOOR:
        raise ConfigError(f"{MEMORY_ENV}: at least {_MEMORY_FLOOR >> 20}MiB, not {os.environ.get(MEMORY_ENV)!r}")
    if spill is not None:
        return memory, parse_size(spill, what="spill limit")
    return memory, parse_size(os.environ.get(SPILL_ENV) or SPILL_DEFAULT, what=SPILL_ENV)


def spill_folder() -> Path:
    """A new folder name for one connection's spill (DuckDB makes it when it first spills). The first call of a
    process removes the spill of processes that are gone."""
    root = usable_cache("spill")
    key = str(root) if root is not None else f"temporary:{tempfile.gettempdir()}"
    if key not in _roots:
        if root is None:  # no cache: the user's own folder in the system's temporary folder
            root = _temporary_root()
        else:
            _clean_old_index_spill()
        _clean(root)
        atexit.register(_remove_own, root)
        _roots[key] = root
    return _roots[key] / f"{os.getpid()}-{next(_numbers)}"


def _temporary_root() -> Path:
    """``errdex-spill-UID`` in the system's temporary folder, made private to this user; a new folder of this
    process's own when that one is not the user's (another user's, a link)."""
    root = Path(tempfile.gettempdir()) / f"errdex-spill-{os.getuid()}"
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(root)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
            if info.st_mode & 0o077:
                os.chmod(root, 0o700)
            return root
    except OSError:
        pass
    own = make_scratch("spill")
    atexit.register(shutil.rmtree, own, True)
    return own


def _clean(root: Path) -> None:
    """Remove the spill folders of processes that are gone (never following a link)."""
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        found = _FOLDER.match(entry.name)
        if found and entry.is_dir(follow_symlinks=False) and not alive(int(found["pid"])):
            shutil.rmtree(entry.path, ignore_errors=True)


def _clean_old_index_spill() -> None:
    """The ``NAME.duckdb.tmp`` folders DuckDB made beside the cached index before errdex chose where it spills
    (an hour old: no run of that errdex is still using it)."""
    folder = usable_cache("index")
    if folder is None:
        return
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".duckdb.tmp") and e.is_dir(follow_symlinks=False)]
        old = [e.path for e in entries if time.time() - e.stat(follow_symlinks=False).st_mtime > _OLD_AGE_S]
    except OSError:
        return
    for path in old:
        shutil.rmtree(path, ignore_errors=True)


def _remove_own(root: Path) -> None:
    try:
        mine = [e.path for e in os.scandir(root) if e.name.startswith(f"{os.getpid()}-")]
    except OSError:
        return
    for path in mine:
        shutil.rmtree(path, ignore_errors=True)


def mib(size: int) -> str:
    """A size as messages give it."""
    return f"{size / (1 << 20):.0f} MiB"


def out_of_limits(exc: BaseException, *, spill: str | None = None) -> str | None:
    """DuckDB's out-of-memory error in one line: which limit the work needs more than, and how to raise it (its
    own text is ten lines of advice on settings errdex chooses); None for any other error."""
    import duckdb  # here: as in connect

    if not isinstance(exc, duckdb.OutOfMemoryException):
        return None
    if address_space_limit() is not None:  # the system's limit, not DuckDB's, is the one to raise
        return out_of_memory().removeprefix("out of memory: ")
    memory, spill_bytes = limits(spill=spill)
    if "max_temp_directory_size" in str(exc):
        return (f"it needs more than the {mib(memory)} of memory and {mib(spill_bytes)} of disk to spill to that "
                f"DuckDB may use here (raise ${SPILL_ENV})")
    return f"it needs more than the {mib(memory)} of memory that DuckDB may use here (raise ${MEMORY_ENV})"


def connect(database: str = ":memory:", *, read_only: bool = False, config: dict[str, Any] | None = None,
            spill: str | None = None) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` with the limits of :func:`limits` and a spill folder of its own (``config`` adds to
    them; ``spill`` overrides the spill limit). Raises what ``duckdb.connect`` raises, ConfigError for a
    limit that is not a size, and MemoryError when too little memory is left for DuckDB to start.

    ``enable_external_access`` and ``lock_configuration`` in ``config`` are set once the connection is open,
    in that order: given at the start, DuckDB may apply them before ``temp_directory`` and then refuses it.
    """
    import duckdb  # here: DuckDB is slow to import, and most commands never open it

    memory, spill_bytes = limits(spill=spill)
    early = {k: v for k, v in (config or {}).items() if k not in _LATE}
    settings = {"memory_limit": f"{memory}B", "max_temp_directory_size": f"{spill_bytes}B",
                "temp_directory": str(spill_folder()), **early}
    try:
        con = duckdb.connect(database, read_only=read_only, config=settings)
    except duckdb.OutOfMemoryException as exc:  # too little memory left even to start (ulimit -v)
        raise MemoryError(str(exc)) from exc
    try:
        for name in _LATE:
            if name in (config or {}):
                con.execute(f"SET {name} = {'true' if (config or {})[name] else 'false'}")
    except BaseException:
        con.close()
        raise
    return con
