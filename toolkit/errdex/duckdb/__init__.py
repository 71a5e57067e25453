"""errdex's matcher as a DuckDB function: ``errdex_matches(line)``, vectorised over Arrow.

:func:`register` adds to a connection a scalar function that takes a line
and gives the list of its matches, best first, as ``errdex match`` finds
them (the structs of :data:`errdex.spark.batches.MATCH_FIELDS`: id, slug,
repo, errorClass, severity, status, rank, score, groups, span, moreMatches,
unchecked). DuckDB hands
it whole vectors of lines, which are scanned as one block by the compiled
engine: much faster than the index's pure-SQL ``errdex_match`` macro, which
stays for plain DuckDB without Python.

    con = duckdb.connect()
    errdex.duckdb.register(con)
    con.sql("SELECT m.slug, count(*) FROM (SELECT unnest(errdex_matches(line)) AS m FROM logs) GROUP BY 1")

DuckDB calls a scalar function once per vector of 2048 rows, and each call
pays a fixed cost (Arrow in and out, the GIL). For a whole table,
:func:`match_relation` is the faster route: it reads the relation as Arrow
batches of :data:`BATCH_ROWS` rows, matches each in one scan and streams the
rows back with an ``errdex`` column, for DuckDB to query like a table.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

try:
    from duckdb.func import ARROW  # duckdb 2
except ImportError:  # duckdb 1.x, where the enum lived in duckdb.functional
    from duckdb.functional import ARROW  # type: ignore[import-not-found, no-redef]  # absent from duckdb 2

from errdex.errors import UsageError
from errdex.match import KnowledgeBase, load
from errdex.records.loader import RecordStore
from errdex.spark.batches import MATCH_TYPE, MATCHES_TYPE, match_arrow

__all__ = ["BATCH_ROWS", "FUNCTION", "RETURN_TYPE", "match_relation", "register"]

#: Rows :func:`match_relation` matches at a time (a scalar function gets 2048).
BATCH_ROWS = 100_000

#: The name :func:`register` gives the function unless told otherwise.
FUNCTION = "errdex_matches"
#: What the function returns for each line (NULL for a NULL line).
RETURN_TYPE = ("STRUCT(id VARCHAR, slug VARCHAR, repo VARCHAR, \"errorClass\" VARCHAR, severity VARCHAR, "
               "status VARCHAR, rank INTEGER, score BIGINT, groups VARCHAR[], span INTEGER[], \"moreMatches\" INTEGER, "
               "unchecked INTEGER)[]")


def _knowledge(records: KnowledgeBase | RecordStore | Sequence[dict[str, Any]] | Sequence[str | Path] | None,
               include_retired: bool) -> KnowledgeBase:
    if isinstance(records, KnowledgeBase):
        return records
    if isinstance(records, RecordStore) or (records and all(isinstance(r, dict) for r in records)):
        return KnowledgeBase(records, include_retired=include_retired)  # type: ignore[arg-type]  # dicts here
    paths = [r for r in records or () if isinstance(r, (str, Path))]
    return load(paths or None, include_retired=include_retired)


def register(con: duckdb.DuckDBPyConnection, *,
             records: KnowledgeBase | RecordStore | Sequence[dict[str, Any]] | Sequence[str | Path] | None = None,
             include_retired: bool = False, name: str = FUNCTION) -> KnowledgeBase:
    """Register ``name(line VARCHAR)`` on ``con``: the matches of the line, best first (an empty list when
    none). ``records``: a knowledge base, a record store, records in memory, or record files and folders
    (default: the bundled dataset); retired records are not matched unless ``include_retired``. Returns the
    knowledge base the function matches with."""
    kb = _knowledge(records, include_retired)
    lock = threading.Lock()  # DuckDB calls from several threads; the matcher holds one hyperscan scratch

    def matches(lines: pa.Array) -> pa.Array:
        with lock:
            return match_arrow(kb, lines, all_matches=True)

    con.create_function(name, matches, [duckdb.sqltype("VARCHAR")], duckdb.sqltype(RETURN_TYPE),
                        type=ARROW, side_effects=False)
    return kb


def match_relation(relation: duckdb.DuckDBPyRelation, column: str = "message", *,
                   records: KnowledgeBase | RecordStore | Sequence[dict[str, Any]] | Sequence[str | Path] | None = None,
                   include_retired: bool = False, all_matches: bool = True,
                   batch_rows: int = BATCH_ROWS) -> pa.RecordBatchReader:
    """The rows of ``relation`` with an ``errdex`` column added: what ``errdex_matches(column)`` gives (or with
    ``all_matches=False`` the best match alone, a struct, null when none), computed ``batch_rows`` rows at a
    time and streamed as Arrow batches. Query the result with ``con.from_arrow(reader)``, or name it in SQL.

    The relation is read while the result is consumed: when both are on one connection, make the relation
    on a cursor of it (``con.cursor().sql(...)``; a cursor sees the database's tables, not its TEMP ones).
    """
    if column not in relation.columns:
        raise UsageError(f"no column {column!r} in the relation (its columns: {', '.join(relation.columns)})")
    if "errdex" in relation.columns:
        raise UsageError("the relation has an 'errdex' column already: rename or leave it out first")
    if isinstance(batch_rows, bool) or batch_rows < 1:
        raise UsageError(f"batch_rows must be a whole number from 1, not {batch_rows!r}")
    kb = _knowledge(records, include_retired)
    stream = relation.to_arrow_reader(batch_rows) if hasattr(relation, "to_arrow_reader") else \
        relation.fetch_record_batch(batch_rows)  # duckdb 1.x: the older name
    schema = stream.schema.append(pa.field("errdex", MATCHES_TYPE if all_matches else MATCH_TYPE))
    at = stream.schema.get_field_index(column)

    def batches() -> Iterator[pa.RecordBatch]:
        for batch in stream:
            found = match_arrow(kb, batch.column(at), all_matches=all_matches)
            yield pa.RecordBatch.from_arrays([*batch.columns, found], schema=schema)

    return pa.RecordBatchReader.from_batches(schema, batches())
