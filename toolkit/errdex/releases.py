"""Dataset releases: stamp, hash, manifest, reproducible bundle, changelog; and ``diff`` between two datasets.

A release is cut from a records folder (one envelope per ``.json`` file):

1. every record gets a content hash: SHA-256 over its canonical JSON without
   the volatile fields (``contentChangedAt``, and the envelope's
   ``datasetVersion``), plus a hash per top-level field;
2. against the previous release's manifest, records are added, changed
   (with the fields that changed), withdrawn, superseded or unchanged; a
   record of the previous release that is missing refuses the release
   (records are never deleted: mark them withdrawn);
3. ``contentChangedAt`` moves to the release's version only for records
   that changed; every envelope's ``datasetVersion`` becomes the version;
4. it writes the manifest (``records/.releases/VERSION.json``: version,
   date, previous version, each record's hashes, counts, the bundle's
   SHA-256), the bundle (gzip of canonical JSONL envelopes sorted by id,
   gzip time 0, so the same records always give the same bytes) and a
   ``CHANGELOG.md`` entry (replaced when the same version is cut again).

The version is an RFC 3339 time: ``--version``, else ``$SOURCE_DATE_EPOCH``
(the reproducible-builds convention), else now.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from errdex._files import JOURNAL, Change, all_or_nothing, clean_leftovers, read_regular
from errdex.errors import DataError, InputError, UsageError, os_reason
from errdex.records.canonical import canonical_text
from errdex.records.timestamps import parse_rfc3339

__all__ = ["DatasetDiff", "ReleaseChanges", "ReleaseReport", "content_hash", "cut_release", "diff", "field_hashes",
           "record_releases", "release_changes", "release_history"]

VOLATILE = ("contentChangedAt",)
RELEASES = ".releases"


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def content_hash(record: dict[str, Any]) -> str:
    """SHA-256 of the record's canonical JSON without its volatile fields."""
    return hashlib.sha256(_canonical({k: v for k, v in record.items() if k not in VOLATILE})).hexdigest()


def field_hashes(record: dict[str, Any]) -> dict[str, str]:
    """A short hash per top-level field (volatile fields left out), to name the fields a change touched."""
    return {name: hashlib.sha256(_canonical(value)).hexdigest()[:16]
            for name, value in sorted(record.items()) if name not in VOLATILE}


def _version(given: str | None) -> str:
    if given is not None:
        if parse_rfc3339(given) is None:
            raise UsageError(f"--version {given!r} is not an RFC 3339 time, e.g. 2026-12-01T00:00:00Z")
        return given
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:  # a malformed value stops the release: falling back to now would make it silently not reproducible
        if not (epoch.isascii() and epoch.isdigit()):
            raise ValueError(epoch)
        moment = datetime.fromtimestamp(int(epoch), UTC)
    except (ValueError, OverflowError, OSError) as exc:
        raise UsageError(f"SOURCE_DATE_EPOCH={epoch!r} is not a time: give whole seconds since 1970-01-01 UTC, "
                         "up to the year 9999, e.g. 1764547200") from exc
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Entry:
    path: Path
    envelope: dict[str, Any]

    @property
    def record(self) -> dict[str, Any]:
        return self.envelope["record"]


def _read_folder(folder: Path) -> list[_Entry]:
    from errdex.records.loader import load_records
    from errdex.records.sources import record_files

    from errdex.records.sources import files_outside

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
            raise DataError(f"{name}: a release needs envelopes ({{\"record\": ..., \"datasetVersion\": ...}}), not bare records")
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


#: A manifest names each record with a few hashes: far below this even for a very large dataset.
MAX_MANIFEST_BYTES = 64 << 20


def _manifest_problem(value: Any) -> str | None:
    """What makes ``value`` no release manifest (the shape every reader of manifests relies on), or None."""
    if not isinstance(value, dict):
        return "not a JSON object"
    if not isinstance(value.get("version"), str):
        return "'version' is not a string"
    records = value.get("records", {})
    if not isinstance(records, dict):
        return "'records' is not an object of record ids"
    for record_id, entry in records.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("hash"), str) \
                or not isinstance(entry.get("slug", ""), str) or not isinstance(entry.get("fields", {}), dict) \
                or not isinstance(entry.get("status", ""), str):
            return f"record {record_id!r} is not an object with a 'hash', a 'slug', 'fields' and a 'status'"
    for key in ("counts", "bundle"):
        if not isinstance(value.get(key, {}), dict):
            return f"'{key}' is not an object"
    if "bundle" in value:
        name = value["bundle"].get("file")
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
            return "'bundle' names no 'file' (the plain name of the bundle beside the manifest)"
    return None


