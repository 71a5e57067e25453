"""Importing a JSONL bundle of envelopes (such as an upstream dataset dump) into a records folder.

Every record of the bundle is validated and compared with the records already in the folder by id and by
``repo``/``slug``:

- a new id is *added* as ``OWNER/REPO/SLUG.json``;
- the same id with the same :func:`~errdex.records.hashing.content_hash` is *unchanged*;
- the same id with other content, or a slug of the repository that another
  id already holds, is a *conflict*;
- a record with an error-severity finding is *invalid* and never imported.

Conflicts and invalid records block the whole import (nothing is written)
unless ``overwrite`` is given, in which case conflicting records replace the
existing ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from errdex._journal import JOURNAL, all_or_nothing
from errdex._locks import records_lock
from errdex.bundles.existing import Dataset, read_dataset, unreadable
from errdex.bundles.reports import ImportEntry, ImportReport
from errdex.checks.base import Finding
from errdex.errors import DataError, UsageError, from_oserror
from errdex.records.canonical import canonical_text
from errdex.records.envelope import is_envelope, unwrap
from errdex.records.hashing import content_hash, differing_fields
from errdex.records.jsontext import without_surrogates
from errdex.records.paths import UnsafeRecordPath, inside, record_path
from errdex.records.source_paths import shown_path, unsafe_path
from errdex.records.sources import (
    Document,
    bundled_records_dir,
    is_bundle,
    iter_documents,
)

__all__ = ["import_bundle"]


def _bundle_documents(bundle: Path) -> list[Document]:
    """Every document of the bundle; the first unreadable line raises, naming file:line:column."""
    if str(bundle) == "-":
        raise UsageError("import reads a bundle file and cannot read stdin ('-'): save it as a .jsonl file first")
    if not is_bundle(bundle.name):
        raise UsageError(f"{bundle} is not a JSONL bundle (.jsonl, .ndjson, optionally .gz)")
    docs = list(iter_documents([bundle]))
    for doc in docs:
        error = unreadable(doc)
        if error is not None:
            raise error
    if not docs:
        raise DataError(f"{bundle}: the bundle holds no records")
    return docs


def _errors_by_line(bundle: Path) -> dict[int, list[Finding]]:
    """Error-severity findings of the bundle, by bundle line (one record per line)."""
    # start-up: every check loads only when a bundle is imported
    from errdex.checks.runner import validate

    found: dict[int, list[Finding]] = {}
    for finding in validate([bundle]).findings:
        if finding.severity == "error":
            found.setdefault(finding.line, []).append(finding)
    return found



def _invalid_entry(doc: Document, findings: list[Finding]) -> ImportEntry:
    line = doc.parsed.line_offset + 1
    value = without_surrogates(doc.value)  # reported by validate (EDX009); never printed raw
    record, inside_envelope = unwrap(value)
    entry = ImportEntry("invalid", line, findings=findings, envelope=None)
    if inside_envelope and isinstance(record, dict):
        entry.record_id, entry.repo, entry.slug = (
            v if isinstance(v, str) else None for v in (record.get("id"), record.get("repo"), record.get("slug")))
    if findings:
        entry.reasons = [f"{f.path}:{f.line}:{f.column}: {f.code} {f.name}: {f.message}" for f in findings]
    else:
        entry.reasons = [f'{doc.path}:{line}:1: not a record envelope {{"record": {{...}}, "datasetVersion": ...}}']
    return entry



def _slug_holder(dataset: Dataset, record: dict[str, Any], target: Path | None) -> str | None:
    """The id of another record that holds this record's slug in its repository, or its file."""
    holder = dataset.by_slug.get((record["repo"].lower(), record["slug"].lower()))
    if holder is None or holder == record["id"]:
        holder = dataset.by_path.get(target) if target is not None else None
    return None if holder == record["id"] else holder


def _classify(doc: Document, dataset: Dataset, records_dir: Path) -> ImportEntry:
    """Compare one valid envelope of the bundle with the dataset."""
    envelope = doc.value
    record = envelope["record"]
    line = doc.parsed.line_offset + 1
    try:
        if not isinstance(record.get("id"), str):
            raise UnsafeRecordPath(f"id {record.get('id')!r} is not a string")
        target = record_path(records_dir, record.get("repo"), record.get("slug"))
        unsafe = unsafe_path(record.get("filePath")) if "filePath" in record else None
        if unsafe is not None:  # read against a checkout by validate --source, drift and sync
            raise UnsafeRecordPath(f"filePath {shown_path(str(record['filePath']))!r} {unsafe} (EDX130)")
    except UnsafeRecordPath as exc:  # whatever checks the configuration selects, a path never leaves the folder
        texts = [value if isinstance(value, str) else None for value in (record.get(k) for k in ("id", "repo", "slug"))]
        record_id, repo, slug = texts
        return ImportEntry("invalid", line, record_id, repo, slug, reasons=[f"{doc.path}:{line}:1: {exc}"])
    entry = ImportEntry("added", line, record["id"], record["repo"], record["slug"], target, envelope=envelope)
    same = dataset.by_id.get(record["id"])
    if same is not None:
        if content_hash(same.record) == content_hash(record):
            entry.status, entry.path = "unchanged", same.path
            return entry
        entry.status, entry.fields = "conflict", differing_fields(same.record, record)
        entry.reasons.append(f"changed: {', '.join(entry.fields)}")
        moved = (same.record.get("repo"), same.record.get("slug")) != (record["repo"], record["slug"])
        if same.in_file and not moved:
            entry.path = same.path  # an existing record keeps its file
        else:
            entry.replaces.append(same.path)
        entry.replaceable = same.in_file
    holder = _slug_holder(dataset, record, entry.path)
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


def _entries(docs: list[Document], errors: dict[int, list[Finding]], dataset: Dataset,
             records_dir: Path) -> Iterator[ImportEntry]:
    for doc in docs:
        findings = errors.get(doc.parsed.line_offset + 1, [])
        if findings or not is_envelope(doc.value):
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
        assert entry.path is not None  # every wanted entry has its target, checked above
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


def _import(bundle: Path, docs: list[Document], errors: dict[int, list[Finding]], folder: Path, overwrite: bool,
            check: bool) -> ImportReport:
    dataset = read_dataset(folder)
    report = ImportReport(str(bundle), folder, overwrite, check, list(_entries(docs, errors, dataset, folder)))
    if not check and not report.blocked:
        _apply(report)
    return report
