"""Matching a column of log lines held in Arrow: what Spark's workers and DuckDB's function both run.

A batch of values becomes one block of lines (each value one line, as the
line reader would give it: carriage returns at its end dropped, invalid
UTF-8 replaced), matched by one scan of :meth:`KnowledgeBase.match_block`,
so each value gets exactly what ``errdex match`` gives that line. A value
holding a line break is matched on its own, as one text. Each result is the
list of matches, best first, as structs of :data:`MATCH_FIELDS`.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from errdex.match import KnowledgeBase, Match
from errdex.match.engine import rest_of
from errdex.match.knowledge import has_json_line
from errdex.match.lines import normalised
from errdex.records.vocabulary import status_of

__all__ = ["MATCHES_TYPE", "MATCH_FIELDS", "MATCH_TYPE", "match_arrow", "match_values", "struct_of", "valid_text"]

#: The fields of one match: the record's identifying fields, its place among the line's matches (1 is the
#: best, the one ``errdex match`` shows), its score, captured groups and the span ``[start, end)`` in characters;
#: then what the line's list leaves out (the same in each match of the line, 0 but on a line that matched more
#: than :data:`~errdex.match.engine.MAX_LINE_MATCHES` records): ``moreMatches``, other records that match it,
#: and ``unchecked``, records whose literal text it holds that were not tried.
MATCH_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("id", pa.string()), ("slug", pa.string()), ("repo", pa.string()), ("errorClass", pa.string()),
    ("severity", pa.string()), ("status", pa.string()), ("rank", pa.int32()), ("score", pa.int64()),
    ("groups", pa.list_(pa.string())), ("span", pa.list_(pa.int32())), ("moreMatches", pa.int32()),
    ("unchecked", pa.int32()),
)
MATCH_TYPE = pa.struct(list(MATCH_FIELDS))
MATCHES_TYPE = pa.list_(MATCH_TYPE)


def struct_of(match: Match, rank: int, rest: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """One match as a row of :data:`MATCH_TYPE` (``rest``: ``(more, unchecked)`` of its line,
    :func:`~errdex.match.engine.rest_of`)."""
    view = match.view
    status = status_of(view)
    return {"id": view["id"], "slug": view["slug"], "repo": view["repo"], "errorClass": view["errorClass"],
            "severity": view["severity"], "status": status if isinstance(status, str) else None, "rank": rank,
            "score": match.score, "groups": list(match.groups), "span": list(match.span), "moreMatches": rest[0],
            "unchecked": rest[1]}


def match_values(kb: KnowledgeBase, values: Sequence[bytes | None]) -> list[list[Match] | None]:
    """The matches of each value (UTF-8 bytes) best first; ``[]`` for a value that matches nothing, None for
    a null."""
    array = pa.array(values, type=pa.binary())
    found = _found(kb, array)
    return [None if v is None else found.get(i, []) for i, v in enumerate(values)]


def _offsets(array: pa.Array) -> np.ndarray:
    """Where each value of a binary array starts in its data buffer, and where the last ends (a view)."""
    kind = np.int64 if pa.types.is_large_binary(array.type) else np.int32
    offsets = array.buffers()[1]
    if offsets is None:  # an array of no values
        return np.zeros(1, kind)
    return np.frombuffer(offsets, kind, len(array) + 1, array.offset * np.dtype(kind).itemsize)


def _block(array: pa.Array) -> tuple[bytes, list[int], np.ndarray | None]:
    """The values as one block of lines (a null or a value with a line break as an empty line), the
    positions of the values with a line break, and (when there are none) where each value starts in the
    block."""
    texts = array.fill_null(b"") if array.null_count else array
    lists = pa.LargeListArray if pa.types.is_large_binary(texts.type) else pa.ListArray
    offsets = pa.array([0, len(texts)], pa.int64() if lists is pa.LargeListArray else pa.int32())
    separator = pa.scalar(b"\n", texts.type)
    bounds = _offsets(texts)
    data = texts.buffers()[2]
    values = data[int(bounds[0]):int(bounds[-1])].to_pybytes() if data is not None else b""
    if b"\n" not in values:  # no value holds a line break: the common case (a memchr, not a count of breaks)
        block: bytes = pc.binary_join(lists.from_arrays(offsets, texts), separator)[0].as_py() or b""
        return block, [], bounds[:-1] - bounds[0] + np.arange(len(texts), dtype=bounds.dtype)
    breaks = pc.match_substring(texts, "\n")
    alone = np.flatnonzero(breaks.to_numpy(zero_copy_only=False)).tolist()
    texts = pc.if_else(breaks, pa.scalar(b"", texts.type), texts)
    return pc.binary_join(lists.from_arrays(offsets, texts), separator)[0].as_py() or b"", alone, None


def _block_rows(kb: KnowledgeBase, block: bytes, starts: np.ndarray | None) -> list[tuple[int, list[Match]]]:
    """``(line index, matches)`` of the block's matching lines. Without a JSON line in the block this is the
    matcher's raw scan (what :meth:`KnowledgeBase.match_block` gives then), its lines numbered by a search
    in ``starts`` (each line's start) or in the block's breaks, not by counting breaks line after line."""
    if kb.fields and has_json_line(block):
        return [(index, matches) for index, _text, matches in kb.match_block(block) if matches]
    hits = [(start, matches) for start, _end, matches in kb.matcher.match_block(block) if matches]
    if not hits:
        return []
    at = np.fromiter((start for start, _ in hits), np.int64, len(hits))
    if starts is not None:
        rows = np.searchsorted(starts, at, side="right") - 1
    else:
        rows = np.searchsorted(np.flatnonzero(np.frombuffer(block, np.uint8) == 10), at)  # breaks before it
    return list(zip(rows.tolist(), (matches for _, matches in hits), strict=True))


def _found(kb: KnowledgeBase, array: pa.Array) -> dict[int, list[Match]]:
    """Position -> matches (best first) of the values of a binary array that match."""
    if not len(array):
        return {}
    block, alone, starts = _block(array)
    lines = normalised(block)
    found = dict(_block_rows(kb, lines, starts if lines is block else None))
    if array.null_count:  # a null is an empty line in the block: it matches only a pattern that matches ""
        for index in np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False)).tolist():
            found.pop(index, None)
    for index in alone:
        matches = kb.match(normalised(array[index].as_py()).decode("utf-8"))
        if matches:
            found[index] = matches
        else:
            found.pop(index, None)
    return found


def _binary(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The values as one binary (or large binary) array, viewed rather than copied where Arrow allows it."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if pa.types.is_binary(array.type) or pa.types.is_large_binary(array.type):
        return array
    if pa.types.is_string(array.type):
        return array.view(pa.binary())  # the same buffers: UTF-8 is bytes
    if pa.types.is_large_string(array.type):
        return array.view(pa.large_binary())
    return array.cast(pa.binary())


def valid_text(array: pa.Array) -> tuple[pa.Array, pa.Array]:
    """A string array made valid UTF-8, and the original bytes of the values that were not.

    Spark's text reader puts a line's bytes in a string column as they are, and a Parquet reader such as
    DuckDB refuses a file whose string column holds invalid UTF-8. Each invalid sequence becomes U+FFFD, as
    ``errdex match`` reads a line (so a match's span indexes this text); the second array (binary) holds the
    original bytes of each value that changed, null for the others. An array that is valid already (the
    common case: one validation in C) is returned as it is, beside an array of nulls.
    """
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        pass
    else:
        return array, pa.nulls(len(array), pa.binary())
    texts: list[str | None] = []
    originals: list[bytes | None] = []
    for value in _binary(array).to_pylist():
        try:
            texts.append(None if value is None else value.decode("utf-8"))
            originals.append(None)
        except UnicodeDecodeError:
            texts.append(value.decode("utf-8", "replace"))
            originals.append(value)
    return pa.array(texts, array.type), pa.array(originals, pa.binary())


#: Each knowledge base's fixed fields of its records (id ... status) in its matcher's order, made once.
_fixed_fields: weakref.WeakKeyDictionary[KnowledgeBase, list[tuple[str | None, ...]]] = weakref.WeakKeyDictionary()


def _fixed(kb: KnowledgeBase) -> list[tuple[str | None, ...]]:
    """The identifying fields of each record of ``kb``'s matcher, by position (a :attr:`Match.index`)."""
    fixed = _fixed_fields.get(kb)
    if fixed is None:
        fixed = _fixed_fields[kb] = [
            (v["id"], v["slug"], v["repo"], v["errorClass"], v["severity"],
             status if isinstance(status := status_of(v), str) else None) for v in kb.matcher.records]
    return fixed


def _structs(kb: KnowledgeBase, matches: Sequence[tuple[int, Match, tuple[int, int]]]) -> pa.StructArray:
    """``(rank, match, rest of its line)`` as a :data:`MATCH_TYPE` array: one compact tuple a match (its record's
    fixed fields made once), which Arrow converts faster than a dict a row or a column at a time at these sizes."""
    fixed = _fixed(kb)
    return pa.array([fixed[m.index] + (rank, m.score, m.groups, m.span) + rest for rank, m, rest in matches],
                    MATCH_TYPE)


def match_arrow(kb: KnowledgeBase, array: pa.Array | pa.ChunkedArray, *, all_matches: bool = True) -> pa.Array:
    """The matches of each value of a string (or binary) array: a list of :data:`MATCH_TYPE` per value (null
    for a null), or with ``all_matches=False`` the best match alone (null when none)."""
    values = _binary(array)
    found = _found(kb, values)
    order = sorted(found)
    mask = values.is_null() if values.null_count else None
    if not all_matches:
        best = _structs(kb, [(1, found[i][0], rest_of(found[i])) for i in order])
        where = np.full(len(values), -1, np.int32)
        where[order] = np.arange(len(order), dtype=np.int32)
        return best.take(pa.array(where, mask=where < 0))
    flat = _structs(kb, [(rank, one, rest) for i in order for rest in (rest_of(found[i]),)
                         for rank, one in enumerate(found[i], 1)])
    counts = np.zeros(len(values) + 1, np.int32)
    counts[np.array(order, np.int64) + 1] = [len(found[i]) for i in order]
    return pa.ListArray.from_arrays(pa.array(np.cumsum(counts, dtype=np.int32)), flat, type=MATCHES_TYPE, mask=mask)
