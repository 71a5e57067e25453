"""Loading records for the tools downstream of validation (index, matcher, site).

Unlike ``validate``, which reports every problem, loading refuses data it
cannot trust: the first unreadable document or record that does not conform
to its schema version raises :class:`~errdex.errors.DataError` naming the file,
line and column, and pointing at ``errdex validate`` for the full list.
"""

from __future__ import annotations

from collections.abc import Sequence
import hashlib
import marshal
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errdex._version import __version__
from errdex.errors import DataError
from errdex.records.sources import iter_documents, record_files

__all__ = ["LoadedRecord", "load_records", "load_records_cached"]


@dataclass(frozen=True)
class LoadedRecord:
    """A record that conforms to its schema version, with where it came from."""

    path: str
    record: dict[str, Any]
    dataset_version: str | None


def _fail(path: str, line: int, column: int, message: str) -> DataError:
    return DataError(f"{path}:{line}:{column}: {message} (run 'errdex validate' for every finding)")


def load_records(paths: Sequence[str | Path] | None = None) -> list[LoadedRecord]:
    """Every record in the given files, folders or bundles (default: the bundled dataset)."""
    import pydantic  # here, not at the top: a cached load never needs the models

    from errdex.records.jsontext import Locator
    from errdex.records.models import RECORD_MODELS

    loaded: list[LoadedRecord] = []
    for doc in iter_documents(paths):
        if doc.problems:
            problem = doc.problems[0]
            raise _fail(doc.path, problem.line, problem.column, problem.message)
        value = doc.value
        record = value.get("record") if isinstance(value, dict) and "record" in value else value
        prefix = "/record" if record is not value else ""
        if not isinstance(record, dict):
            raise _fail(doc.path, 1 + doc.parsed.line_offset, 1, "not a record envelope or record")
        model = RECORD_MODELS.get(record.get("schemaVersion"))  # type: ignore[arg-type]
        if model is None:
            raise _fail(doc.path, 1 + doc.parsed.line_offset, 1, f"unsupported schemaVersion {record.get('schemaVersion')!r}")
        try:
            model.model_validate(record)
        except pydantic.ValidationError as exc:
            error = exc.errors()[0]
            pointer = prefix + "".join(f"/{part}" for part in error["loc"])
            line, column = Locator(doc.parsed.text, doc.parsed.line_offset).locate(pointer)
            raise _fail(doc.path, line, column, f"{pointer}: {error['msg']}") from None
        dataset_version = value.get("datasetVersion") if record is not value else None
        loaded.append(LoadedRecord(doc.path, record, dataset_version if isinstance(dataset_version, str) else None))
    if not loaded:
        raise DataError("no records found")
    return loaded


def _fingerprint(files: list[Path]) -> str | None:
    digest = hashlib.sha256(f"{__version__}\0{sys.version}\0{os.getcwd()}".encode("utf-8", "surrogatepass"))
    for path in files:
        name = str(path)
        try:
            info = os.stat(name)
        except OSError:
            return None
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def load_records_cached(paths: Sequence[str | Path] | None = None) -> list[LoadedRecord]:
    """Like :func:`load_records`, but reuses the records loaded last time when no file changed.

    A file counts as changed when its size or modification time differs; the
    loaded records are kept as one file in the user's cache, in Python's
    ``marshal`` format (the fastest to read back; the key includes the Python
    version). Stdin is never cached.
    """
    from errdex._files import write_atomic
    from errdex.cache import cache_dir

    files = record_files(paths)
    fingerprint = _fingerprint(files) if files else None
    if fingerprint is None:
        return load_records(paths)
    target = cache_dir() / "records" / f"{fingerprint[:32]}.marshal"
    try:
        data = marshal.loads(target.read_bytes())
        if data.get("fingerprint") == fingerprint:
            return [LoadedRecord(path, record, version) for path, record, version in data["records"]]
    except (OSError, ValueError, EOFError, KeyError, TypeError, AttributeError):
        pass
    loaded = load_records(paths)
    payload = {"fingerprint": fingerprint, "records": [[r.path, r.record, r.dataset_version] for r in loaded]}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, marshal.dumps(payload))
    except OSError:
        pass  # a cache that cannot be written only costs time
    return loaded
