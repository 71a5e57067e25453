"""Records in and out of the dataset as bundles: ``import_bundle`` and ``export_dataset``.

Importing reads a JSONL bundle of envelopes (such as an upstream dataset
dump), validates it, and compares every record with the records already in
a records folder by id and by ``repo``/``slug``:

- a new id is *added* as ``OWNER/REPO/SLUG.json``;
- the same id with the same :func:`content_hash` is *unchanged*;
- the same id with other content, or a slug of the repository that another
  id already holds, is a *conflict*;
- a record with an error-severity finding is *invalid* and never imported.

Conflicts and invalid records block the whole import (nothing is written)
unless ``overwrite`` is given, in which case conflicting records replace the
existing ones. Exporting writes the dataset as a JSONL bundle, a Parquet file
(one row per record, lists as lists) or a DuckDB database; every output is
written to a temporary file next to its target and renamed.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from errdex._files import JOURNAL, all_or_nothing, refuse_special, write_atomic
from errdex._locks import records_lock
from errdex.checks.base import Finding
from errdex.errors import DataError, ErrdexError, InputError, UsageError, from_oserror
from errdex.records.canonical import canonical_text
from errdex.releases import VOLATILE, content_hash
from errdex.records.jsontext import without_surrogates
from errdex.records.loader import LoadedRecord, load_records
from errdex.records.paths import UnsafeRecordPath, inside, record_path
from errdex.records.problems import ProblemKind
from errdex.records.sources import Document, bundled_records_dir, is_bundle, iter_documents, record_files

__all__ = [
    "EXPORT_FORMATS",
    "ExportReport",
    "ImportEntry",
    "ImportReport",
    "VOLATILE_FIELDS",
    "content_hash",
    "export_dataset",
    "import_bundle",
    "parquet_columns",
]

#: Record fields that change without the content changing (the envelope's ``datasetVersion`` is ignored too);
#: one definition, shared with releases.
VOLATILE_FIELDS = VOLATILE
EXPORT_FORMATS = ("jsonl", "parquet", "duckdb")


# --------------------------------------------------------------------------- import


@dataclass
class ImportEntry:
    """What happens to one record of the bundle.

    ``status`` is ``added``, ``unchanged``, ``conflict`` or ``invalid``;
    ``reasons`` say why a record conflicts or is invalid, ``fields`` name the
    top-level fields that differ from the existing record of the same id.
    """

    status: str
    line: int
    record_id: str | None = None
    repo: str | None = None
    slug: str | None = None
    path: Path | None = None
    reasons: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    replaces: list[Path] = field(default_factory=list)
    replaceable: bool = True
    written: bool = False
    envelope: dict[str, Any] | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "line": self.line,
            "id": self.record_id,
            "repo": self.repo,
            "slug": self.slug,
            "path": None if self.path is None else str(self.path),
            "reasons": self.reasons,
            "fields": self.fields,
            "findings": [f.as_dict() for f in self.findings],
            "written": self.written,
        }


@dataclass
class ImportReport:
    """Every record of one import, and what was written."""

    bundle: str
    records_dir: Path
    overwrite: bool
    check: bool
    entries: list[ImportEntry] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)

    def with_status(self, status: str) -> list[ImportEntry]:
        return [entry for entry in self.entries if entry.status == status]

    @property
    def conflicts(self) -> list[ImportEntry]:
        return self.with_status("conflict")

    @property
    def invalid(self) -> list[ImportEntry]:
        return self.with_status("invalid")

    @property
    def blocked(self) -> bool:
        """True when conflicts or invalid records keep the import from writing anything."""
        if self.invalid and not self.overwrite:
            return True
        return any(not self.overwrite or not entry.replaceable for entry in self.conflicts)

    def as_dict(self) -> dict[str, Any]:
        counts = {status: len(self.with_status(status)) for status in ("added", "unchanged", "conflict", "invalid")}
        return {
            "bundle": self.bundle,
            "recordsDir": str(self.records_dir),
            "check": self.check,
            "overwrite": self.overwrite,
            "blocked": self.blocked,
            "counts": counts,
            "written": [str(p) for p in self.written],
            "removed": [str(p) for p in self.removed],
            "entries": [entry.as_dict() for entry in self.entries],
        }


@dataclass(frozen=True)
class _Existing:
    """A record already in the records folder."""

    path: Path
    record: dict[str, Any]

    @property
    def in_file(self) -> bool:
        """True for a record file of its own (a record inside a bundle cannot be replaced by import)."""
        return not is_bundle(self.path.name)


@dataclass
class _Dataset:
    """The records of a records folder, by id, by (repo, slug) and by file."""

    by_id: dict[str, _Existing] = field(default_factory=dict)
    by_slug: dict[tuple[str, str], str] = field(default_factory=dict)
    by_path: dict[Path, str] = field(default_factory=dict)


def _located(doc: Document, line: int, column: int, message: str) -> str:
    return f"{doc.path}:{line}:{column}: {message}"


def _unreadable(doc: Document) -> ErrdexError | None:
    """The error for a document that cannot be read or parsed at all, else None."""
    for problem in doc.problems:
        if problem.kind is ProblemKind.UNREADABLE_INPUT:
            return InputError(_located(doc, problem.line, problem.column, problem.message))
    if not doc.parsed.parsed:
        problem = doc.problems[0]
        return DataError(_located(doc, problem.line, problem.column, problem.message))
    return None


def _read_dataset(records_dir: Path) -> _Dataset:
    """Every record in the records folder (a missing folder is an empty dataset)."""
    dataset = _Dataset()
    if not records_dir.exists():
        return dataset
    if not records_dir.is_dir():
        raise UsageError(f"records folder {records_dir} is not a folder")
    files = record_files([records_dir]) or []
    for doc in iter_documents(files) if files else ():
        error = _unreadable(doc)
        if error is not None:
            raise type(error)(f"{error} (the records folder must be readable to import into it)")
        value = doc.value
        record = value.get("record") if isinstance(value, dict) and "record" in value else value
        if not isinstance(record, dict) or not isinstance(record.get("id"), str) or doc.fs_path is None:
            continue
        rid = record["id"]
        dataset.by_id.setdefault(rid, _Existing(doc.fs_path, record))
        repo, slug = record.get("repo"), record.get("slug")
        if isinstance(repo, str) and isinstance(slug, str):
            dataset.by_slug.setdefault((repo.lower(), slug.lower()), rid)  # without case, as GitHub and EDX115
        dataset.by_path.setdefault(doc.fs_path, rid)
    return dataset


def _bundle_documents(bundle: Path) -> list[Document]:
    """Every document of the bundle; the first unreadable line raises, naming file:line:column."""
    if str(bundle) == "-":
        raise UsageError("import reads a bundle file and cannot read stdin ('-'): save it as a .jsonl file first")
    if not is_bundle(bundle.name):
        raise UsageError(f"{bundle} is not a JSONL bundle (.jsonl, .ndjson, optionally .gz)")
    docs = list(iter_documents([bundle]))
    for doc in docs:
        error = _unreadable(doc)
        if error is not None:
            raise error
    if not docs:
        raise DataError(f"{bundle}: the bundle holds no records")
    return docs


def _errors_by_line(bundle: Path) -> dict[int, list[Finding]]:
    """Error-severity findings of the bundle, by bundle line (one record per line)."""
    from errdex.checks.runner import validate  # the checks are imported only when importing

    found: dict[int, list[Finding]] = {}
    for finding in validate([bundle]).findings:
        if finding.severity == "error":
            found.setdefault(finding.line, []).append(finding)
    return found


def _differing_fields(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    names = [name for name in new if name not in VOLATILE_FIELDS]
    names += [name for name in old if name not in new and name not in VOLATILE_FIELDS]
    return [name for name in names if old.get(name, ...) != new.get(name, ...)]




def _invalid_entry(doc: Document, findings: list[Finding]) -> ImportEntry:
    line = doc.parsed.line_offset + 1
    value = without_surrogates(doc.value)  # reported by validate (EDX009); never printed raw
    record = value.get("record") if isinstance(value, dict) else None
    entry = ImportEntry("invalid", line, findings=findings, envelope=None)
    if isinstance(record, dict):
        entry.record_id, entry.repo, entry.slug = (
            v if isinstance(v, str) else None for v in (record.get("id"), record.get("repo"), record.get("slug")))
    if findings:
        entry.reasons = [f"{f.path}:{f.line}:{f.column}: {f.code} {f.name}: {f.message}" for f in findings]
    else:
        entry.reasons = [f'{doc.path}:{line}:1: not a record envelope {{"record": {{...}}, "datasetVersion": ...}}']
    return entry


def _is_envelope(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("record"), dict) and "datasetVersion" in value


def _slug_holder(dataset: _Dataset, record: dict[str, Any], target: Path) -> str | None:
    """The id of another record that holds this record's slug in its repository, or its file."""
    holder = dataset.by_slug.get((record["repo"].lower(), record["slug"].lower()))
    if holder is None or holder == record["id"]:
        holder = dataset.by_path.get(target)
    return None if holder == record["id"] else holder


