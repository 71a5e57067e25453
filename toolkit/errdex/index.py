"""The DuckDB index of a dataset: records and their lists in documented tables.

Tables (one row per record unless said otherwise):

- ``records``: every scalar field of a record in snake_case (``id``,
  ``slug``, ``repo``, ``error_message``, ``message_pattern``, ``error_class``,
  ``severity``, ``http_status``, ``file_path``, ``line_number``, ...), plus
  ``dataset_version``, ``source_path`` (the file it was read from),
  ``pattern_re2`` (the pattern as RE2/DuckDB runs it), ``literal_chars`` and
  ``variable_parts`` (the ranking keys: more literal characters first, then
  fewer variable parts).
- ``solutions`` and ``prevention_tips``: ``record_id``, ``position`` (1-based), ``text``.
- ``tags``: ``record_id``, ``position``, ``tag``.
- ``scenarios``: ``record_id``, ``position``, ``scenario_id``, ``summary``,
  ``operation``, ``outcome``, ``error_class``, ``definition`` (the scenario as JSON).
- ``metadata``: ``key``, ``value`` with ``dataset_version``, ``content_hash``,
  ``errdex_version``, ``index_format``, ``built_at`` and ``record_count``.

The database is written to a temporary file next to its target and renamed,
so a crash never leaves a broken index. ``ensure_index`` rebuilds it only
when the records' content hash, errdex's version or the index format changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

from errdex import patterns
from errdex._files import clean_leftovers, crash_point, refuse_special
from errdex._version import __version__
from errdex.cache import usable_cache
from errdex.errors import DataError, InputError, UsageError
from errdex.records.duplicates import first_duplicate
from errdex.records.loader import LoadedRecord, load_records
from errdex.records.sources import bundled_records_dir

__all__ = ["INDEX_FORMAT", "IndexInfo", "QueryResult", "build_index", "content_hash", "ensure_index", "query"]

INDEX_FORMAT = 5

_SCALARS = [
    ("id", "VARCHAR PRIMARY KEY"), ("slug", "VARCHAR"), ("repo", "VARCHAR"), ("errorCode", "VARCHAR"),
    ("errorMessage", "VARCHAR"), ("messagePattern", "VARCHAR"), ("errorType", "VARCHAR"),
    ("errorClass", "VARCHAR"), ("httpStatus", "INTEGER"), ("severity", "VARCHAR"), ("filePath", "VARCHAR"),
    ("lineNumber", "INTEGER"), ("sourceCode", "VARCHAR"), ("sourceCodeStart", "INTEGER"),
    ("sourceCodeEnd", "INTEGER"), ("githubUrl", "VARCHAR"), ("documentation", "VARCHAR"),
    ("triggerScenarios", "VARCHAR"), ("commonSituations", "VARCHAR"), ("exampleFix", "VARCHAR"),
    ("handlingStrategy", "VARCHAR"), ("validationCode", "VARCHAR"), ("typeGuard", "VARCHAR"),
    ("tryCatchPattern", "VARCHAR"), ("backgroundTag", "VARCHAR"), ("analyzedSha", "VARCHAR"),
    ("analyzedAt", "VARCHAR"), ("contentChangedAt", "VARCHAR"), ("schemaVersion", "INTEGER"),
    ("status", "VARCHAR"), ("statusReason", "VARCHAR"), ("supersededBy", "VARCHAR"),
]
_EXTRA = [
    ("dataset_version", "VARCHAR"), ("source_path", "VARCHAR"), ("pattern_re2", "VARCHAR"),
    ("literal_chars", "INTEGER"), ("variable_parts", "INTEGER"), ("group_count", "INTEGER"),
    ("prefilter", "VARCHAR"), ("key_word", "VARCHAR"),
]
_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]+(?![A-Za-z0-9_])")
#: DuckDB's regexp_extract reaches groups 1-9 only: errdex_match returns at most nine groups.
SQL_MAX_GROUPS = 9


def _key_word(literals: list[str]) -> str | None:
    """The longest word that stands whole inside a literal: every matching line has it as a token."""
    words = [w for literal in literals for w in _inner_words(literal)]
    return max(words, key=lambda w: (len(w), w)) if words else None


def _inner_words(literal: str) -> list[str]:
    found = []
    for match in _WORD.finditer(literal):
        if match.start() > 0 and match.end() < len(literal):
            found.append(match.group())
    return found


def _match_macro(max_groups: int) -> str:
    extracts = ", ".join(f"regexp_extract(line, r.pattern_re2, {i})" for i in range(1, max_groups + 1))
    groups = f"[{extracts}][1:least(r.group_count, {max_groups})]"
    return f"""
