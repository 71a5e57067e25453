"""Matching a column of log lines held in Arrow: what Spark's workers and DuckDB's function both run.

A batch of values becomes one block of lines (each value one line, as the
line reader would give it: carriage returns at its end dropped, invalid
UTF-8 replaced), matched by one scan of :meth:`KnowledgeBase.match_block`,
so each value gets exactly what ``errdex match`` gives that line. A value
holding a line break is matched on its own, as one text. Each result is the
list of matches, best first, as structs of :data:`MATCH_FIELDS`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

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
    array = pa.array(values, type=pa.binary())
    found = _found(kb, array)
    return [None if v is None else found.get(i, []) for i, v in enumerate(values)]


def _block(array: pa.Array) -> tuple[bytes, list[int]]:
    """The values as one block of lines (a null or a value with a line break as an empty line), and the
    positions of the values with a line break."""
    texts = array.fill_null(b"") if array.null_count else array
    lists = pa.LargeListArray if pa.types.is_large_binary(texts.type) else pa.ListArray
    offsets = pa.array([0, len(texts)], pa.int64() if lists is pa.LargeListArray else pa.int32())
    separator = pa.scalar(b"\n", texts.type)
    block: bytes = pc.binary_join(lists.from_arrays(offsets, texts), separator)[0].as_py() or b""
    if block.count(b"\n") == len(texts) - 1:  # no value holds a line break: the common case, and the fast one
        return block, []
    breaks = pc.match_substring(texts, "\n")
    alone = [i for i, has in enumerate(breaks.to_pylist()) if has]
    texts = pc.if_else(breaks, pa.scalar(b"", texts.type), texts)
    return pc.binary_join(lists.from_arrays(offsets, texts), separator)[0].as_py() or b"", alone


def _found(kb: KnowledgeBase, array: pa.Array) -> dict[int, list[Match]]:
    """Position -> matches (best first) of the values of a binary array that match."""
    if not len(array):
        return {}
    block, alone = _block(array)
    found = {index: matches for index, _text, matches in kb.match_block(normalised(block))
             if matches and array[index].is_valid}
    for index in alone:
        matches = kb.match(normalised(array[index].as_py()).decode("utf-8"))
        if matches:
            found[index] = matches
        else:
            found.pop(index, None)
    return found


def _binary(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if pa.types.is_large_string(array.type):
        return array.cast(pa.large_binary())
    if pa.types.is_large_binary(array.type) or pa.types.is_binary(array.type):
        return array
    return array.cast(pa.binary())


def match_arrow(kb: KnowledgeBase, array: pa.Array | pa.ChunkedArray, *, all_matches: bool = True) -> pa.Array:
    """The matches of each value of a string (or binary) array: a list of :data:`MATCH_TYPE` per value (null
    for a null), or with ``all_matches=False`` the best match alone (null when none)."""
    values = _binary(array)
    found = _found(kb, values)
    order = sorted(found)
    if not all_matches:
        best = pa.array([struct_of(found[i][0], 1) for i in order], type=MATCH_TYPE)
        where: list[int | None] = [None] * len(values)
        for position, index in enumerate(order):
            where[index] = position
        return best.take(pa.array(where, type=pa.int32()))
    flat = pa.array([struct_of(one, rank) for i in order for rank, one in enumerate(found[i], 1)], type=MATCH_TYPE)
    counts = [0] * len(values)
    for index in order:
        counts[index] = len(found[index])
    offsets = pa.array(list(itertools.accumulate(counts, initial=0)), type=pa.int32())
    return pa.ListArray.from_arrays(offsets, flat, type=MATCHES_TYPE, mask=values.is_null())