def _classify(doc: Document, dataset: _Dataset, records_dir: Path) -> ImportEntry:
    """Compare one valid envelope of the bundle with the dataset."""
    envelope = doc.value
    record = envelope["record"]
    line = doc.parsed.line_offset + 1
    try:
        if not isinstance(record.get("id"), str):
            raise UnsafeRecordPath(f"id {record.get('id')!r} is not a string")
        target = record_path(records_dir, record.get("repo"), record.get("slug"))
    except UnsafeRecordPath as exc:  # whatever checks the configuration selects, a path never leaves the folder
        texts = [value if isinstance(value, str) else None for value in (record.get(k) for k in ("id", "repo", "slug"))]
        return ImportEntry("invalid", line, *texts, reasons=[f"{doc.path}:{line}:1: {exc}"])
    entry = ImportEntry("added", line, record["id"], record["repo"], record["slug"], target, envelope=envelope)
    same = dataset.by_id.get(record["id"])
    if same is not None:
        if content_hash(same.record) == content_hash(record):
            entry.status, entry.path = "unchanged", same.path
            return entry
        entry.status, entry.fields = "conflict", _differing_fields(same.record, record)
        entry.reasons.append(f"changed: {', '.join(entry.fields)}")
        moved = (same.record.get("repo"), same.record.get("slug")) != (record["repo"], record["slug"])
        if same.in_file and not moved:
            entry.path = same.path  # an existing record keeps its file
        else:
            entry.replaces.append(same.path)
        entry.replaceable = same.in_file
    holder = _slug_holder(dataset, record, entry.path)  # type: ignore[arg-type]
    if holder is not None:
        taken = dataset.by_id.get(holder)
        entry.status = "conflict"
        entry.reasons.append(f"slug taken by {holder}")
        if taken is not None:
            entry.replaces.append(taken.path)
            entry.replaceable = entry.replaceable and taken.in_file
    if not entry.replaceable:
        entry.reasons.append("the existing record sits in a bundle; change it there")
    return entry


