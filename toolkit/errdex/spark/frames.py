"""``errdex.spark.match``: a DataFrame's log lines matched on Spark's workers by errdex's own engine.

The matcher is compiled once on the driver (:func:`errdex.spark.shipped.ship`)
and broadcast as bytes; each Python worker builds its knowledge base from
them the first time a task needs it and keeps it for the tasks that follow
(Spark reuses its Python workers). Rows go through ``mapInArrow``: each Arrow
batch is one block scanned at once, as ``errdex match`` scans a file.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.broadcast import Broadcast
from pyspark.sql import DataFrame
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from errdex.errors import UsageError
from errdex.records.loader import RecordStore
from errdex.spark.batches import match_arrow, valid_text
from errdex.spark.shipped import cached, knowledge, ship

__all__ = ["COLUMN", "MATCH_SCHEMA", "match"]

#: The column ``match`` adds.
COLUMN = "errdex"
#: Spark's type of one match (the Arrow type is :data:`errdex.spark.batches.MATCH_TYPE`).
MATCH_SCHEMA = StructType([
    *(StructField(name, StringType()) for name in ("id", "slug", "repo", "errorClass", "severity", "status")),
    StructField("rank", IntegerType()), StructField("score", LongType()),
    StructField("groups", ArrayType(StringType())), StructField("span", ArrayType(IntegerType())),
    StructField("moreMatches", IntegerType()), StructField("unchecked", IntegerType()),
])


def _match_batches(key: str, shipped: Broadcast[bytes], column: str, all_matches: bool, matched_only: bool,
                   bytes_column: str | None, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """On a worker: each batch with the matches of its ``column`` added (with ``matched_only``, its matching
    rows alone: the others are never converted back into Spark's rows); with ``bytes_column``, ``column``
    made valid UTF-8 and the original bytes of its invalid lines beside it (:func:`valid_text`)."""
    kb = cached(key) or knowledge(shipped.value, key)  # the broadcast is read only by a worker's first task
    for batch in batches:
        found = match_arrow(kb, batch.column(column), all_matches=all_matches)
        columns, names = [*batch.columns, found], [*batch.schema.names, COLUMN]
        if bytes_column is not None:
            at = batch.schema.get_field_index(column)
            for other, field in enumerate(batch.schema):
                if other != at and (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
                    columns[other] = valid_text(batch.column(other))[0]  # Spark's _corrupt_record of a JSON line
            columns[at], originals = valid_text(batch.column(at))
            columns.insert(at + 1, originals)
            names.insert(at + 1, bytes_column)
        out = pa.RecordBatch.from_arrays(columns, names=names)
        if matched_only:
            out = out.filter(pc.greater(pc.list_value_length(found), 0) if all_matches else found.is_valid())
        yield out


def match(df: DataFrame, column: str = "message", *,
          records: RecordStore | Sequence[dict[str, Any]] | Sequence[str | Path] | None = None,
          include_retired: bool = False, all_matches: bool = False, matched_only: bool = False,
          bytes_column: str | None = None) -> DataFrame:
    """``df`` with an ``errdex`` column: the best match of ``column`` (a struct of
    :data:`MATCH_SCHEMA`, null when no record matches), or with ``all_matches`` every match best first (an
    array, empty when none; null for a null line).

    ``records``: a record store, records in memory, or record files and folders (default: the bundled
    dataset); retired records are not matched unless ``include_retired``. Each value of ``column`` (string or
    binary) is matched as ``errdex match`` matches one line of a file. ``matched_only``: only the rows
    that matched, dropped on the workers (cheaper than a ``where`` after: Spark never converts them back).
    ``bytes_column``: a name for a binary column, put after a string ``column``, holding the original bytes
    of each line that was not valid UTF-8 (null for the others); ``column`` then holds the text as matched,
    each invalid sequence replaced by U+FFFD, as does every other string column of ``df`` (its bytes not
    kept). Spark's text reader keeps a line's bytes as they are (its JSON reader a malformed line's, in
    ``_corrupt_record``), and Parquet readers such as DuckDB refuse a string column that is not UTF-8.
    """
    fields = {f.name: f for f in df.schema.fields}
    if column not in fields:
        raise UsageError(f"no column {column!r} in the DataFrame (its columns: {', '.join(df.columns)})")
    if not isinstance(fields[column].dataType, (StringType, BinaryType)):
        raise UsageError(f"column {column!r} holds {fields[column].dataType.simpleString()}, not text")
    if bytes_column in (column, COLUMN):
        raise UsageError(f"the original bytes cannot go in {bytes_column!r}: choose another name")
    for taken in (COLUMN, bytes_column):
        if taken in fields:
            raise UsageError(f"the DataFrame has an {taken!r} column already: rename or drop it first")
    if not isinstance(fields[column].dataType, StringType):
        bytes_column = None  # binary lines are kept as they are: nothing to repair
    shipped = ship(records, include_retired=include_retired)
    broadcast = df.sparkSession.sparkContext.broadcast(shipped.data)
    kind = ArrayType(MATCH_SCHEMA) if all_matches else MATCH_SCHEMA
    inputs = list(df.schema.fields)
    if bytes_column is not None:
        inputs.insert(df.columns.index(column) + 1, StructField(bytes_column, BinaryType()))
    schema = StructType([*inputs, StructField(COLUMN, kind)])
    run = functools.partial(_match_batches, shipped.key, broadcast, column, all_matches, matched_only, bytes_column)
    return df.mapInArrow(run, schema)
