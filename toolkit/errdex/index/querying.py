"""Read-only SQL against an index, in a sandbox: no file but the index, bounded memory, spill, rows and time."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from errdex._duckdb import MEMORY_ENV, SPILL_ENV, connect, limits, mib
from errdex.errors import DataError, InputError, UsageError
from errdex.index.building import ensure_index, stored_metadata

__all__ = ["QUERY_MEMORY_BYTES", "QUERY_ROW_LIMIT", "QUERY_TIMEOUT_S", "QueryResult", "query"]


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    #: More rows than the limit: only the first ``limit`` are in ``rows``.
    truncated: bool = False


#: Settings of every connection that runs user SQL, beside the memory and spill limits of every connection errdex
#: opens (:mod:`errdex._duckdb`): the index file is all it can read, and the SQL cannot change them (DuckDB's
#: advice for untrusted SQL).
QUERY_CONFIG: dict[str, Any] = {
    "enable_external_access": False,  # no COPY TO, ATTACH, read_csv/read_text/glob of files, INSTALL, httpfs
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "threads": 2,
    "lock_configuration": True,  # no SET, RESET or PRAGMA that would undo the above
}
#: Memory a query may take beyond what the process held when it started, on top of DuckDB's ``memory_limit``.
#: That limit covers DuckDB's buffers only: a value built by one function (``repeat('x', 10^9)``) is allocated
#: outside it, so the process's address space is capped too while the query runs (where the system allows it).
QUERY_MEMORY_BYTES = 1024 << 20
#: Rows ``query`` returns unless told otherwise; 0 means every row.
QUERY_ROW_LIMIT = 10_000
#: Seconds a query may run unless told otherwise.
QUERY_TIMEOUT_S = 30.0


@contextmanager
def _memory_cap(extra: int) -> Iterator[None]:
    """Cap this process's address space at what it uses now plus ``extra`` bytes, until the block ends
    (allocations past it fail: DuckDB reports them as out of memory). Nothing is capped where the system
    cannot say how much the process uses, or where a tighter cap is already set."""
    try:
        import resource  # Unix only: elsewhere nothing is capped

        with open("/proc/self/statm", encoding="ascii") as statm:
            used = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError, IndexError):
        yield
        return
    cap = used + extra if hard == resource.RLIM_INFINITY else min(used + extra, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _existing_index(db: str | Path) -> Path:
    path = Path(db)
    if not path.exists():
        raise InputError(f"{path}: no such index (build one with 'errdex index --db {path}', "
                         "or leave --db out to use the cached one); nothing was created")
    if not path.is_file():
        raise InputError(f"{path}: not an index file")
    if "index_format" not in (stored_metadata(path) or {}):
        raise InputError(f"{path}: not an errdex index (build one with 'errdex index --db {path}')")
    return path


def query(sql: str, *, records: Sequence[str | Path] | None = None, db: str | Path | None = None,
          limit: int = QUERY_ROW_LIMIT, timeout: float | None = QUERY_TIMEOUT_S,
          prepare: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
          spill_limit: str | None = None) -> QueryResult:
    """Run user SQL against the index, read-only, with no access to anything but the index.

    The index at ``db`` must exist (a typo never creates a file); with
    ``records`` it is refreshed first when they changed. Without ``db`` the
    cached index is built or refreshed. At most ``limit`` rows are returned
    (0: all; ``truncated`` says when more were left), and a query running
    longer than ``timeout`` seconds is interrupted. ``prepare``: called with the connection before the
    query runs (to register functions, such as :func:`errdex.duckdb.register`'s). ``spill_limit``: the disk
    the query may spill to past its memory (a size: ``2GiB``, ``0`` for none; default: ``$ERRDEX_DUCKDB_SPILL``,
    else 1GiB); a query that needs more stops with a DataError.
    """
    if not sql.strip():
        raise UsageError("no SQL given (pass a statement, or - to read one from stdin)")
    if isinstance(limit, bool) or limit < 0:
        raise UsageError(f"limit must be a whole number from 0 (0: every row), not {limit!r}")
    if timeout is not None and not timeout > 0:
        raise UsageError(f"timeout must be a positive number of seconds, not {timeout!r}")
    memory, spill = limits(spill=spill_limit)  # a bad size is refused before any work
    if db is not None:
        path = _existing_index(db)
        if records is not None:
            path = ensure_index(records, db=path).path
    else:
        path = ensure_index(records).path
    try:
        con = connect(str(path), read_only=True, config=QUERY_CONFIG, spill=spill_limit)
    except duckdb.Error as exc:
        raise InputError(f"cannot open the index at {path}: {' '.join(str(exc).split())}") from exc
    if prepare is not None:
        prepare(con)
    timer = threading.Timer(timeout, con.interrupt) if timeout is not None else None
    try:
        if timer is not None:
            timer.daemon = True
            timer.start()
        with _memory_cap(memory + QUERY_MEMORY_BYTES):
            cursor = con.execute(sql)
            if not cursor.description:
                return QueryResult([], [])
            columns = [d[0] for d in cursor.description]
            rows = cursor.fetchall() if limit == 0 else cursor.fetchmany(limit + 1)
    except duckdb.InterruptException as exc:
        raise DataError(f"query stopped after {timeout:g} s (raise --timeout to let it run longer)") from exc
    except (duckdb.OutOfMemoryException, MemoryError) as exc:
        if "max_temp_directory_size" in str(exc):
            raise DataError(f"query stopped: it needs more than the {mib(memory)} of memory and {mib(spill)} of "
                            f"disk to spill to a query may use (raise --spill-limit or ${SPILL_ENV}, or select "
                            "fewer rows)") from exc
        allowed = memory + QUERY_MEMORY_BYTES if isinstance(exc, MemoryError) else memory  # the process's cap
        raise DataError(f"query stopped: it needs more than the {mib(allowed)} of memory a query may use (select "
                        f"fewer or smaller values, lower --limit, or raise ${MEMORY_ENV})") from exc
    except duckdb.Error as exc:
        message = " ".join(str(exc).split())
        if isinstance(exc, duckdb.PermissionException) or "configuration has been locked" in message:
            raise UsageError(f"query refused: {message} (errdex query reads the index and nothing else, "
                             "and cannot change settings)") from exc
        raise UsageError(f"query failed: {message}") from exc
    finally:
        if timer is not None:
            timer.cancel()
        con.close()
    truncated = bool(limit) and len(rows) > limit
    return QueryResult(columns, rows[:limit] if truncated else rows, truncated)
