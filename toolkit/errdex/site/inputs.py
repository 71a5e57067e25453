"""What a site build is given, checked before anything is written: the proofs, the records' files, ``--out``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from errdex.errors import DataError, InputError, UsageError
from errdex.records.jsonfile import read_json_file
from errdex.site import folder as folders
from errdex.site.urls import record_json_path, record_path

__all__ = ["load_proofs", "make_parent", "out_folder", "unique_files"]


#: The output of ``errdex prove --format json`` for a very large dataset stays well below this.
MAX_PROOFS_BYTES = 256 << 20


def load_proofs(proofs: Path | dict[str, Any] | None) -> dict[str, dict[str, Any]] | None:
    if proofs is None:
        return None
    expected = "expected the output of 'errdex prove --format json'"
    data: Any  # what the file holds: any JSON value until checked below
    if isinstance(proofs, dict):
        data = proofs
    else:
        data = read_json_file(proofs, hint=expected)
    records = data.get("records") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise InputError(f"{proofs}: no 'records' list ({expected})")
    for number, record in enumerate(records):
        scenarios = record.get("scenarios", []) if isinstance(record, dict) else None
        if not isinstance(scenarios, list) or not all(
                isinstance(s, dict) and isinstance(s.get("id", ""), str) and isinstance(s.get("failures", []), list)
                for s in scenarios):
            raise InputError(f"{proofs}: /records/{number}: expected a record's proof, with a list of scenario "
                             f"objects ({expected})")
    return {str(r.get("id")): r for r in records}


def unique_files(loaded: Sequence[Any]) -> None:
    """Refuse records that would share a page or a JSON file, rather than let one overwrite the other."""
    for path_of, what in ((record_path, "page"), (record_json_path, "JSON file")):
        seen: dict[str, Any] = {}
        for item in loaded:
            first = seen.setdefault(path_of(item.record), item)
            if first is not item:
                raise DataError(f"{item.path}: this record and the one in {first.path} would share the {what} "
                                f"{path_of(item.record)}; 'errdex validate' tells what to change")


def _outside_records(out: Path, records: Sequence[str | Path] | None) -> None:
    """Refuse an ``--out`` inside a records folder: its API files are record envelopes the next run would read."""
    where = Path(os.path.realpath(out))
    for given in records or ():
        folder = Path(os.path.realpath(given))
        if folder.is_dir() and (where == folder or folder in where.parents):
            raise UsageError(f"--out {out}: is inside the records folder {given}, where the site's JSON would be read "
                             "as records by the next command; choose a folder outside it")


def out_folder(given: Path, records: Sequence[str | Path] | None) -> Path:
    """The folder to build into, normalised, once it is known to be one errdex may replace."""
    out = Path(os.path.normpath(given))
    if out.name in ("", ".", ".."):  # the folder's own name is needed for the ones built beside it
        out = Path(os.path.abspath(out))
    folders.check_out(out)
    _outside_records(out, records)
    return out


def make_parent(out: Path) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{out.parent}: cannot create: {(exc.strerror or str(exc)).lower()}") from exc
