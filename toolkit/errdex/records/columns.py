"""Record fields as table columns: each field's DuckDB type, derived from the record models.

The Parquet export writes every field as a column and the SQL index keeps every scalar field in its
``records`` table; both take the columns from here, so a field added to the models reaches both.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from errdex.records.models import RECORD_MODELS

__all__ = ["duckdb_type", "record_columns", "scalar_columns"]


def duckdb_type(annotation: Any) -> str:
    """The DuckDB column type of a record field: lists stay lists, nested objects become JSON."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return duckdb_type(args[0])
    if origin in (typing.Union, types.UnionType):
        return duckdb_type(next(arg for arg in args if arg is not type(None)))
    if origin is typing.Literal:
        return "INTEGER" if all(isinstance(a, int) for a in args) else "VARCHAR"
    if origin is list:
        return f"{duckdb_type(args[0])}[]"
    if annotation is bool:
        return "BOOLEAN"
    if annotation is int:
        return "INTEGER"
    if annotation is float:
        return "DOUBLE"
    if annotation is str:
        return "VARCHAR"
    return "JSON"


def record_columns() -> dict[str, str]:
    """Every record field of every format version and its DuckDB type, in format order (the order a field is
    first seen, oldest version first; a later version's type of a field wins)."""
    annotations: dict[str, Any] = {}
    for version in sorted(RECORD_MODELS):
        annotations.update((name, info.annotation) for name, info in RECORD_MODELS[version].model_fields.items())
    return {name: duckdb_type(annotation) for name, annotation in annotations.items()}


def scalar_columns() -> dict[str, str]:
    """The record fields that hold one value (no list, no nested object), with their types, in format order."""
    return {name: kind for name, kind in record_columns().items() if kind != "JSON" and not kind.endswith("[]")}
