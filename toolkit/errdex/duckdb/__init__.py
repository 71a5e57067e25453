"""errdex's matcher as a DuckDB function: ``errdex_matches(line)``, vectorised over Arrow.

:func:`register` adds to a connection a scalar function that takes a line
and gives the list of its matches, best first, as ``errdex match`` finds
them (the structs of :data:`errdex.spark.batches.MATCH_FIELDS`: id, slug,
repo, errorClass, severity, status, rank, score, groups, span). DuckDB hands
it whole vectors of lines, which are scanned as one block by the compiled
engine: much faster than the index's pure-SQL ``errdex_match`` macro, which
stays for plain DuckDB without Python.

    con = duckdb.connect()
    errdex.duckdb.register(con)
    con.sql("SELECT m.slug, count(*) FROM (SELECT unnest(errdex_matches(line)) AS m FROM logs) GROUP BY 1")
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

try:
    from duckdb.func import ARROW  # duckdb 2
except ImportError:  # duckdb 1.x, where the enum lived in duckdb.functional
    from duckdb.functional import ARROW  # type: ignore[import-not-found, no-redef]  # absent from duckdb 2

from errdex.match import KnowledgeBase, load
from errdex.records.loader import RecordStore
from errdex.spark.batches import match_arrow

__all__ = ["FUNCTION", "RETURN_TYPE", "register"]

#: The name :func:`register` gives the function unless told otherwise.
FUNCTION = "errdex_matches"
#: What the function returns for each line (NULL for a NULL line).
RETURN_TYPE = ("STRUCT(id VARCHAR, slug VARCHAR, repo VARCHAR, \"errorClass\" VARCHAR, severity VARCHAR, "
               "status VARCHAR, rank INTEGER, score BIGINT, groups VARCHAR[], span INTEGER[])[]")


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