def _entries(docs: list[Document], errors: dict[int, list[Finding]], dataset: _Dataset,
             records_dir: Path) -> Iterator[ImportEntry]:
    for doc in docs:
        findings = errors.get(doc.parsed.line_offset + 1, [])
        if findings or not _is_envelope(doc.value):
            yield _invalid_entry(doc, findings)
        else:
            yield _classify(doc, dataset, records_dir)


def _apply(report: ImportReport) -> None:
    """Write every added (and, with overwrite, conflicting) record; remove the files they replace."""
    wanted = [e for e in report.entries if e.status == "added" or (e.status == "conflict" and report.overwrite)]
    targets = {entry.path for entry in wanted}
    for path in [*targets, *(old for entry in wanted for old in entry.replaces)]:
        if path is None or not inside(path, report.records_dir):  # checked before anything is written
            raise UnsafeRecordPath(f"{path} lies outside the records folder {report.records_dir} "
                                   "(through a symbolic link); nothing was written")
    with all_or_nothing(report.records_dir / JOURNAL, command="import", untouched="nothing was written",
                        describe=lambda exc: str(from_oserror(exc, action="write"))) as change:  # every file, or none
        for entry in wanted:
            assert entry.path is not None and entry.envelope is not None
            entry.path.parent.mkdir(parents=True, exist_ok=True)
            # resolved: a link inside the folder keeps pointing at the rewritten file (as migrate does)
            target = entry.path.resolve() if entry.path.is_symlink() else entry.path
            change.write(target, canonical_text(entry.envelope).encode("utf-8", "surrogatepass"))
    for entry in wanted:
        entry.written = True
        report.written.append(entry.path)
    for entry in wanted:
        for old in entry.replaces:
            if old not in targets and old not in report.removed and old.exists():
                old.unlink()
                report.removed.append(old)


