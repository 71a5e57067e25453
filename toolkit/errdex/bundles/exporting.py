"""Exporting the dataset as a JSONL bundle, a Parquet file or a DuckDB database.

JSONL holds one canonical envelope per line, sorted by id; Parquet one row per record (lists as lists); DuckDB
is the database ``errdex index`` builds. Every output is written to a temporary file next to its target and
renamed.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from errdex._duckdb import connect, out_of_limits
from errdex._files import clean_leftovers, crash_point, refuse_special, replacing, stage, write_atomic
from errdex.bundles.reports import ExportReport
from errdex.errors import DataError, UsageError, from_oserror
from errdex.records.canonical import canonical_text
from errdex.records.columns import record_columns
from errdex.records.loader import LoadedRecord, load_records, refuse_duplicate_ids

__all__ = ["EXPORT_FORMATS", "export_dataset", "parquet_columns"]

EXPORT_FORMATS = ("jsonl", "parquet", "duckdb")


def _sorted_records(records: Sequence[str | Path] | None) -> list[LoadedRecord]:
    items = load_records(records)
    refuse_duplicate_ids(items)
    return sorted(items, key=lambda item: item.record["id"])


def _jsonl_bytes(items: list[LoadedRecord], gzipped: bool) -> bytes:
    lines = []
    for item in items:
        if item.dataset_version is None:
            raise DataError(f"{item.path}: a bare record without datasetVersion; a bundle holds envelopes")
        envelope = {"record": item.record, "datasetVersion": item.dataset_version}
        lines.append(canonical_text(envelope, bundle_line=True) + "\n")
    data = "".join(lines).encode("utf-8", "surrogatepass")
    return gzip.compress(data, compresslevel=9, mtime=0) if gzipped else data



def parquet_columns() -> dict[str, str]:
    """Every column of the Parquet export and its type: the record fields (in format order), then datasetVersion."""
    return {**record_columns(), "datasetVersion": "VARCHAR"}


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _write_parquet(items: list[LoadedRecord], target: Path, *, named: Path | None = None) -> None:
    """One row per record through DuckDB's read_json over a temporary JSONL file of the records."""
    import duckdb  # start-up: DuckDB loads only for a Parquet or DuckDB export, not for every bundle command

    columns = parquet_columns()
    lines = [json.dumps({**{k: v for k, v in item.record.items() if k in columns},
                         "datasetVersion": item.dataset_version}, ensure_ascii=True) for item in items]
    spec = "{" + ", ".join(f"{_sql_text(name)}: {_sql_text(kind)}" for name, kind in columns.items()) + "}"
    largest = max((len(line) for line in lines), default=0)
    data = "".join(line + "\n" for line in lines).encode("ascii")
    # beside the output, named for this process: what a run killed here leaves, the next export removes
    source = stage(named or target, data)
    try:
        crash_point("export:scratch-written")
        names = ", ".join(f'"{name}"' for name in columns)
        sql = (f"COPY (SELECT {names} FROM read_json({_sql_text(str(source))}, format='newline_delimited', "
               f"maximum_object_size={max(16 << 20, 2 * largest)}, columns={spec}) ORDER BY id) "
               f"TO {_sql_text(str(target))} (FORMAT parquet)")
        con = connect()  # bounded memory and spill, in errdex's spill folder
        try:
            con.execute(sql)
        except duckdb.Error as exc:
            reason = out_of_limits(exc) or " ".join(str(exc).split())
            raise DataError(f"cannot write Parquet to {named or target}: {reason}") from exc
        finally:
            con.close()
    finally:
        source.unlink(missing_ok=True)


def _replace_via_temporary(output: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` for a temporary file next to ``output``, then rename it over ``output``."""
    try:
        with replacing(output) as tmp:  # a read-only folder refuses even its first unlink: output is named
            write(tmp)
    except OSError as exc:
        raise from_oserror(exc, output, action="write") from exc


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
        clean_leftovers(output.parent)  # what exports killed here left (their temporary files, by their pid)
        if format == "jsonl":
            write_atomic(output, _jsonl_bytes(items, output.name.lower().endswith(".gz")))
    except OSError as exc:  # a full disk, a read-only folder: name the file, not only the reason
        raise from_oserror(exc, output, action="write") from exc
    if format == "parquet":
        _replace_via_temporary(output, lambda tmp: _write_parquet(items, tmp, named=output))
    elif format == "duckdb":
        from errdex.index import build_index  # start-up: as duckdb above

        build_index(db=output, loaded=items)
    return ExportReport(format, output, len(items), output.stat().st_size)
