"""Cutting a release: stamp the records, hash them, compare with the previous release, write every file.

The steps, in order: read the folder (:func:`_read_folder`), find the previous release and refuse when one
of its records is missing (:func:`_previous_release`), compare each record with it (:func:`_compare`), build
the manifest (:func:`_manifest`), and write records, manifest, bundle and changelog all or nothing
(:func:`_write_release`).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errdex._journal import JOURNAL, Change, all_or_nothing
from errdex._locks import records_lock, tidy
from errdex.errors import DataError, InputError, UsageError, os_reason
from errdex.records.canonical import canonical_text
from errdex.records.hashing import changed_fields, content_hash, field_hashes
from errdex.records.loader import load_records
from errdex.records.sources import files_outside, record_files
from errdex.records.vocabulary import is_active, is_draft, status_of
from errdex.releases.changelog import updated_changelog
from errdex.releases.manifest import RELEASES, release_history
from errdex.releases.report import ReleaseReport
from errdex.releases.version import release_version

__all__ = ["cut_release"]


@dataclass
class _Entry:
    path: Path
    envelope: dict[str, Any]

    @property
    def record(self) -> dict[str, Any]:
        record: dict[str, Any] = self.envelope["record"]  # an envelope's record: checked on reading
        return record


def _read_folder(folder: Path) -> list[_Entry]:
    load_records([folder])  # refuses what does not conform, naming file, line and column
    for name in files_outside(folder):  # a release rewrites record files: never out of the tree it was given
        raise DataError(f"{name}: reached through a symbolic link that leaves {folder}; a release writes only "
                        "inside the records folder (move the file in, or remove the link)")
    entries = []
    for name in record_files([folder]) or []:
        if not name.endswith(".json"):
            raise DataError(f"{name}: a release needs one record per .json file (bundles are written by the release)")
        value = json.loads(Path(name).read_text(encoding="utf-8-sig"))  # a BOM, as every loader takes it
        if not isinstance(value, dict) or "record" not in value:
            raise DataError(f"{name}: a release needs envelopes "
                            "({\"record\": ..., \"datasetVersion\": ...}), not bare records")
        entries.append(_Entry(Path(name), value))
    if not entries:
        raise DataError(f"{folder}: no records")
    first: dict[str, Path] = {}
    for entry in entries:  # the manifest is keyed by id: a second record of one id would vanish from it
        earlier = first.setdefault(entry.record["id"], entry.path)
        if earlier != entry.path:
            raise DataError(f"{entry.path}: id {entry.record['id']!r} is also the id of {earlier}; a release "
                            "publishes each record once (give one of them a new id, or remove the copy); "
                            "run 'errdex validate' for every finding")
    return entries


def _refuse_drafts(entries: list[_Entry]) -> None:
    """Refuse a release that holds drafts: harvested records whose prose nobody has written or reviewed."""
    drafts = [entry for entry in entries if is_draft(entry.record)]
    if drafts:
        more = f" and {len(drafts) - 1} more draft(s)" if len(drafts) > 1 else ""
        raise DataError(f"{drafts[0].path}: record {drafts[0].record['id']} is a draft{more}; a release publishes "
                        "documented records (write the prose and set status to active, or pass --allow-drafts)")


def _bundle_bytes(entries: list[_Entry]) -> bytes:
    lines = "".join(canonical_text(e.envelope, bundle_line=True) + "\n"
                    for e in sorted(entries, key=lambda e: e.record["id"]))
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as packed:
        packed.write(lines.encode("utf-8", "surrogatepass"))
    return buffer.getvalue()


def cut_release(
    folder: str | Path,
    *,
    version: str | None = None,
    out: str | Path | None = None,
    changelog: str | Path | None = None,
    check: bool = False,
    allow_drafts: bool = False,
) -> ReleaseReport:
    """Cut a release of the records in ``folder`` (see :mod:`errdex.releases`); ``check``: write nothing.

    A folder that holds a draft (status ``draft``) is refused, naming its file, unless ``allow_drafts``:
    then drafts are released like any record, with their status in the manifest.

    The release holds the folder's lock from reading to the last write (a
    second release waits, then refuses), and writes every file all or
    nothing: a release killed half-way is finished by the next run that
    locks the folder (``notes`` says so).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder of records (run from the project's root or pass --records DIR)")
    stamp = release_version(version)
    if check:
        return _cut(folder, stamp, out, changelog, check=True, allow_drafts=allow_drafts)
    with records_lock([folder], what="release", say=False) as notes:
        report = _cut(folder, stamp, out, changelog, check=False, allow_drafts=allow_drafts)
    report.notes = notes + report.notes
    return report


def _cut(folder: Path, stamp: str, out: str | Path | None, changelog: str | Path | None, *,
         check: bool, allow_drafts: bool) -> ReleaseReport:
    entries = _read_folder(folder)
    if not allow_drafts:
        _refuse_drafts(entries)
    report, before = _previous_release(folder, stamp, entries)
    manifest_records = _compare(report, folder, entries, before)
    bundle = _bundle_bytes(entries)
    report.manifest = _manifest(report, entries, manifest_records, bundle)
    if check:
        return report
    def describe(exc: OSError) -> str:
        return f"cannot write the release: {f'{exc.filename}: ' if exc.filename else ''}{os_reason(exc)}"

    with all_or_nothing(folder / JOURNAL, command="release", untouched="nothing was changed",
                        describe=describe) as change:
        _write_release(report, folder, entries, bundle, out, changelog, change)
    return report


def _previous_release(folder: Path, stamp: str, entries: list[_Entry]) -> tuple[ReleaseReport, dict[str, Any]]:
    """An empty report of this release, and the previous release's records by id; refuses a release older
    than the previous one, and one that lacks a record of it (records are withdrawn, never deleted)."""
    history = [m for m in release_history(folder) if m.get("version") != stamp]
    previous = history[-1] if history else None
    if previous and previous["version"] > stamp:
        raise UsageError(f"release {stamp} is older than the previous release {previous['version']}")
    before: dict[str, Any] = (previous or {}).get("records", {})
    report = ReleaseReport(stamp, previous["version"] if previous else None)
    ids = {e.record["id"] for e in entries}
    missing = sorted(set(before) - ids)
    if missing:
        gone = before[missing[0]]
        raise DataError(f"record {gone.get('slug')} ({missing[0]}) of release {report.previous} is missing; "
                        "records are never deleted: set its status to withdrawn instead")
    return report, before


def _compare(report: ReleaseReport, folder: Path, entries: list[_Entry],
             before: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Sort every record into the report (added, changed, withdrawn, superseded, unchanged), stamp it, and
    return the manifest's entry of each record, by id."""
    stamp = report.version
    manifest_records = {}
    for entry in sorted(entries, key=lambda e: e.record["id"]):
        record = entry.record
        digest, fields = content_hash(record), field_hashes(record)
        old = before.get(record["id"])
        if old is None:
            report.added.append(record)
        elif old["hash"] != digest:
            report.changed.append((record, changed_fields(old.get("fields", {}), fields)))
            record["contentChangedAt"] = stamp
            status = status_of(record)
            if status != status_of(old) and status == "withdrawn":
                report.withdrawn.append(record)
            elif status != status_of(old) and status == "superseded":
                report.superseded.append(record)
        else:
            report.unchanged += 1
        entry.envelope["datasetVersion"] = stamp
        manifest_records[record["id"]] = {"slug": record["slug"], "status": status_of(record),
                                          "hash": digest, "fields": fields,
                                          "path": entry.path.relative_to(folder).as_posix()}
    return manifest_records


def _manifest(report: ReleaseReport, entries: list[_Entry], manifest_records: dict[str, dict[str, Any]],
              bundle: bytes) -> dict[str, Any]:
    stamp = report.version
    counts = {"records": len(entries), "added": len(report.added), "changed": len(report.changed),
              "withdrawn": len(report.withdrawn), "superseded": len(report.superseded), "unchanged": report.unchanged,
              "active": sum(1 for e in entries if is_active(e.record))}
    return {"version": stamp, "date": stamp[:10], "previous": report.previous, "counts": counts,
            "bundle": {"file": f"errdex-{stamp.replace(':', '')}.jsonl.gz",
                       "sha256": hashlib.sha256(bundle).hexdigest(), "bytes": len(bundle)},
            "records": manifest_records}


def _write_release(report: ReleaseReport, folder: Path, entries: list[_Entry], bundle: bytes,
                   out: str | Path | None, changelog: str | Path | None, change: Change) -> None:
    """Stage every file of the release in ``change``: records, manifest, bundle, its copy, the changelog."""
    stamp, bundle_name = report.version, report.manifest["bundle"]["file"]
    changelog_path = None if changelog is None else Path(changelog)
    changelog_text = None  # read first: a changelog that cannot be read stops the release before any folder is made
    if changelog_path is not None:
        path = changelog_path
        successors = {e.record["id"]: e.record["slug"] for e in entries}
        changelog_text = updated_changelog(path, report, successors)
        tidy(path.parent if str(path.parent) else Path("."), what="release")
    for entry in entries:
        text = canonical_text(entry.envelope).encode("utf-8", "surrogatepass")
        if entry.path.read_bytes() != text:
            change.write(entry.path, text)
            report.files_written.append(str(entry.path))
    manifest_text = (json.dumps(report.manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    (folder / RELEASES).mkdir(exist_ok=True)
    change.write(folder / RELEASES / f"{stamp.replace(':', '')}.json", manifest_text)
    target = Path(out) if out is not None else Path("build") / "releases" / stamp.replace(":", "")
    target.mkdir(parents=True, exist_ok=True)
    tidy(target, what="release")
    change.write(target / bundle_name, bundle)
    change.write(target / f"{bundle_name}.sha256", f"{report.manifest['bundle']['sha256']}  {bundle_name}\n".encode())
    change.write(target / "manifest.json", manifest_text)
    report.bundle = target / bundle_name
    if changelog_path is not None and changelog_text is not None:
        change.write(changelog_path, changelog_text)

