"""Loading records for the tools downstream of validation (index, matcher, site).

Unlike ``validate``, which reports every problem, loading refuses data it
cannot trust: the first unreadable document or record that does not conform
to its schema version raises :class:`~errdex.errors.DataError` naming the file,
line and column, and pointing at ``errdex validate`` for the full list.
"""

from __future__ import annotations

import contextlib
import functools
import json
import marshal
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from errdex._files import replacing, write_atomic
from errdex.cache import read_marshal, sha256, usable_cache
from errdex.errors import DataError
from errdex.records.envelope import unwrap
from errdex.records.file_state import fingerprint_of, records_fingerprint
from errdex.records.sources import Document, iter_documents, walked_folders
from errdex.records.version_numbers import is_version_number, shown_version
from errdex.records.views import ABSENT, VIEW_FIELDS, Views, view_of
from errdex.records.vocabulary import RETIRED_STATUSES, is_retired

__all__ = [
    "VIEW_FIELDS",
    "LoadedRecord",
    "RecordStore",
    "checked_record",
    "iter_loaded",
    "load_record_store",
    "load_records",
    "model_problem",
    "refuse_duplicate_ids",
    "shown_version",
]


@dataclass(frozen=True)
class LoadedRecord:
    """A record that conforms to its own schema version, upgraded in memory (see ``versions.LOADED_AT_LEAST``),
    with where it came from.

    ``problem``: set only for a record loaded with ``partial=True`` that does not conform (what is wrong).
    """

    path: str
    record: dict[str, Any]
    dataset_version: str | None
    problem: str | None = None


def refuse_duplicate_ids(items: Iterable[LoadedRecord]) -> None:
    """Refuse two records of one id (what builds from records, an index, an export, a diff, would hide one of
    them), naming both files; ``validate`` reports every such clash (EDX102)."""
    from errdex.records.duplicates import first_duplicate  # only where records are read: a cached start is not

    clash = first_duplicate(items, lambda item: str(item.record["id"]))
    if clash is not None:
        later, earlier = clash
        raise DataError(f"record id {later.record['id']!r} appears twice ({earlier.path}, {later.path}); "
                        "run 'errdex validate'")


@functools.cache
def _checking() -> SimpleNamespace:
    """What checking a record needs, imported on its first use: a cached load never needs the models (pydantic)
    nor the JSON text locator (start-up time); imported once, not at each of 100,000 records (1.7 us each)."""
    import pydantic

    from errdex.records.jsontext import Locator, escape_pointer
    from errdex.records.models import ENVELOPE_MODELS, RECORD_MODELS

    return SimpleNamespace(ValidationError=pydantic.ValidationError, Locator=Locator, escape_pointer=escape_pointer,
                           ENVELOPE_MODELS=ENVELOPE_MODELS, RECORD_MODELS=RECORD_MODELS)


def _fail(path: str, line: int, column: int, message: str) -> DataError:
    return DataError(f"{path}:{line}:{column}: {message} (run 'errdex validate' for every finding)")


def checked_record(doc: Document) -> tuple[Any, dict[str, Any]]:
    """A document's value and its record, which conforms to its own schema version; else DataError naming
    the file, line and column."""
    lazy = _checking()
    if doc.problems:
        first = doc.problems[0]
        raise _fail(doc.path, first.line, first.column, first.message)
    value = doc.value
    record, prefix = unwrap(value)
    if not isinstance(record, dict):
        raise _fail(doc.path, 1 + doc.parsed.line_offset, 1, "not a record envelope or record")
    version = record.get("schemaVersion")
    if not isinstance(version, int) or not is_version_number(version) or lazy.RECORD_MODELS.get(version) is None:
        supported = ", ".join(map(str, sorted(lazy.RECORD_MODELS)))
        shown = ("missing" if "schemaVersion" not in record
                 else f"{shown_version(version)}, which errdex does not support")
        line, column = lazy.Locator(doc.parsed.text, doc.parsed.line_offset).locate(f"{prefix}/schemaVersion")
        raise _fail(doc.path, line, column, f"schemaVersion is {shown} (supported: {supported})")
    problem = model_problem(value if prefix else record, envelope=bool(prefix))
    if problem is not None:
        pointer = problem[0]
        line, column = lazy.Locator(doc.parsed.text, doc.parsed.line_offset).locate(pointer)
        raise _fail(doc.path, line, column, f"{pointer}: {problem[1]}")
    return value, record


