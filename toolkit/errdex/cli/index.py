"""``errdex index`` and ``errdex query``: thin wrappers over :mod:`errdex.index`."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

import click

from errdex.cli._common import echo, format_option, no_dash, quiet_option, records_option, stderr_line
from errdex.index import build_index, query

_DB = click.option("--db", type=click.Path(dir_okay=False, path_type=Path), callback=no_dash,
                   help="Index file (default: a per-user cache, refreshed when the records change).")


@click.command("index")
@records_option
@_DB
@format_option("text", "json")
@quiet_option
def index_command(records: tuple[str, ...], db: Path | None, fmt: str, quiet: bool) -> int:
    """Build the DuckDB index of the records (written to a temporary file, then renamed).

    Other commands build or refresh the cached index by themselves; use this
    to write one where you want it.

    \b
    Example:
      errdex index --db errdex.duckdb
      duckdb errdex.duckdb "SELECT slug, error_class FROM records"
    """
    info = build_index(list(records) or None, db=db)
    if fmt == "json":
        echo(json.dumps({"path": str(info.path), "records": info.record_count, "contentHash": info.content_hash}) + "\n")
    else:
        echo(f"{info.path}\n")
        if not quiet:
            stderr_line(f"indexed {info.record_count} record(s)")
    return 0


def _cell(value: Any) -> str:
    return "NULL" if value is None else str(value)


def _table(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    cells = [[_cell(v).replace("\n", "\\n") for v in row] for row in rows]
    widths = [min(60, max([len(c)] + [len(r[i]) for r in cells])) for i, c in enumerate(columns)]
    def line(values: list[str]) -> str:
        return "  ".join((v if len(v) <= w else v[: w - 1] + "…").ljust(w) for v, w in zip(values, widths)).rstrip()
    out = [line(columns), line(["-" * w for w in widths])] + [line(r) for r in cells]
    return "\n".join(out) + "\n"


@click.command("query")
@click.argument("sql")
@records_option
@_DB
@format_option("text", "json", "csv")
def query_command(sql: str, records: tuple[str, ...], db: Path | None, fmt: str) -> int:
    """Run read-only SQL against the index (SQL may be - to read it from stdin).

    Tables: records, solutions, prevention_tips, tags, scenarios, metadata
    (see the README for their columns).

    \b
    Example:
      errdex query "SELECT slug, error_class, severity FROM records ORDER BY slug"
      errdex query "SELECT tag, count(*) FROM tags GROUP BY tag" --format csv
    """
    if sql == "-":
        sql = sys.stdin.read()
    result = query(sql, records=list(records) or None, db=db)
    if fmt == "json":
        rows = [dict(zip(result.columns, row)) for row in result.rows]
        echo(json.dumps(rows, indent=2, ensure_ascii=False, default=str) + "\n")
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows(result.rows)
        echo(buffer.getvalue())
    else:
        echo(_table(result.columns, result.rows))
    return 0
