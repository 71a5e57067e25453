"""JSON Schema validation of records, with findings that name the offending field."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import jsonschema_rs

from errdex.checks.base import Problem
from errdex.records.jsontext import escape_pointer
from errdex.records.schema import envelope_schema, record_schema

__all__ = ["MAX_SCHEMA_PROBLEMS", "schema_problems"]

#: Schema violations reported per document: one per item of a long array of wrong values would make the
#: report (and the time and memory it takes) as large as the input.
MAX_SCHEMA_PROBLEMS = 100


@functools.cache
def _validator(kind: str, version: int) -> Any:
    schema = envelope_schema(version) if kind == "envelope" else record_schema(version)
    return jsonschema_rs.validator_for(schema)


def _describe(schema: dict[str, Any], schema_path: list[Any]) -> str | None:
    """The description of the property that a schema path runs through, if any."""
    node: Any = schema
    found = None
    for step in schema_path:
        if (isinstance(node, dict) and step in node) or (
            isinstance(node, list) and isinstance(step, int) and step < len(node)
        ):
            node = node[step]
        else:
            break
        if isinstance(node, dict) and "$ref" in node:
            target = node["$ref"].rsplit("/", 1)[-1]
            node = {**schema.get("$defs", {}).get(target, {}), **{k: v for k, v in node.items() if k != "$ref"}}
        if isinstance(node, dict) and "description" in node and step not in ("properties", "$defs"):
            found = node["description"]
    return found


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {int: "an integer", float: "a number", str: "a string", list: "an array", dict: "an object"}.get(
        type(value), type(value).__name__
    )


def _cut_arrays(value: Any, cut: list[str], pointer: str = "") -> Any:
    """A copy of ``value`` whose arrays keep their first MAX_SCHEMA_PROBLEMS items, noting where one was cut.

    The validator builds every error before returning the first, so a violation per item of a huge array costs
    time and memory in proportion; the record schema has no rule that a shorter array can break and the
    longer one keep (no maxItems, uniqueItems or contains), so the errors of the copy are errors of the value.
    """
    if isinstance(value, list):
        if len(value) > MAX_SCHEMA_PROBLEMS:
            cut.append(pointer)
            value = value[:MAX_SCHEMA_PROBLEMS]
        return [_cut_arrays(item, cut, f"{pointer}/{i}") for i, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _cut_arrays(item, cut, f"{pointer}/{escape_pointer(key)}") for key, item in value.items()}
    return value


def schema_problems(value: Any, *, kind: str, version: int) -> Iterator[Problem]:
    """Every schema violation of ``value`` as a problem whose field is a JSON pointer (absolute); at most
    MAX_SCHEMA_PROBLEMS of them, then one that says more were not shown."""
    validator = _validator(kind, version)
    if validator.is_valid(value):
        return
    schema = envelope_schema(version) if kind == "envelope" else record_schema(version)
    cut: list[str] = []
    checked = _cut_arrays(value, cut)
    if cut and validator.is_valid(checked):  # not expected (see _cut_arrays), but never a silent pass
        yield Problem(cut[0], f"the array breaks the schema after its first {MAX_SCHEMA_PROBLEMS} items")
        return
    count = 0
    for error in validator.iter_errors(checked if cut else value):
        if count >= MAX_SCHEMA_PROBLEMS:
            break
        count += 1
        path = "".join(f"/{escape_pointer(str(step))}" for step in error.instance_path)
        error_kind = error.kind
        name = type(error_kind).__name__
        if name == "Required":
            yield Problem(
                f"{path}/{escape_pointer(error_kind.property)}",
                f"required field {error_kind.property!r} is missing; add it",
            )
            continue
        if name == "AdditionalProperties":
            for extra in error_kind.unexpected[:MAX_SCHEMA_PROBLEMS]:
                yield Problem(f"{path}/{escape_pointer(extra)}", f"unknown field {extra!r}; remove it or fix its name")
            continue
        description = _describe(schema, list(error.schema_path))
        if name == "AnyOf":
            message = f"{_type_name(error.instance)} is not allowed here"
        else:
            message = error.message
        if len(message) > 200:
            message = message[:197] + "..."
        hint = f"; expected: {description}" if description else ""
        yield Problem(path, f"{message}{hint}")
    if cut or count >= MAX_SCHEMA_PROBLEMS:
        yield Problem(cut[0] if cut else ("/record" if kind == "envelope" else ""),
                      f"more schema violations may follow and were not shown (at most {MAX_SCHEMA_PROBLEMS} are "
                      "reported, and of a longer array only its first items are checked); fix these and validate "
                      "again")