def model_problem(value: dict[str, Any], *, envelope: bool = False) -> tuple[str, str] | None:
    """The first way a record (``envelope``: an envelope and its record) does not conform to the model of its
    schemaVersion, as (JSON pointer from the top of ``value``, message); None when it conforms (or has no
    supported schemaVersion)."""
    lazy = _checking()
    record = value.get("record") if envelope else value
    version = record.get("schemaVersion") if isinstance(record, dict) else None
    model = (lazy.ENVELOPE_MODELS if envelope else lazy.RECORD_MODELS).get(version)  # a non-version finds no model
    if model is None:
        return None
    try:
        model.model_validate(value)
    except lazy.ValidationError as exc:
        error = exc.errors()[0]
        pointer = "".join(f"/{lazy.escape_pointer(str(part))}" for part in error["loc"])
        given = error.get("input")
        if error["type"] == "int_type" and isinstance(given, float):
            return pointer, f"{given!r} is written as a decimal number; write an integer (e.g. {int(given)})" \
                if given.is_integer() else f"{given!r} is not an integer"
        if error["type"] == "string_unicode":
            return pointer, "the string is not valid Unicode (a lone surrogate); remove it"
        return pointer, str(error["msg"])
    return None


def _matchable(doc: Document) -> tuple[Any, dict[str, Any]] | None:
    """A non-conforming record that still has what matching needs (a string id and messagePattern), with the
    identifying fields it lacks filled in; None otherwise."""
    value = doc.value
    record, _ = unwrap(value)
    if not isinstance(record, dict):  # an envelope whose record is no object: the envelope is taken as the record
        record = value
    if doc.problems or not isinstance(record, dict):
        return None
    if not isinstance(record.get("id"), str) or not isinstance(record.get("messagePattern"), str):
        return None
    from errdex.records.slug import derive_slug  # only for a record that does not conform (start-up time)

    filled = dict(record)
    message = record.get("errorMessage") if isinstance(record.get("errorMessage"), str) else ""
    defaults = {"slug": derive_slug(message) if message else record["id"], "repo": "-", "errorClass": "Error",
                "severity": "error", "errorMessage": message or record["messagePattern"]}
    for name, default in defaults.items():
        if not isinstance(filled.get(name), str) or not filled[name]:
            filled[name] = default
    return value, filled


def load_records(paths: Sequence[str | Path] | None = None, *, partial: bool = False) -> list[LoadedRecord]:
    """Every record in the given files, folders or bundles (default: the bundled dataset), upgraded in memory.

    ``partial``: also keep records that do not conform but have a string ``id`` and ``messagePattern``
    (for matching while a record is being written), each with its ``problem``; others still raise.
    """
    loaded = list(iter_loaded(paths, partial=partial))
    if not loaded:
        raise DataError("no records found")
    return loaded


def iter_loaded(paths: Sequence[str | Path] | None = None, *, partial: bool = False,
                files: range | None = None, walks: dict[str, Any] | None = None) -> Iterator[LoadedRecord]:
    """The records of :func:`load_records` one at a time (raising at the first that does not conform), so a
    caller that keeps only part of each holds one whole record at a time; an empty dataset yields nothing.
    ``files``: only those of the record files at these positions, ``walks``: the folders walked already
    (:func:`~errdex.records.sources.iter_documents`).
    """
    # start-up: a cached load never needs the models it imports
    from errdex.records.versions import loaded_form

    for doc in iter_documents(paths, files=files, walks=walks):
        problem = None
        try:
            value, record = checked_record(doc)
            record = loaded_form(record)
        except DataError as exc:
            kept = _matchable(doc) if partial else None
            if kept is None:
                raise
            (value, record), problem = kept, str(exc)
        dataset_version = value.get("datasetVersion") if record is not value and isinstance(value, dict) else None
        yield LoadedRecord(doc.path, record, dataset_version if isinstance(dataset_version, str) else None, problem)


# Kept importable here, where callers and tests found it before the manifest moved it.
_fingerprint = fingerprint_of


#: Bytes the record bodies are written a time (the file's own 4 KiB buffer made a system call of each record).
_WRITE_BUFFER = 1 << 20
#: Bump when the cached views' shape changes.
_VIEWS_FORMAT = 2
#: View fields that few distinct values fill: each value is kept once, so ``marshal`` writes the others as
#: references to it and reads back one string instead of one per record.
_FEW_VALUES = frozenset({"repo", "errorClass", "severity", "status"})


