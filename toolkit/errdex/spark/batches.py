"""Matching a column of log lines held in Arrow: what Spark's workers and DuckDB's function both run.

A batch of values becomes one block of lines (each value one line, as the
line reader would give it: carriage returns at its end dropped, invalid
UTF-8 replaced), matched by one scan of :meth:`KnowledgeBase.match_block`,
so each value gets exactly what ``errdex match`` gives that line. A value
holding a line break is matched on its own, as one text. Each result is the
list of matches, best first, as structs of :data:`MATCH_FIELDS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from errdex.match import KnowledgeBase, Match
from errdex.match.lines import normalised
from errdex.records.vocabulary import status_of

__all__ = ["MATCHES_TYPE", "MATCH_FIELDS", "MATCH_TYPE", "match_arrow", "match_values", "struct_of"]

#: The fields of one match: the record's identifying fields, its place among the line's matches (1 is the
#: best, the one ``errdex match`` shows), its score, captured groups and the span ``[start, end)`` in characters.
MATCH_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("id", pa.string()), ("slug", pa.string()), ("repo", pa.string()), ("errorClass", pa.string()),
    ("severity", pa.string()), ("status", pa.string()), ("rank", pa.int32()), ("score", pa.int64()),
    ("groups", pa.list_(pa.string())), ("span", pa.list_(pa.int32())),
)
MATCH_TYPE = pa.struct(list(MATCH_FIELDS))
MATCHES_TYPE = pa.list_(MATCH_TYPE)


def struct_of(match: Match, rank: int) -> dict[str, Any]:
    """One match as a row of :data:`MATCH_TYPE`."""
    view = match.view
    status = status_of(view)
    return {"id": view["id"], "slug": view["slug"], "repo": view["repo"], "errorClass": view["errorClass"],
            "severity": view["severity"], "status": status if isinstance(status, str) else None, "rank": rank,
            "score": match.score, "groups": list(match.groups), "span": list(match.span)}


def match_values(kb: KnowledgeBase, values: Sequence[bytes | None]) -> list[list[Match] | None]:
    """The matches of each value (UTF-8 bytes) best first; ``[]`` for a value that matches nothing, None for
    a null."""
    results: list[list[Match] | None] = [None if v is None else [] for v in values]
    alone = [i for i, v in enumerate(values) if v is not None and b"\n" in v]
    lines = [b"" if v is None or b"\n" in v else v for v in values]
    if lines:
        for index, _text, matches in kb.match_block(normalised(b"\n".join(lines))):
            if values[index] is not None:
                results[index] = matches
    for index in alone:
        results[index] = kb.match(normalised(values[index] or b"").decode("utf-8"))
    return results


def _binary(array: pa.Array | pa.ChunkedArray) -> list[bytes | None]:
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if pa.types.is_string(array.type):
        array = array.cast(pa.binary())
    elif pa.types.is_large_string(array.type):
        array = array.cast(pa.large_binary())
    elif pa.types.is_string_view(array.type):
        array = array.cast(pa.binary())
    values: list[bytes | None] = array.to_pylist()
    return values


def match_arrow(kb: KnowledgeBase, array: pa.Array | pa.ChunkedArray, *, all_matches: bool = True) -> pa.Array:
    """The matches of each value of a string (or binary) array: a list of :data:`MATCH_TYPE` per value (null
    for a null), or with ``all_matches=False`` the best match alone (null when none)."""
    found = match_values(kb, _binary(array))
    if all_matches:
        rows: list[Any] = [None if m is None else [struct_of(one, rank) for rank, one in enumerate(m, 1)]
                           for m in found]
        return pa.array(rows, type=MATCHES_TYPE)
    return pa.array([struct_of(m[0], 1) if m else None for m in found], type=MATCH_TYPE)