def read_manifest(path: Path) -> dict[str, Any]:
    """A release manifest, read strictly (a regular file of bounded size, strict JSON) and checked for the shape
    releases, the site and ``diff`` rely on; DataError naming the file otherwise."""
    from errdex.records.jsontext import parse_document

    data = read_regular(path, limit=MAX_MANIFEST_BYTES, error=DataError, what="a release manifest")
    document = parse_document(data)
    if document.problems:
        problem = document.problems[0]
        raise DataError(f"{path}:{problem.line}:{problem.column}: not a release manifest: {problem.message}")
    if (why := _manifest_problem(document.value)) is not None:
        raise DataError(f"{path}: not a release manifest: {why}")
    return document.value


def release_history(folder: Path) -> list[dict[str, Any]]:
    """Every release manifest of a records folder, oldest first."""
    manifests = [read_manifest(path) for path in sorted((folder / RELEASES).glob("*.json"))]
    return sorted(manifests, key=lambda m: m["version"])


def history_folder(records: Sequence[str | Path] | None) -> Path | None:
    """The folder whose release manifests tell the records' history: the first folder given, or the bundled one."""
    from errdex.records.sources import bundled_records_dir

    if not records:
        return bundled_records_dir()
    first = Path(records[0])
    return first if first.is_dir() else None


def record_releases(folder: Path) -> dict[str, tuple[str, str]]:
    """Record id -> (the release it was added in, the release its content last changed in)."""
    seen: dict[str, tuple[str, str, str]] = {}
    for manifest in release_history(folder):
        for record_id, entry in manifest.get("records", {}).items():
            before = seen.get(record_id)
            if before is None:
                seen[record_id] = (manifest["version"], manifest["version"], entry["hash"])
            elif before[2] != entry["hash"]:
                seen[record_id] = (before[0], manifest["version"], entry["hash"])
    return {record_id: (added, changed) for record_id, (added, changed, _) in seen.items()}


@dataclass(frozen=True)
class ReleaseChanges:
    """One release as its manifests tell it: what it added, changed (which fields), withdrew and superseded."""

    version: str
    counts: dict[str, int]
    added: list[tuple[str, str]]  # (id, slug)
    changed: list[tuple[str, str, list[str]]]  # (id, slug, fields)
    withdrawn: list[tuple[str, str]]
    superseded: list[tuple[str, str]]


def release_changes(folder: Path) -> list[ReleaseChanges]:
    """Every release of a records folder, newest first, from its manifests alone."""
    out, before = [], {}
    for manifest in release_history(folder):
        records = manifest.get("records", {})
        added, changed, withdrawn, superseded = [], [], [], []
        for record_id, entry in sorted(records.items(), key=lambda item: item[1].get("slug", "")):
            old = before.get(record_id)
            if old is None:
                added.append((record_id, entry["slug"]))
            elif old["hash"] != entry["hash"]:
                fields = sorted(n for n in set(entry.get("fields", {})) | set(old.get("fields", {}))
                                if entry.get("fields", {}).get(n) != old.get("fields", {}).get(n))
                changed.append((record_id, entry["slug"], fields))
                if entry.get("status") != old.get("status") and entry.get("status") == "withdrawn":
                    withdrawn.append((record_id, entry["slug"]))
                if entry.get("status") != old.get("status") and entry.get("status") == "superseded":
                    superseded.append((record_id, entry["slug"]))
        out.append(ReleaseChanges(manifest["version"], manifest.get("counts", {}), added, changed, withdrawn, superseded))
        before = records
    return out[::-1]