CREATE MACRO errdex_match(line) AS TABLE
SELECT r.id AS record_id, r.slug, r.repo, r.error_class, r.severity,
       r.literal_chars * 1000 - r.variable_parts AS score,
       {groups} AS groups,
       row_number() OVER (ORDER BY r.literal_chars DESC, r.variable_parts, r.id) AS rank
FROM records r
WHERE r.pattern_re2 IS NOT NULL
  AND r.status = 'active'
  AND (r.key_word IS NULL
       OR r.key_word IN (SELECT unnest(regexp_split_to_array(line, '[^A-Za-z0-9_]+'))))
  AND contains(line, r.prefilter)
  AND regexp_matches(line, r.pattern_re2)
ORDER BY rank
"""


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


@dataclass(frozen=True)
class IndexInfo:
    """Where an index is and what it holds."""

    path: Path
    content_hash: str
    record_count: int
    rebuilt: bool


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    #: More rows than the limit: only the first ``limit`` are in ``rows``.
    truncated: bool = False


def content_hash(records: Sequence[LoadedRecord]) -> str:
    """SHA-256 over the canonical JSON of every record and its dataset version, in id order."""
    digest = hashlib.sha256()
    for item in sorted(records, key=lambda r: str(r.record.get("id"))):
        digest.update(json.dumps([item.record, item.dataset_version], sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def _columns(records: Sequence[LoadedRecord]) -> dict[str, list[Any]]:
    columns: dict[str, list[Any]] = {name: [] for name, _ in _SCALARS}
    columns.update({name: [] for name, _ in _EXTRA})
    for item in records:
        record = item.record
        for name, _ in _SCALARS:
            columns[name].append(record.get(name, "active" if name == "status" else None))
        pattern = patterns.normalize_escapes(record["messagePattern"])  # as the CLI matcher reads it
        portable = patterns.refusal(pattern) is None  # the CLI matcher's rule
        every_line = portable and patterns.matches_every_line(pattern)  # matched on every line, as the CLI does
        columns["dataset_version"].append(item.dataset_version)
        columns["source_path"].append(item.path)
        columns["pattern_re2"].append(patterns.to_re2(pattern, allow_empty=every_line) if portable else None)
        columns["literal_chars"].append(patterns.literal_chars(pattern) if portable else 0)
        columns["variable_parts"].append(patterns.variable_parts(pattern) if portable else 0)
        literals = patterns.required_literals(pattern) if portable and not every_line else []
        columns["group_count"].append(patterns.group_count(pattern) if portable else 0)
        columns["prefilter"].append(max(literals, key=len) if literals else "")
        columns["key_word"].append(_key_word(literals))
    return columns


def _insert(con: duckdb.DuckDBPyConnection, table: str, columns: dict[str, list[Any]]) -> None:
    names = list(columns)
    if not columns[names[0]]:
        return
    selects = ", ".join(f"unnest(${i + 1}) AS c{i}" for i in range(len(names)))
    con.execute(f"INSERT INTO {table} SELECT * FROM (SELECT {selects})", [columns[n] for n in names])


def _write(con: duckdb.DuckDBPyConnection, records: Sequence[LoadedRecord], digest: str) -> None:
    definitions = ", ".join(f"{_snake(name)} {kind}" for name, kind in [*_SCALARS, *_EXTRA])
    con.execute(f"CREATE TABLE records ({definitions})")
    con.execute("CREATE TABLE solutions (record_id VARCHAR, position INTEGER, text VARCHAR)")
    con.execute("CREATE TABLE prevention_tips (record_id VARCHAR, position INTEGER, text VARCHAR)")
    con.execute("CREATE TABLE tags (record_id VARCHAR, position INTEGER, tag VARCHAR)")
    con.execute(
        "CREATE TABLE scenarios (record_id VARCHAR, position INTEGER, scenario_id VARCHAR, summary VARCHAR, "
        "operation VARCHAR, outcome VARCHAR, error_class VARCHAR, definition JSON)"
    )
    con.execute("CREATE TABLE metadata (key VARCHAR PRIMARY KEY, value VARCHAR)")
    _insert(con, "records", _columns(records))
    lists: dict[str, dict[str, list[Any]]] = {
        name: {"record_id": [], "position": [], "value": []} for name in ("solutions", "preventionTips", "tags")
    }
    scenario_rows: dict[str, list[Any]] = {k: [] for k in ("r", "p", "s", "m", "o", "u", "e", "d")}
    for item in records:
        record = item.record
        for name, table in lists.items():
            for position, value in enumerate(record.get(name) or (), start=1):
                table["record_id"].append(record["id"])
                table["position"].append(position)
                table["value"].append(value)
        for position, scenario in enumerate(record.get("scenarios") or (), start=1):
            expect = scenario.get("expect", {})
            for key, value in zip(
                scenario_rows,
                (record["id"], position, scenario.get("id"), scenario.get("summary"),
                 scenario.get("call", {}).get("operation"), expect.get("outcome"), expect.get("errorClass"),
                 json.dumps(scenario, ensure_ascii=False)),
            ):
                scenario_rows[key].append(value)
    _insert(con, "solutions", lists["solutions"])
    _insert(con, "prevention_tips", lists["preventionTips"])
    _insert(con, "tags", lists["tags"])
    _insert(con, "scenarios", scenario_rows)
    versions = sorted(v for v in (r.dataset_version for r in records) if v)
    metadata = {
        "dataset_version": versions[-1] if versions else "",
        "content_hash": digest,
        "errdex_version": __version__,
        "index_format": str(INDEX_FORMAT),
        "built_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "record_count": str(len(records)),
    }
    _insert(con, "metadata", {"key": list(metadata), "value": list(metadata.values())})
    con.execute(_match_macro(SQL_MAX_GROUPS))


def build_index(records: Sequence[str | Path] | None = None, *, db: str | Path | None = None,
                loaded: Sequence[LoadedRecord] | None = None) -> IndexInfo:
    """Build the index of the records into ``db`` (default: the per-user cache), atomically."""
    items = list(loaded) if loaded is not None else load_records(records)
    target = Path(db) if db is not None else default_index_path(records)
    return _build_at(target, items, content_hash(items), named=db is not None)


def _build_at(target: Path, items: Sequence[LoadedRecord], digest: str, *, named: bool,
              reuse: bool = False) -> IndexInfo:
    """Build the index at ``target``; ``named``: a file the user named, replaced only when it is an index
    (a damaged cached index is errdex's own and is simply rebuilt); ``reuse``: keep an index that another run
    built fresh while this one waited for the lock."""
    refuse_special(target)
    clash = first_duplicate(items, lambda item: str(item.record["id"]))
    if clash is not None:
        raise DataError(f"record id {clash[0].record['id']!r} appears twice; run 'errdex validate'")
    if named:
        _refuse_foreign(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the index at {target}: {(exc.strerror or str(exc)).lower()}") from exc
    with _build_lock(target):
        if reuse and _fresh(target, digest):  # another run built it while this one waited
            return IndexInfo(target, digest, len(items), False)
        if named:
            _refuse_foreign(target)  # again, now that no other run can be writing it
        _build(target, items, digest)
    return IndexInfo(target, digest, len(items), True)


def _refuse_foreign(target: Path) -> None:
    """InputError when ``target`` holds something other than an errdex index (a database of the user's, any
    other file): building the index there would destroy it. Missing and empty files are fine."""
    try:
        info = target.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"cannot write the index at {target}: {(exc.strerror or str(exc)).lower()}") from exc
    if not target.is_file():
        raise InputError(f"{target}: not a file; choose a file name for the index")
    if info.st_size and "index_format" not in (_stored(target) or {}):
        raise InputError(f"{target}: exists and is not an errdex index; nothing was written "
                         "(remove it, or choose another --db; records to index go in --records)")


#: How long an index build waits for another run building the same index.
INDEX_LOCK_WAIT_S = 120.0


def _build_lock(target: Path) -> Any:
    """The lock two runs building the same index file share (the second waits, then finds it fresh)."""
    from errdex._locks import hold

    return hold(target.with_name(f".{target.name}.lock"), what="index build", wait=INDEX_LOCK_WAIT_S)


def _build(target: Path, items: Sequence[LoadedRecord], digest: str) -> None:
    clean_leftovers(target.parent)  # the .tmp and .wal of builds that were killed
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
        leftover.unlink(missing_ok=True)
    try:
        con = duckdb.connect(str(tmp))
        try:
            _write(con, items, digest)
            crash_point("index:written")
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.replace(tmp, target)
    except duckdb.Error as exc:
        raise DataError(f"cannot build the index at {target}: {exc}") from exc
    except OSError as exc:
        raise InputError(f"cannot write the index at {target}: {exc.strerror or exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
        tmp.with_name(tmp.name + ".wal").unlink(missing_ok=True)


def default_index_path(records: Sequence[str | Path] | None = None) -> Path:
    """The cached index of a set of record locations (one file per distinct set)."""
    locations = [str(Path(p).resolve()) for p in records] if records else [str(bundled_records_dir().resolve())]
    key = hashlib.sha256("\0".join(sorted(locations)).encode()).hexdigest()[:16]
    folder = usable_cache("index")
    if folder is None:  # no cache: an index for this run only
        folder = _scratch_folder()
    return folder / f"records-{key}.duckdb"


_SCRATCH: list[Path] = []


def _scratch_folder() -> Path:
    """A temporary folder removed when the process ends, for an index when the cache cannot be used."""
    if not _SCRATCH:
        import atexit
        import shutil
        import tempfile

        _SCRATCH.append(Path(tempfile.mkdtemp(prefix="errdex-index-")))
        atexit.register(shutil.rmtree, _SCRATCH[0], True)
    return _SCRATCH[0]


#: How an index is opened to read its metadata: a file of another kind (SQLite, ...) never loads an extension.
_PEEK_CONFIG: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def _stored(path: Path) -> dict[str, str] | None:
    try:
        con = duckdb.connect(str(path), read_only=True, config=_PEEK_CONFIG)
    except (duckdb.Error, OSError):
        return None
    try:
        return dict(con.execute("SELECT key, value FROM metadata").fetchall())
    except duckdb.Error:
        return None
    finally:
        con.close()


def ensure_index(records: Sequence[str | Path] | None = None, *, db: str | Path | None = None) -> IndexInfo:
    """The index of the records, rebuilt only when they (or errdex) changed since it was built."""
    items = load_records(records)
    target = Path(db) if db is not None else default_index_path(records)
    digest = content_hash(items)
    if _fresh(target, digest):
        return IndexInfo(target, digest, len(items), False)
    return _build_at(target, items, digest, named=db is not None, reuse=True)


def _fresh(target: Path, digest: str) -> bool:
    stored = _stored(target) if target.exists() else None
    return bool(stored) and stored.get("content_hash") == digest and stored.get("errdex_version") == __version__ \
        and stored.get("index_format") == str(INDEX_FORMAT)


#: Settings of every connection that runs user SQL: the index file is all it can read, and the SQL cannot
#: change them (DuckDB's advice for untrusted SQL).
QUERY_CONFIG: dict[str, Any] = {
    "enable_external_access": False,  # no COPY TO, ATTACH, read_csv/read_text/glob of files, INSTALL, httpfs
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "memory_limit": "512MB",
    "threads": 2,
    "lock_configuration": True,  # no SET, RESET or PRAGMA that would undo the above
}
#: Memory a query may take beyond what the process held when it started. DuckDB's ``memory_limit`` covers its
#: buffers only: a value built by one function (``repeat('x', 10^9)``) is allocated outside it, so the process's
#: address space is capped too while the query runs (where the system allows it).
QUERY_MEMORY_BYTES = 1536 << 20
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
        import resource

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
    if "index_format" not in (_stored(path) or {}):
        raise InputError(f"{path}: not an errdex index (build one with 'errdex index --db {path}')")
    return path


def query(sql: str, *, records: Sequence[str | Path] | None = None, db: str | Path | None = None,
          limit: int = QUERY_ROW_LIMIT, timeout: float | None = QUERY_TIMEOUT_S) -> QueryResult:
    """Run user SQL against the index, read-only, with no access to anything but the index.

    The index at ``db`` must exist (a typo never creates a file); with
    ``records`` it is refreshed first when they changed. Without ``db`` the
    cached index is built or refreshed. At most ``limit`` rows are returned
    (0: all; ``truncated`` says when more were left), and a query running
    longer than ``timeout`` seconds is interrupted.
    """
    if not sql.strip():
        raise UsageError("no SQL given (pass a statement, or - to read one from stdin)")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise UsageError(f"limit must be a whole number from 0 (0: every row), not {limit!r}")
    if timeout is not None and not timeout > 0:
        raise UsageError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if db is not None:
        path = _existing_index(db)
        if records is not None:
            path = ensure_index(records, db=path).path
    else:
        path = ensure_index(records).path
    try:
        con = duckdb.connect(str(path), read_only=True, config=QUERY_CONFIG)
    except duckdb.Error as exc:
        raise InputError(f"cannot open the index at {path}: {' '.join(str(exc).split())}") from exc
    timer = threading.Timer(timeout, con.interrupt) if timeout is not None else None
    try:
        if timer is not None:
            timer.daemon = True
            timer.start()
        with _memory_cap(QUERY_MEMORY_BYTES):
            cursor = con.execute(sql)
            if cursor is None or not cursor.description:
                return QueryResult([], [])
            columns = [d[0] for d in cursor.description]
            rows = cursor.fetchall() if limit == 0 else cursor.fetchmany(limit + 1)
    except duckdb.InterruptException as exc:
        raise DataError(f"query stopped after {timeout:g} s (raise --timeout to let it run longer)") from exc
    except (duckdb.OutOfMemoryException, MemoryError) as exc:
        raise DataError(f"query stopped: it needs more than the {QUERY_MEMORY_BYTES >> 20} MiB of memory a query "
                        "may use (select fewer or smaller values, or lower --limit)") from exc
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