def import_bundle(bundle: Path, *, records_dir: Path | None = None, overwrite: bool = False,
                  check: bool = False) -> ImportReport:
    """Bring the records of a JSONL bundle of envelopes into a records folder (default: the project's).

    Nothing is written when ``check`` is set, or when a record conflicts or is
    invalid and ``overwrite`` is not set. With ``overwrite``, conflicting
    records replace the existing ones; invalid records are never written.
    A line that is not JSON raises :class:`~errdex.errors.DataError` naming
    the bundle, line and column, and nothing is written.
    """
    bundle = Path(bundle)
    folder = Path(records_dir) if records_dir is not None else bundled_records_dir().resolve()
    docs = _bundle_documents(bundle)
    errors = _errors_by_line(bundle)
    if check or not folder.is_dir():
        return _import(bundle, docs, errors, folder, overwrite, check)
    with records_lock([folder], what="import"):  # what is compared is what is written over: no run in between
        return _import(bundle, docs, errors, folder, overwrite, check)


def _import(bundle: Path, docs: list[Document], errors: Any, folder: Path, overwrite: bool,
            check: bool) -> ImportReport:
    dataset = _read_dataset(folder)
    report = ImportReport(str(bundle), folder, overwrite, check, list(_entries(docs, errors, dataset, folder)))
    if not check and not report.blocked:
        _apply(report)
    return report


# --------------------------------------------------------------------------- export


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    format: str
    path: Path
    records: int
    bytes: int


def _sorted_records(records: Sequence[str | Path] | None) -> list[LoadedRecord]:
    items = sorted(load_records(records), key=lambda item: item.record["id"])
    for previous, item in zip(items, items[1:]):
        if previous.record["id"] == item.record["id"]:
            raise DataError(f"record id {item.record['id']!r} appears twice ({previous.path}, {item.path}); "
                            "run 'errdex validate'")
    return items


def _jsonl_bytes(items: list[LoadedRecord], gzipped: bool) -> bytes:
    lines = []
    for item in items:
        if item.dataset_version is None:
            raise DataError(f"{item.path}: a bare record without datasetVersion; a bundle holds envelopes")
        envelope = {"record": item.record, "datasetVersion": item.dataset_version}
        lines.append(canonical_text(envelope, bundle_line=True) + "\n")
    data = "".join(lines).encode("utf-8", "surrogatepass")
    return gzip.compress(data, compresslevel=9, mtime=0) if gzipped else data