@dataclass
class ReleaseReport:
    """What a release holds and what changed since the previous one."""

    version: str
    previous: str | None
    added: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[dict[str, Any], list[str]]] = field(default_factory=list)
    withdrawn: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[dict[str, Any]] = field(default_factory=list)
    unchanged: int = 0
    files_written: list[str] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    bundle: Path | None = None
    #: What the run did besides the release: an interrupted change it finished first.
    notes: list[str] = field(default_factory=list)


def _bundle_bytes(entries: list[_Entry]) -> bytes:
    lines = "".join(canonical_text(e.envelope, bundle_line=True) + "\n"
                    for e in sorted(entries, key=lambda e: e.record["id"]))
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as packed:
        packed.write(lines.encode("utf-8", "surrogatepass"))
    return buffer.getvalue()


def _slug_of(entry: dict[str, Any]) -> str:
    return f"{entry['slug']} ({entry['id']})"


def changelog_entry(report: ReleaseReport, successors: dict[str, str]) -> str:
    """The CHANGELOG.md section of one release."""
    counts = report.manifest["counts"]
    lines = [f"## {report.version}", "",
             f"{counts['records']} records: {len(report.added)} added, {len(report.changed)} changed, "
             f"{len(report.withdrawn)} withdrawn, {len(report.superseded)} superseded, {report.unchanged} unchanged"
             + (f" (since {report.previous})." if report.previous else " (first release)."), ""]
    if report.added:
        lines += ["### Added", ""] + [f"- `{r['slug']}` ({r['id']}): {r['errorMessage']}" for r in report.added] + [""]
    if report.changed:
        lines += ["### Changed", ""] + [f"- `{r['slug']}` ({r['id']}): {', '.join(fields)}"
                                        for r, fields in report.changed] + [""]
    if report.withdrawn:
        lines += ["### Withdrawn", ""] + [f"- `{r['slug']}` ({r['id']}): {r.get('statusReason', '')}"
                                          for r in report.withdrawn] + [""]
    if report.superseded:
        lines += ["### Superseded", ""] + [
            f"- `{r['slug']}` ({r['id']}) by `{successors.get(r.get('supersededBy') or '', r.get('supersededBy'))}`: "
            f"{r.get('statusReason', '')}" for r in report.superseded] + [""]
    return "\n".join(lines)


def _with_entry(changelog: str, version: str, entry: str) -> str:
    """The changelog with this version's section put first (replacing an older section of the same version)."""
    header = "# Changelog\n\nEvery release of the dataset, newest first (written by `errdex release`).\n"
    text = "\n" + changelog.removeprefix("\ufeff").replace("\r\n", "\n")  # a section may open the file
    at = text.find("\n## ")
    preamble, body = (text, "") if at < 0 else (text[:at], text[at:])
    if preamble.strip():  # what the file says before its first section is kept, never replaced
        header = preamble.strip("\n") + "\n"
    sections = [s for s in re.split(r"\n(?=## )", body.strip("\n")) if s.strip()]
    sections = [s for s in sections if not s.startswith(f"## {version}\n") and s.strip() != f"## {version}"]
    return header + "\n" + "\n".join([entry.rstrip("\n") + "\n", *(s.rstrip("\n") + "\n" for s in sections)])


