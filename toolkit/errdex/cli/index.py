"""``errdex index`` and ``errdex query``: thin wrappers over :mod:`errdex.index`."""

from __future__ import annotations

import csv
import functools
import io
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from errdex.cli._common import (
    busy,
    echo,
    echo_text,
    format_option,
    no_dash,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.errors import UsageError
from errdex.index import QUERY_ROW_LIMIT, QUERY_TIMEOUT_S, build_index, query
from errdex.terminal import safe

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
    with busy("indexing", quiet=quiet):
        info = build_index(list(records) or None, db=db)
    if fmt == "json":
        summary = {"path": str(info.path), "records": info.record_count, "contentHash": info.content_hash}
        echo(json.dumps(summary) + "\n")
    else:
        echo(f"{info.path}\n")
        if not quiet:
            stderr_line(f"indexed {info.record_count} record(s)")
    return 0


def _cell(value: Any) -> str:
    """A value as the table shows it: on one line, control characters escaped (a record field can hold them)."""
    return safe(("NULL" if value is None else str(value)).replace("\n", "\\n"), newlines=False)


#: Rows written to stdout at a time: the output of ``--limit 0`` is never built whole in memory (5 million rows
#: took 4.7 GB as one table, 6.3 GB as one JSON text, on top of the rows themselves).
_CHUNK_ROWS = 2000


def _chunks(rows: list[tuple[Any, ...]]) -> Iterator[list[tuple[Any, ...]]]:
    for start in range(0, len(rows), _CHUNK_ROWS):
        yield rows[start:start + _CHUNK_ROWS]


def _write_table(columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    """The rows as a text table, columns as wide as their widest value (at most 60), written a chunk at a time."""
    names = [_cell(c) for c in columns]
    widths = [len(name) for name in names]
    for row in rows:
        widths = [max(w, len(_cell(v))) if w < 60 else w for w, v in zip(widths, row, strict=True)]
    widths = [min(60, w) for w in widths]

    def line(values: list[str]) -> str:
        cut = [(v if len(v) <= w else v[: w - 1] + "…").ljust(w) for v, w in zip(values, widths, strict=True)]
        return "  ".join(cut).rstrip() + "\n"

    echo_text(line(names) + line(["-" * w for w in widths]))
    for chunk in _chunks(rows):
        echo_text("".join(line([_cell(v) for v in row]) for row in chunk))


def _write_json(columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    """What ``json.dumps(rows as objects, indent=2)`` gives, written a chunk at a time."""
    if not rows:
        echo("[]\n")
        return
    echo("[\n")
    for number, chunk in enumerate(_chunks(rows)):
        objects = (json.dumps(dict(zip(columns, row, strict=True)), indent=2, ensure_ascii=False, default=str)
                   for row in chunk)
        text = ",\n".join("  " + item.replace("\n", "\n  ") for item in objects)
        echo((",\n" if number else "") + text)
    echo("\n]\n")


def _write_csv(columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    chunks: list[Sequence[Sequence[Any]]] = [[columns], *_chunks(rows)]
    for chunk in chunks:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(chunk)
        echo(buffer.getvalue())


#: SQL read from stdin longer than this is refused rather than read whole.
_MAX_SQL_BYTES = 1 << 20


def _sql_from_stdin() -> str:
    data = sys.stdin.buffer.read(_MAX_SQL_BYTES + 1)
    if len(data) > _MAX_SQL_BYTES:
        raise UsageError(f"the SQL on stdin is longer than {_MAX_SQL_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"the SQL on stdin is not UTF-8 (byte {exc.start + 1})") from exc


@click.command("query")
@click.argument("sql")
@records_option
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), callback=no_dash,
              help="An index file made by 'errdex index --db' (default: the per-user cache). It must exist.")
@format_option("text", "json", "csv")
@click.option("--limit", type=click.IntRange(min=0), default=QUERY_ROW_LIMIT, show_default=True,
              help="Print at most this many rows (0: every row).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=QUERY_TIMEOUT_S, show_default=True,
              metavar="SECONDS", help="Stop the query after this long.")
@click.option("--spill-limit", metavar="SIZE",
              help="Disk the query may spill to past its memory: 2GiB, 500MB, 0 for none "
                   "[default: $ERRDEX_DUCKDB_SPILL, else 1GiB].")
@quiet_option
def query_command(sql: str, records: tuple[str, ...], db: Path | None, fmt: str, limit: int, timeout: float,
                  spill_limit: str | None, quiet: bool) -> int:
    """Run read-only SQL against the index (SQL may be - to read it from stdin).

    Tables: records, solutions, prevention_tips, tags, scenarios, metadata
    (see the README for their columns). The SQL sees the index and nothing
    else: no files, no extensions, no settings (see the README).

    \b
    Example:
      errdex query "SELECT slug, error_class, severity FROM records ORDER BY slug"
      errdex query "SELECT tag, count(*) FROM tags GROUP BY tag" --format csv
      echo "SELECT count(*) FROM records" | errdex query -
    """
    if sql == "-":
        sql = _sql_from_stdin()
    native = None
    if "errdex_matches" in sql.lower():  # the compiled engine as a function, loaded only when the SQL calls it
        from errdex import duckdb as errdex_duckdb  # here: it imports the matcher and Arrow (start-up time)

        native = functools.partial(errdex_duckdb.register, records=list(records) or None)
    result = query(sql, records=list(records) or None, db=db, limit=limit, timeout=timeout, prepare=native,
                   spill_limit=spill_limit)
    if fmt == "json":
        _write_json(result.columns, result.rows)
    elif fmt == "csv":
        _write_csv(result.columns, result.rows)
    elif result.columns:
        _write_table(result.columns, result.rows)
    if result.truncated and not quiet:
        stderr_line(f"only the first {limit} rows are shown (--limit 0 for every row)")
    return 0