class RecordStore:
    """Loaded records: a small view of each (:data:`VIEW_FIELDS`) for matching, the whole record on demand.

    With many records, reading every whole record back costs seconds; a
    match needs only the view, and a person reads a handful of whole records.
    """

    def __init__(self, paths: list[str], views: Sequence[dict[str, Any]], versions: list[str | None],
                 fetch: Callable[[int], dict[str, Any]], problems: list[str] | None = None) -> None:
        self.paths = paths
        self.views = views
        self.dataset_versions = versions
        #: What is wrong with the records loaded although they do not conform (``partial=True``).
        self.problems = problems or []
        self._fetch = fetch
        self._full: dict[int, dict[str, Any]] = {}
        self._positions: dict[int, int] | None = None

    @classmethod
    def of(cls, loaded: Sequence[LoadedRecord]) -> RecordStore:
        """A store over records already in memory."""
        return cls([r.path for r in loaded], [view_of(r.record) for r in loaded], [r.dataset_version for r in loaded],
                   lambda position: loaded[position].record, [r.problem for r in loaded if r.problem])

    def __len__(self) -> int:
        return len(self.views)

    def full(self, position: int) -> dict[str, Any]:
        """The whole record at this position."""
        record = self._full.get(position)
        if record is None:
            record = self._full[position] = self._fetch(position)
        return record

    def unretired_views(self) -> Sequence[dict[str, Any]]:
        """The views of the records that are neither withdrawn nor superseded, in order; without a loop over the
        records when none is (the columns' set of statuses says so)."""
        if isinstance(self.views, Views):
            statuses = self.views.column("status")
            try:
                if not set(statuses).intersection(RETIRED_STATUSES):
                    return self.views
            except TypeError:  # a record loaded with partial=True may hold a list there
                pass
            return self.views.take([i for i, status in enumerate(statuses) if status not in RETIRED_STATUSES])
        return [v for v in self.views if not is_retired(v)]

    def full_of(self, view: dict[str, Any]) -> dict[str, Any]:
        """The whole record of one of this store's views."""
        if isinstance(self.views, Views):
            return self.full(self.views.position_of(view))
        if self._positions is None:
            self._positions = {id(v): i for i, v in enumerate(self.views)}
        return self.full(self._positions[id(view)])

    def loaded(self) -> list[LoadedRecord]:
        """Every whole record, with where it came from."""
        return [LoadedRecord(self.paths[i], self.full(i), self.dataset_versions[i]) for i in range(len(self))]


def _fetch_from(path: Path, offsets: list[int], views: Sequence[dict[str, Any]],
                reload: Callable[[], list[LoadedRecord]], entry: Sequence[Path]) -> Callable[[int], dict[str, Any]]:
    """Whole records read back from the cache; a damaged cache is removed (the next run rebuilds it) and the
    records are read again from their files."""
    fresh: list[LoadedRecord] = []

    def fetch(position: int) -> dict[str, Any]:
        if not fresh:
            offset, length = offsets[position], offsets[position + 1] - offsets[position]
            try:
                with open(path, "rb") as handle:
                    handle.seek(offset)
                    record = json.loads(handle.read(length))
                if isinstance(record, dict) and record.get("id") == views[position].get("id"):
                    return record
            except (OSError, ValueError, RecursionError):
                pass
            for stale in entry:
                with contextlib.suppress(OSError):
                    stale.unlink()
            fresh.extend(reload())
        if position >= len(fresh) or fresh[position].record.get("id") != views[position].get("id"):
            raise DataError(f"the record files changed while in use (the record at {views[position].get('id')!r}"
                            f" is not where it was); run the command again")
        return fresh[position].record
    return fetch


def load_record_store(paths: Sequence[str | Path] | None = None, *, partial: bool = False) -> RecordStore:
    """Like :func:`load_records`, as a :class:`RecordStore`; reuses the records loaded last time when no file changed.

    A file counts as changed when its size or modification time differs (for
    a large dataset, when its folder's time did: :mod:`.file_state`). The
    user's cache keeps, per set of record files, the views column by column
    (:class:`~errdex.records.views.Views`) with each record's place
    (Python's ``marshal`` format, the fastest to read back; the key includes
    the Python version) and the whole records as JSON, read one at a time
    when asked for. Stdin is never cached.
    """
    if paths and any(str(p) == "-" for p in paths):
        return RecordStore.of(load_records(paths, partial=partial))
    folder = usable_cache("records")
    fingerprint = records_fingerprint(paths, folder) if folder is not None else None
    if fingerprint is None or folder is None:
        return RecordStore.of(load_records(paths, partial=partial))
    fingerprint = sha256(f"{fingerprint}\0{partial}".encode()).hexdigest()
    index, bodies = folder / f"{fingerprint[:32]}.views", folder / f"{fingerprint[:32]}.records"
    try:
        store = _cached_store(read_marshal(index), fingerprint, index, bodies,
                              lambda: load_records(paths, partial=partial))
        if store is not None:
            return store
    except (OSError, ValueError, EOFError, KeyError, TypeError, IndexError, AttributeError):
        pass
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return _load_into_cache(paths, partial, index, bodies, fingerprint)
    except OSError:  # a cache that cannot be written only costs time
        return RecordStore.of(load_records(paths, partial=partial))
    except DataError:
        # Loaded in two halves, a problem of the second may show after one of the first that comes later in
        # order (a missing path named last): the load in one process raises the one a user is told first.
        load_records(paths, partial=partial)
        raise