def cut_release(
    folder: str | Path,
    *,
    version: str | None = None,
    out: str | Path | None = None,
    changelog: str | Path | None = None,
    check: bool = False,
) -> ReleaseReport:
    """Cut a release of the records in ``folder`` (see the module's docstring); ``check``: write nothing.

    The release holds the folder's lock from reading to the last write (a
    second release waits, then refuses), and writes every file all or
    nothing: a release killed half-way is finished by the next run that
    locks the folder (``notes`` says so).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder of records (run from the project's root or pass --records DIR)")
    stamp = _version(version)
    if check:
        return _cut(folder, stamp, out, changelog, check=True)
    from errdex._locks import records_lock

    with records_lock([folder], what="release") as notes:
        report = _cut(folder, stamp, out, changelog, check=False)
    report.notes = notes + report.notes
    return report


def _cut(folder: Path, stamp: str, out: str | Path | None, changelog: str | Path | None, *,
         check: bool) -> ReleaseReport:
    entries = _read_folder(folder)
    history = [m for m in release_history(folder) if m.get("version") != stamp]
    previous = history[-1] if history else None
    if previous and previous["version"] > stamp:
        raise UsageError(f"release {stamp} is older than the previous release {previous['version']}")
    before = (previous or {}).get("records", {})
    report = ReleaseReport(stamp, previous["version"] if previous else None)
    ids = {e.record["id"] for e in entries}
    missing = sorted(set(before) - ids)
    if missing:
        gone = before[missing[0]]
        raise DataError(f"record {gone.get('slug')} ({missing[0]}) of release {report.previous} is missing; "
                        "records are never deleted: set its status to withdrawn instead")
    manifest_records = {}
    for entry in sorted(entries, key=lambda e: e.record["id"]):
        record = entry.record
        digest, fields = content_hash(record), field_hashes(record)
        old = before.get(record["id"])
        if old is None:
            report.added.append(record)
        elif old["hash"] != digest:
            changed = sorted(name for name in set(fields) | set(old.get("fields", {}))
                             if fields.get(name) != old.get("fields", {}).get(name))
            report.changed.append((record, changed))
            record["contentChangedAt"] = stamp
            status = record.get("status", "active")
            if status != old.get("status", "active") and status == "withdrawn":
                report.withdrawn.append(record)
            elif status != old.get("status", "active") and status == "superseded":
                report.superseded.append(record)
        else:
            report.unchanged += 1
        entry.envelope["datasetVersion"] = stamp
        manifest_records[record["id"]] = {"slug": record["slug"], "status": record.get("status", "active"),
                                          "hash": digest, "fields": fields,
                                          "path": entry.path.relative_to(folder).as_posix()}
    bundle = _bundle_bytes(entries)
    bundle_name = f"errdex-{stamp.replace(':', '')}.jsonl.gz"
    counts = {"records": len(entries), "added": len(report.added), "changed": len(report.changed),
              "withdrawn": len(report.withdrawn), "superseded": len(report.superseded), "unchanged": report.unchanged,
              "active": sum(1 for e in entries if e.record.get("status", "active") == "active")}
    report.manifest = {"version": stamp, "date": stamp[:10], "previous": report.previous, "counts": counts,
                       "bundle": {"file": bundle_name, "sha256": hashlib.sha256(bundle).hexdigest(), "bytes": len(bundle)},
                       "records": manifest_records}
    if check:
        return report
    with all_or_nothing(folder / JOURNAL, command="release", untouched="nothing was changed",
                        describe=lambda exc: "cannot write the release: "
                                             f"{f'{exc.filename}: ' if exc.filename else ''}{os_reason(exc)}") as change:
        _write_release(report, folder, entries, bundle, out, changelog, change)
    return report


#: The changelog is rewritten whole at every release; a file larger than this is no changelog of errdex's.
MAX_CHANGELOG_BYTES = 64 << 20


def _write_release(report: ReleaseReport, folder: Path, entries: list[_Entry], bundle: bytes,
                   out: str | Path | None, changelog: str | Path | None, change: Change) -> None:
    """Stage every file of the release in ``change``: records, manifest, bundle, its copy, the changelog."""
    stamp, bundle_name = report.version, report.manifest["bundle"]["file"]
    changelog_text = None  # read first: a changelog that cannot be read stops the release before any folder is made
    if changelog is not None:
        path = Path(changelog)
        existing = ""
        if os.path.lexists(path):  # a FIFO or /dev/zero is refused, not waited on or read without end
            raw = read_regular(path, limit=MAX_CHANGELOG_BYTES, error=InputError, what="a changelog")
            try:
                existing = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{path}: not UTF-8 (byte {exc.start + 1}); the changelog is Markdown text, "
                                 "save it as UTF-8") from exc
        clean_leftovers(path.parent if str(path.parent) else Path("."))
        successors = {e.record["id"]: e.record["slug"] for e in entries}
        changelog_text = _with_entry(existing, stamp, changelog_entry(report, successors)).encode("utf-8")
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
    clean_leftovers(target)
    change.write(target / bundle_name, bundle)
    change.write(target / f"{bundle_name}.sha256", f"{report.manifest['bundle']['sha256']}  {bundle_name}\n".encode())
    change.write(target / "manifest.json", manifest_text)
    report.bundle = target / bundle_name
    if changelog_text is not None:
        change.write(Path(changelog), changelog_text)


# ---- diff ----------------------------------------------------------------------------------------------


@dataclass
class DatasetDiff:
    """Two datasets compared record by record and field by field (volatile fields left out)."""

    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[dict[str, Any], list[tuple[str, Any, Any]]]] = field(default_factory=list)
    unchanged: int = 0

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def as_dict(self) -> dict[str, Any]:
        return {
            "added": [{"id": r["id"], "slug": r["slug"]} for r in self.added],
            "removed": [{"id": r["id"], "slug": r["slug"]} for r in self.removed],
            "changed": [{"id": r["id"], "slug": r["slug"],
                         "fields": [{"field": name, "old": old, "new": new} for name, old, new in fields]}
                        for r, fields in self.changed],
            "unchanged": self.unchanged,
        }


def _dataset(source: str | Path) -> dict[str, dict[str, Any]]:
    """Records by id from a folder, a file or bundle, or a release manifest (its bundle beside it)."""
    from errdex.records.loader import load_records

    if str(source) == "-":
        return _by_id(load_records(["-"]))
    path = Path(source)
    if path.suffix == ".json" and path.is_file():
        try:  # a look only: what is no manifest is read as records below, with their checks
            value = json.loads(read_regular(path, limit=MAX_MANIFEST_BYTES, error=DataError, what="a manifest"))
        except (DataError, ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and "bundle" in value and "records" in value and "version" in value:
            value = read_manifest(path)  # checked: its bundle's name and version come from the file
            name = value["bundle"]["file"]
            places = [path.parent / name, Path("build") / "releases" / str(value["version"]).replace(":", "") / name]
            bundle = next((place for place in places if place.is_file()), places[0])
            if not bundle.is_file():
                raise InputError(f"{path}: its bundle {name} is neither beside it nor in build/releases/; "
                                 "diff the bundle or a folder")
            _check_bundle(bundle, value["bundle"].get("sha256"), path)
            path = bundle
    if not path.exists():
        raise InputError(f"{source}: no such file or folder")
    return _by_id(load_records([path]))


def _check_bundle(bundle: Path, expected: Any, manifest: Path) -> None:
    """The bundle a manifest names is the one it describes: its SHA-256 is the manifest's."""
    digest = hashlib.sha256()
    try:
        with bundle.open("rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        raise InputError(f"{bundle}: cannot read: {(exc.strerror or str(exc)).lower()}") from exc
    if isinstance(expected, str) and digest.hexdigest() != expected:
        raise DataError(f"{bundle}: its SHA-256 is not the one {manifest} names; it is not that release's bundle "
                        "(cut short or replaced): diff the bundle itself, or restore it")


def _by_id(loaded: list[Any]) -> dict[str, dict[str, Any]]:
    """Records by id; two of one id would hide one of them from the comparison, so they are refused."""
    found: dict[str, Any] = {}
    for item in loaded:
        earlier = found.setdefault(item.record["id"], item)
        if earlier is not item:
            raise DataError(f"record id {item.record['id']!r} appears twice ({earlier.path}, {item.path}); "
                            "run 'errdex validate'")
    return {record_id: item.record for record_id, item in found.items()}


def diff(old: str | Path, new: str | Path) -> DatasetDiff:
    """Compare two folders, bundles or releases record by record and field by field (one may be ``-``, stdin)."""
    if str(old) == "-" and str(new) == "-":
        raise UsageError("only one side of a diff can be stdin ('-')")
    before, after = _dataset(old), _dataset(new)
    result = DatasetDiff()
    for record_id in sorted(set(before) | set(after)):
        a, b = before.get(record_id), after.get(record_id)
        if a is None:
            result.added.append(b)  # type: ignore[arg-type]
        elif b is None:
            result.removed.append(a)
        else:
            fields = [(name, a.get(name), b.get(name)) for name in sorted(set(a) | set(b))
                      if name not in VOLATILE and a.get(name) != b.get(name)]
            if fields:
                result.changed.append((b, fields))
            else:
                result.unchanged += 1
    return result

