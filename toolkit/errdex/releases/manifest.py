"""Release manifests (``records/.releases/VERSION.json``): reading one strictly, and the history they tell."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from errdex._files import read_regular
from errdex.errors import DataError
from errdex.records.jsontext import parse_document
from errdex.records.sources import bundled_records_dir

__all__ = ["MAX_MANIFEST_BYTES", "RELEASES", "history_folder", "read_manifest", "record_releases",
           "release_history"]

#: The folder, inside a records folder, that holds its release manifests.
RELEASES = ".releases"

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