def _cached_store(data: Any, fingerprint: str, index: Path, bodies: Path,
                  reload: Callable[[], list[LoadedRecord]]) -> RecordStore | None:
    """The store a cache entry holds, or None when it is for other files; ValueError (or a TypeError, KeyError...)
    when it is damaged. Checked column by column (a type's set, not a loop in Python over the records)."""
    if data["format"] != _VIEWS_FORMAT or data["fingerprint"] != fingerprint or bodies.stat().st_size != data["size"]:
        return None
    paths, columns, versions, offsets = data["columns"]
    size = len(paths)
    if not (type(columns) is dict and set(columns) <= set(VIEW_FIELDS) and len(versions) == size
            and len(offsets) == size + 1 and all(type(c) is list and len(c) == size for c in columns.values())
            and set(map(type, columns.get("id", (None,)))) == {str}
            and set(map(type, columns.get("messagePattern", (None,)))) == {str}):
        raise ValueError("a damaged cache entry")
    views = Views(columns)
    return RecordStore(paths, views, versions, _fetch_from(bodies, offsets, views, reload, (index, bodies)),
                       data.get("problems", []))


def _entries(paths: Sequence[str | Path] | None, partial: bool, files: range,
             walks: dict[str, Any]) -> Iterator[tuple[str, bytes, list[Any], str | None, str | None]]:
    """What the cache keeps of each record of these files: (path, the whole record as JSON, its view's values in
    :data:`VIEW_FIELDS` order, dataset version, problem)."""
    for item in iter_loaded(paths, partial=partial, files=files, walks=walks):
        yield (item.path, json.dumps(item.record).encode("ascii"),  # ASCII escapes keep even lone surrogates
               [item.record.get(name, ABSENT) for name in VIEW_FIELDS], item.dataset_version, item.problem)


def _load_into_cache(paths: Sequence[str | Path] | None, partial: bool, index: Path, bodies: Path,
                     fingerprint: str) -> RecordStore:
    """Load the records, writing each whole record to the cache as it comes and keeping only its view, so the
    first start at 100,000 records never holds every whole record at once; the store reads them back from the
    cache, as a cached start does."""
    from errdex.records.halves import paused_collector  # start-up: only a first load needs it

    with paused_collector():
        return _write_cache(paths, partial, index, bodies, fingerprint)


def _write_cache(paths: Sequence[str | Path] | None, partial: bool, index: Path, bodies: Path,
                 fingerprint: str) -> RecordStore:
    """The work of :func:`_load_into_cache`, with the collector paused."""
    from errdex.records.halves import in_two_halves  # start-up: only a first load needs it (and parallel, pickle)

    paths_: list[str] = []
    columns: dict[str, list[Any]] = {name: [] for name in VIEW_FIELDS}
    versions: list[str | None] = []
    offsets = [0]
    problems: list[str] = []
    once: dict[str, str] = {}
    with replacing(bodies) as tmp, open(tmp, "wb", buffering=_WRITE_BUFFER) as out:
        walks = walked_folders(paths)  # once, before the fork: both halves read the same listing
        for path, text, values, version, problem in in_two_halves(
                lambda files: _entries(paths, partial, files, walks), sum(len(w.files) for w in walks.values())):
            out.write(text)
            paths_.append(path)
            for (name, column), value in zip(columns.items(), values, strict=True):
                column.append(once.setdefault(value, value) if name in _FEW_VALUES and type(value) is str else value)
            versions.append(version)
            offsets.append(offsets[-1] + len(text))
            if problem:
                problems.append(problem)
        if not paths_:
            raise DataError("no records found")
    # The bodies first: the index names their size. Neither is waited for on disk: after a crash, an index whose
    # bodies were lost does not match their size, and a body that does not read back has its files read again.
    # Column by column: read back without building a dict a record.
    write_atomic(index, marshal.dumps({"format": _VIEWS_FORMAT, "fingerprint": fingerprint, "size": offsets[-1],
                                       "problems": problems, "columns": [paths_, columns, versions, offsets]}),
                 durable=False)
    views = Views(columns)

    def reload() -> list[LoadedRecord]:
        return load_records(paths, partial=partial)

    return RecordStore(paths_, views, versions, _fetch_from(bodies, offsets, views, reload, (index, bodies)), problems)