def _duckdb_type(annotation: Any) -> str:
    """The DuckDB column type of a record field: lists stay lists, nested objects become JSON."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _duckdb_type(args[0])
    if origin in (typing.Union, types.UnionType):
        return _duckdb_type(next(arg for arg in args if arg is not type(None)))
    if origin is typing.Literal:
        return "INTEGER" if all(isinstance(a, int) for a in args) else "VARCHAR"
    if origin is list:
        return f"{_duckdb_type(args[0])}[]"
    if annotation is bool:
        return "BOOLEAN"
    if annotation is int:
        return "INTEGER"
    if annotation is float:
        return "DOUBLE"
    if annotation is str:
        return "VARCHAR"
    return "JSON"


def parquet_columns() -> dict[str, str]:
    """Every column of the Parquet export and its type: the record fields (in format order), then datasetVersion."""
    from errdex.records.models import RECORD_MODELS

    annotations: dict[str, Any] = {}
    for version in sorted(RECORD_MODELS):  # a later version's type of a field wins; the order stays the first seen
        annotations.update((name, info.annotation) for name, info in RECORD_MODELS[version].model_fields.items())
    columns = {name: _duckdb_type(annotation) for name, annotation in annotations.items()}
    columns["datasetVersion"] = "VARCHAR"
    return columns


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _write_parquet(items: list[LoadedRecord], target: Path) -> None:
    """One row per record through DuckDB's read_json over a temporary JSONL file of the records."""
    import duckdb

    columns = parquet_columns()
    lines = [json.dumps({**{k: v for k, v in item.record.items() if k in columns},
                         "datasetVersion": item.dataset_version}, ensure_ascii=True) for item in items]
    spec = "{" + ", ".join(f"{_sql_text(name)}: {_sql_text(kind)}" for name, kind in columns.items()) + "}"
    largest = max((len(line) for line in lines), default=0)
    with tempfile.TemporaryDirectory(prefix="errdex-export-") as scratch:
        source = Path(scratch) / "records.jsonl"
        source.write_text("".join(line + "\n" for line in lines), encoding="ascii")
        names = ", ".join(f'"{name}"' for name in columns)
        sql = (f"COPY (SELECT {names} FROM read_json({_sql_text(str(source))}, format='newline_delimited', "
               f"maximum_object_size={max(16 << 20, 2 * largest)}, columns={spec}) ORDER BY id) "
               f"TO {_sql_text(str(target))} (FORMAT parquet)")
        con = duckdb.connect()
        try:
            con.execute(sql)
        except duckdb.Error as exc:
            raise DataError(f"cannot write Parquet to {target}: {' '.join(str(exc).split())}") from exc
        finally:
            con.close()


def _replace_via_temporary(output: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` for a temporary file next to ``output``, then rename it over ``output``."""
    tmp = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    try:
        tmp.unlink(missing_ok=True)  # a read-only folder refuses even this: the message names output, not tmp
        write(tmp)
        os.replace(tmp, output)
    except OSError as exc:
        raise from_oserror(exc, output, action="write") from exc
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def export_dataset(format: str, output: Path, *, records: Sequence[str | Path] | None = None,
                   stdout: BinaryIO | None = None) -> ExportReport:
    """Write the records (default: the bundled dataset) as ``jsonl`` (``.gz``: gzipped), ``parquet`` or ``duckdb``.

    JSONL holds one canonical envelope per line, sorted by id; the bytes
    depend only on the records. Parquet holds one row per record with the
    record's fields as columns (lists as lists, scenarios as a list of JSON)
    and ``datasetVersion``. DuckDB is the database ``errdex index`` builds.
    ``output`` ``-`` writes JSONL to ``stdout`` (default: the process's
    standard output); Parquet and DuckDB need a file.
    """
    if format not in EXPORT_FORMATS:
        raise UsageError(f"unknown export format {format!r} (use one of: {', '.join(EXPORT_FORMATS)})")
    if str(output) == "-":
        if format != "jsonl":
            raise UsageError(f"--output - (stdout) takes JSONL only; {format} needs a file to write")
        data = _jsonl_bytes(_sorted_records(records), False)
        stream = stdout if stdout is not None else sys.stdout.buffer
        stream.write(data)
        stream.flush()
        return ExportReport(format, Path("-"), data.count(b"\n"), len(data))
    output = Path(output)
    if output.is_dir():
        raise UsageError(f"{output} is a folder; --output names the file to write")
    refuse_special(output)
    items = _sorted_records(records)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        if format == "jsonl":
            write_atomic(output, _jsonl_bytes(items, output.name.lower().endswith(".gz")))
    except OSError as exc:  # a full disk, a read-only folder: name the file, not only the reason
        raise from_oserror(exc, output, action="write") from exc
    if format == "parquet":
        _replace_via_temporary(output, lambda tmp: _write_parquet(items, tmp))
    elif format == "duckdb":
        from errdex.index import build_index

        build_index(db=output, loaded=items)
    return ExportReport(format, output, len(items), output.stat().st_size)
