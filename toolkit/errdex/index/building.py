"""Building an index file: all or nothing, locked, rebuilt only when what it was built from changed."""

from __future__ import annotations

import atexit
import hashlib
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from errdex._duckdb import connect, out_of_limits
from errdex._files import clean_leftovers, crash_point, make_scratch, refuse_special, replacing
from errdex._locks import hold
from errdex._version import __version__
from errdex.cache import usable_cache
from errdex.errors import DataError, InputError, from_oserror
from errdex.index.tables import INDEX_FORMAT, write_tables
from errdex.records.loader import LoadedRecord, load_records, refuse_duplicate_ids
from errdex.records.sources import bundled_records_dir

__all__ = ["IndexInfo", "build_index", "dataset_fingerprint", "default_index_path", "ensure_index"]


@dataclass(frozen=True)
class IndexInfo:
    """Where an index is and what it holds."""

    path: Path
    content_hash: str
    record_count: int
    rebuilt: bool




def dataset_fingerprint(records: Sequence[LoadedRecord]) -> str:
    """SHA-256 over the JSON of every record and its dataset version, in id order: what an index was built
    from (stored as its ``content_hash``; not a record's :func:`errdex.records.hashing.content_hash`)."""
    digest = hashlib.sha256()
    for item in sorted(records, key=lambda r: str(r.record.get("id"))):
        digest.update(json.dumps([item.record, item.dataset_version], sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def build_index(records: Sequence[str | Path] | None = None, *, db: str | Path | None = None,
                loaded: Sequence[LoadedRecord] | None = None) -> IndexInfo:
    """Build the index of the records into ``db`` (default: the per-user cache), atomically."""
    items = list(loaded) if loaded is not None else load_records(records)
    target = Path(db) if db is not None else default_index_path(records)
    return _build_at(target, items, dataset_fingerprint(items), named=db is not None)


def _build_at(target: Path, items: Sequence[LoadedRecord], digest: str, *, named: bool,
              reuse: bool = False) -> IndexInfo:
    """Build the index at ``target``; ``named``: a file the user named, replaced only when it is an index
    (a damaged cached index is errdex's own and is simply rebuilt); ``reuse``: keep an index that another run
    built fresh while this one waited for the lock."""
    refuse_special(target)
    refuse_duplicate_ids(items)
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
    if info.st_size and "index_format" not in (stored_metadata(target) or {}):
        raise InputError(f"{target}: exists and is not an errdex index; nothing was written "
                         "(remove it, or choose another --db; records to index go in --records)")


#: How long an index build waits for another run building the same index.
INDEX_LOCK_WAIT_S = 120.0


def _build_lock(target: Path) -> Any:
    """The lock two runs building the same index file share (the second waits, then finds it fresh)."""
    return hold(target.with_name(f".{target.name}.lock"), what="index build", wait=INDEX_LOCK_WAIT_S)


def _build(target: Path, items: Sequence[LoadedRecord], digest: str) -> None:
    clean_leftovers(target.parent)  # the .tmp and .wal of builds that were killed
    try:
        with replacing(target, companions=(".wal",)) as tmp:
            con = connect(str(tmp))
            try:
                write_tables(con, items, digest)
                crash_point("index:written")
                con.execute("CHECKPOINT")
            finally:
                con.close()
    except duckdb.Error as exc:
        reason = out_of_limits(exc) or " ".join(str(exc).split())
        raise DataError(f"cannot build the index at {target}: {reason}") from exc
    except OSError as exc:
        raise from_oserror(exc, target, action="write the index") from exc


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
        _SCRATCH.append(make_scratch("index"))
        atexit.register(shutil.rmtree, _SCRATCH[0], True)
    return _SCRATCH[0]


#: How an index is opened to read its metadata: a file of another kind (SQLite, ...) never loads an extension.
_PEEK_CONFIG: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def stored_metadata(path: Path) -> dict[str, str] | None:
    try:
        con = connect(str(path), read_only=True, config=_PEEK_CONFIG)
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
    digest = dataset_fingerprint(items)
    if _fresh(target, digest):
        return IndexInfo(target, digest, len(items), False)
    return _build_at(target, items, digest, named=db is not None, reuse=True)


def _fresh(target: Path, digest: str) -> bool:
    stored = stored_metadata(target) if target.exists() else None
    return stored is not None and bool(stored) and stored.get("content_hash") == digest \
        and stored.get("errdex_version") == __version__ and stored.get("index_format") == str(INDEX_FORMAT)
