"""``diff``: two datasets (folders, files, bundles or releases) compared record by record and field by field."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._files import read_regular
from errdex.errors import DataError, InputError, UsageError, from_oserror
from errdex.records.hashing import differing_fields
from errdex.records.loader import LoadedRecord, load_records, refuse_duplicate_ids
from errdex.releases.manifest import MAX_MANIFEST_BYTES, read_manifest

__all__ = ["DatasetDiff", "diff"]


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
        raise from_oserror(exc, bundle, action="read") from exc
    if isinstance(expected, str) and digest.hexdigest() != expected:
        raise DataError(f"{bundle}: its SHA-256 is not the one {manifest} names; it is not that release's bundle "
                        "(cut short or replaced): diff the bundle itself, or restore it")


def _by_id(loaded: list[LoadedRecord]) -> dict[str, dict[str, Any]]:
    """Records by id; two of one id would hide one of them from the comparison, so they are refused."""
    refuse_duplicate_ids(loaded)
    return {item.record["id"]: item.record for item in loaded}


def diff(old: str | Path, new: str | Path) -> DatasetDiff:
    """Compare two folders, bundles or releases record by record and field by field (one may be ``-``, stdin)."""
    if str(old) == "-" and str(new) == "-":
        raise UsageError("only one side of a diff can be stdin ('-')")
    before, after = _dataset(old), _dataset(new)
    result = DatasetDiff()
    for record_id in sorted(set(before) | set(after)):
        a, b = before.get(record_id), after.get(record_id)
        if a is None:
            assert b is not None  # the id is on one side at least
            result.added.append(b)
        elif b is None:
            result.removed.append(a)
        else:
            # a field missing on one side and null on the other reads the same here (both print as null)
            fields = [(name, a.get(name), b.get(name)) for name in sorted(differing_fields(a, b))
                      if a.get(name) != b.get(name)]
            if fields:
                result.changed.append((b, fields))
            else:
                result.unchanged += 1
    return result

