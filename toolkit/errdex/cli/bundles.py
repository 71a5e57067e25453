"""``errdex import`` and ``errdex export``: thin wrappers over :mod:`errdex.bundles`."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import click

from errdex._files import scratch
from errdex.bundles import (
    EXPORT_FORMATS,
    ImportEntry,
    ImportReport,
    export_dataset,
    import_bundle,
)
from errdex.cli._common import (
    PATH_TEXT,
    PathType,
    echo,
    echo_line,
    format_option,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.errors import ErrdexError, UsageError

#: The largest bundle ``import -`` reads from stdin (as a bundle file's lines, 64 MiB each, are bounded).
STDIN_BUNDLE_MAX_BYTES = 1 << 30


def _where(entry: ImportEntry) -> str:
    name = f"{entry.repo}/{entry.slug}" if entry.repo and entry.slug else "?"
    return f"{entry.record_id or '?'} {name}"


def _entry_line(entry: ImportEntry, report: ImportReport) -> str | None:
    """One line for a record that is added, conflicting or invalid (None for an unchanged one)."""
    if entry.status == "unchanged":
        return None
    if entry.status == "invalid":
        more = len(entry.reasons) - 1
        hint = f" (+{more} more; run 'errdex validate {report.bundle}')" if more else ""
        return f"invalid   {_where(entry)}: {entry.reasons[0]}{hint}"
    would = report.check and not report.blocked
    if entry.status == "conflict":
        verb = "replaced" if entry.written else "would replace" if would and report.overwrite else "conflict"
        return f"{verb:<9} {_where(entry)} -> {entry.path}: {'; '.join(entry.reasons)}"
    verb = "added" if entry.written else "would add" if would else "new"
    return f"{verb:<9} {_where(entry)} -> {entry.path}"


def _summary(report: ImportReport) -> str:
    counts = report.as_dict()["counts"]
    text = (f"{report.bundle}: {len(report.entries)} record(s): {counts['added']} new, "
            f"{counts['unchanged']} unchanged, "
            f"{counts['conflict']} conflict(s), {counts['invalid']} invalid")
    if report.blocked:
        if report.overwrite:
            return (f"{text}; nothing written: a conflicting record sits in a bundle of the records folder; "
                    "change it there")
        if report.conflicts:
            return f"{text}; nothing written: pass --overwrite to replace the conflicting records"
        return f"{text}; nothing written: fix the invalid record(s), or pass --overwrite to import the others"
    if report.check:
        return f"{text}; --check: nothing written"
    removed = f", removed {len(report.removed)}" if report.removed else ""
    return f"{text}; wrote {len(report.written)} file(s){removed}"


def _one_folder(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> Path | None:
    """``--records`` for import: the one folder it imports into (repeatable as everywhere, given once here)."""
    if len(value) > 1:
        raise click.BadParameter("import brings records into one folder; give --records once", ctx, param)
    if value and value[0] == "-":
        raise click.BadParameter("'-' (stdin/stdout) cannot be used here; name a folder", ctx, param)
    return Path(value[0]) if value else None


def _import_stdin(records_dir: Path | None, overwrite: bool, check: bool) -> ImportReport:
    """``import -``: the bundle on stdin (gzipped or not), read into a temporary file named for what it holds;
    the report and any error name it ``<stdin>``."""
    data = sys.stdin.buffer.read(STDIN_BUNDLE_MAX_BYTES + 1)
    if len(data) > STDIN_BUNDLE_MAX_BYTES:
        raise UsageError(f"import -: the bundle on stdin is over {STDIN_BUNDLE_MAX_BYTES:,} bytes; save it as a file")
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    with scratch("import") as folder:
        path = folder / "stdin.jsonl"
        path.write_bytes(data)
        try:
            report = import_bundle(path, records_dir=records_dir, overwrite=overwrite, check=check)
        except ErrdexError as exc:
            raise type(exc)(str(exc).replace(str(path), "<stdin>")) from None
    report.bundle = "<stdin>"
    return report


@click.command("import")
@click.argument("bundle", metavar="BUNDLE | -", type=PATH_TEXT)
@records_option(default="the project's records/", what="the records folder to import into",
                callback=_one_folder)
@click.option("--records-dir", "records_dir", type=PathType(file_okay=False, path_type=Path), hidden=True,
              help="Deprecated: the old name of --records.")
@click.option("--overwrite", is_flag=True,
              help="Replace existing records that conflict (invalid records are never imported).")
@click.option("--check", is_flag=True, help="Change nothing; report what an import would do.")
@format_option("text", "json")
@quiet_option
def import_command(bundle: str, records: Path | None, records_dir: Path | None, overwrite: bool, check: bool,
                   fmt: str, quiet: bool) -> int:
    """Bring the records of a JSONL bundle of envelopes into the records folder.

    Every record is validated and compared with the folder's records: a new
    id is added as OWNER/REPO/SLUG.json, the same content is left alone, and
    the same id with other content or a slug another id holds is a conflict.
    Conflicts and invalid records block the whole import (nothing is written)
    unless --overwrite is given: conflicting records then replace the
    existing ones. Invalid records are never imported. Exit status: 0 when
    the import went through, 1 when something was blocked or invalid.

    \b
    Example:
      errdex import upstream.jsonl.gz --check
      errdex import upstream.jsonl.gz
      errdex import upstream.jsonl.gz --overwrite --format json
      curl -s https://example.org/errdex.jsonl.gz | errdex import - --check
    """
    if records_dir is not None:
        if records is not None:
            raise UsageError("give --records (the new name of --records-dir), not both")
        if not quiet:
            stderr_line("errdex: warning: --records-dir is deprecated; use --records")
        records = records_dir
    if bundle == "-":
        report = _import_stdin(records, overwrite, check)
    else:
        report = import_bundle(Path(bundle), records_dir=records, overwrite=overwrite, check=check)
    if fmt == "json":
        echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        for entry in report.entries:
            line = _entry_line(entry, report)
            if line is not None:
                echo_line(line)
    if not quiet:
        stderr_line(_summary(report))
    return 1 if report.blocked or report.invalid else 0


@click.command("export")
@click.option("--to", "to", type=click.Choice(EXPORT_FORMATS), default=None,
              help="The file type: jsonl (one envelope per line; .gz to gzip), parquet (one row per record) or "
                   "duckdb (the index).")
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default=None, hidden=True,
              help="Deprecated: the old name of --to.")
@click.option("--output", type=PathType(path_type=Path), required=True, metavar="PATH",
              help="File to write; - writes JSONL to stdout.")
@records_option
@quiet_option
def export_command(to: str | None, fmt: str | None, output: Path, records: tuple[str, ...], quiet: bool) -> int:
    """Write the dataset for others: a JSONL bundle, a Parquet file or a DuckDB database.

    JSONL holds one canonical envelope per line, sorted by id (the same
    records give the same bytes, gzipped too). Parquet has one row per
    record, the record's fields as columns with lists as lists (scenarios as
    a list of JSON) and datasetVersion. The file is written to a temporary
    file next to PATH, then renamed.

    \b
    Example:
      errdex export --to jsonl --output dist/errdex.jsonl.gz
      errdex export --to parquet --output errdex.parquet
      errdex export --to jsonl --output - | gzip > errdex.jsonl.gz
      duckdb -c "SELECT slug, solutions FROM 'errdex.parquet'"
    """
    if fmt is not None:
        if to is not None and to != fmt:
            raise UsageError(f"--to {to} and --format {fmt} disagree; give --to (--format is its old name)")
        if not quiet:
            stderr_line("errdex: warning: export --format is deprecated (--format means the output format "
                        "everywhere else); use --to")
        to = fmt
    if to is None:
        raise UsageError(f"export needs --to {'|'.join(EXPORT_FORMATS)} (the file type to write)")
    report = export_dataset(to, output, records=list(records) or None)
    if not quiet:
        where = "stdout" if str(report.path) == "-" else report.path
        stderr_line(f"exported {report.records} record(s) to {where} ({report.format}, {report.bytes:,} bytes)")
    return 0
