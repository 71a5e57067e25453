"""The "Schema reference" page of the documentation site, as plain data.

:func:`schema_reference` reads the generated JSON Schema files (draft 2020-12)
in ``schema/`` and flattens them into one row per field: a dotted path from
the root (array items shown as ``[]``, e.g. ``scenarios[].call.operation``),
a human readable type, whether it is required, its description, and the
format versions that have it. The record versions are merged into one list,
and so are the envelope versions (without the nested record's own fields,
which the record list already holds).

Only local references (``#/$defs/...``) are followed; a reference that leads
back to one of its own ancestors is listed but not descended into, so
recursive schemas terminate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from errdex.errors import DataError, InputError
from errdex.records.sources import bundled_records_dir

__all__ = [
    "SchemaDocument",
    "SchemaField",
    "SchemaReference",
    "default_schema_folder",
    "schema_reference",
]

#: ``record-v3.schema.json`` -> name ``record``, version 3.
_FILE_NAME = re.compile(r"^(?P<name>.+)-v(?P<version>[0-9]+)\.schema\.json$")
_ANCHOR_RUN = re.compile(r"[^a-z0-9]+")
#: Deepest nesting of objects and arrays that is walked, whatever the references.
MAX_DEPTH = 32
#: Longest chain of ``$ref`` to ``$ref`` that is followed for one node.
_MAX_REF_HOPS = 16
RECORD = "record"
ENVELOPE = "envelope"

Schema = Mapping[str, Any]


@dataclass(frozen=True)
class SchemaField:
    """One field of a schema, merged over the format versions that have it."""

    path: str
    type: str
    required: bool
    description: str
    versions: tuple[int, ...]
    anchor: str


@dataclass(frozen=True)
class SchemaDocument:
    """One schema file."""

    name: str
    version: int
    file: str
    title: str
    description: str
    schema_id: str


@dataclass(frozen=True)
class SchemaReference:
    """Everything the schema reference page shows."""

    documents: tuple[SchemaDocument, ...]
    fields: tuple[SchemaField, ...]
    envelope_fields: tuple[SchemaField, ...]


@dataclass(frozen=True)
class _Entry:
    """A field as one schema version has it."""

    path: str
    type: str
    required: bool
    description: str


@dataclass(frozen=True)
class _Loaded:
    """A parsed schema file."""

    document: SchemaDocument
    schema: Schema


# --------------------------------------------------------------------------- files


def default_schema_folder() -> Path:
    """The project's ``schema/`` folder, found the way the bundled records are.

    The package's ``_bundled`` folder is a link to the repository's
    ``records/``, and ``schema/`` is its sibling at the repository root; when
    that does not exist, the repository root is found from this file.
    """
    candidates = (
        Path(__file__).resolve().parent.parent / "_schema",  # shipped inside the package
        bundled_records_dir().resolve().parent / "schema",
        Path(__file__).resolve().parents[3] / "schema",
    )
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[-1]


def _read_json(path: Path) -> Schema:
    """The JSON object in ``path``; :class:`DataError` naming the file when it is not one."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the schema file: {exc.strerror or exc}") from exc
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: the schema file is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}:{exc.colno}: the schema file is not valid JSON: {exc.msg}") from exc
    if not isinstance(value, dict):
        raise DataError(f"{path}: the schema file does not hold a JSON object")
    return value


def _text(value: Any) -> str:
    """A schema annotation as a string ("" when absent or not a string)."""
    return value.strip() if isinstance(value, str) else ""


def _load(path: Path) -> _Loaded:
    """Read one ``NAME-vN.schema.json`` file."""
    match = _FILE_NAME.match(path.name)
    if match is None:
        raise DataError(f"{path}: a schema file must be named NAME-vVERSION.schema.json")
    schema = _read_json(path)
    document = SchemaDocument(
        name=match["name"],
        version=int(match["version"]),
        file=path.name,
        title=_text(schema.get("title")),
        description=_text(schema.get("description")),
        schema_id=_text(schema.get("$id")),
    )
    return _Loaded(document, schema)


# --------------------------------------------------------------------------- references


def _lookup(root: Schema, ref: str) -> Schema | None:
    """The node a local JSON pointer (``#/$defs/Name``) names, or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node if isinstance(node, Mapping) else None


def _resolve(root: Schema, node: Any) -> tuple[Schema, frozenset[str]]:
    """``node`` with its local ``$ref`` chain followed, and the references followed.

    Keywords next to a ``$ref`` (such as the property's own description) win
    over those of the target. Unresolvable or cyclic chains stop where they are.
    """
    if not isinstance(node, Mapping):
        return {}, frozenset()
    followed: set[str] = set()
    merged: dict[str, Any] = dict(node)
    for _ in range(_MAX_REF_HOPS):
        ref = merged.get("$ref")
        if not isinstance(ref, str) or ref in followed:
            break
        target = _lookup(root, ref)
        if target is None:
            break
        followed.add(ref)
        siblings = {key: value for key, value in merged.items() if key != "$ref"}
        merged = {**target, **siblings}
    return merged, frozenset(followed)


# --------------------------------------------------------------------------- types


def _branches(node: Schema) -> list[Any]:
    """The alternatives of an ``anyOf`` / ``oneOf`` node (empty when it has none)."""
    for keyword in ("anyOf", "oneOf"):
        value = node.get(keyword)
        if isinstance(value, list) and value:
            return value
    return []


def _join(names: Iterable[str]) -> str:
    """Distinct type names, in order, joined with "or"."""
    unique = list(dict.fromkeys(names))
    return " or ".join(unique) if unique else "any"


def _values(values: Iterable[Any]) -> str:
    """Enum or const values, the way JSON writes them."""
    return "one of: " + ", ".join(json.dumps(value, ensure_ascii=False) for value in values)


def _array_type(root: Schema, node: Schema, depth: int) -> str:
    """``array of X`` from an array's ``items`` (just ``array`` without them)."""
    items = node.get("items")
    if not isinstance(items, Mapping) or not items:
        return "array"
    inner = _type_name(root, items, depth + 1)
    return f"array of ({inner})" if " or " in inner or "one of" in inner else f"array of {inner}"


def _simple_type(root: Schema, name: Any, node: Schema, depth: int) -> str:
    """The name of one JSON type keyword value."""
    if name == "array":
        return _array_type(root, node, depth)
    return str(name)


def _type_name(root: Schema, node: Any, depth: int = 0) -> str:
    """A human readable type: ``string or null``, ``array of string``, ``one of: "a", "b"``."""
    resolved, _ = _resolve(root, node)
    if depth > MAX_DEPTH:
        return "any"
    if "const" in resolved:
        return _values([resolved["const"]])
    if isinstance(resolved.get("enum"), list):
        return _values(resolved["enum"])
    branches = _branches(resolved)
    if branches:
        return _join(_type_name(root, branch, depth + 1) for branch in branches)
    all_of = resolved.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        return _type_name(root, all_of[0], depth + 1)
    kind = resolved.get("type")
    if isinstance(kind, list):
        return _join(_simple_type(root, item, resolved, depth) for item in kind)
    if kind is not None:
        return _simple_type(root, kind, resolved, depth)
    if "properties" in resolved:
        return "object"
    if "items" in resolved:
        return _array_type(root, resolved, depth)
    return "any"


# --------------------------------------------------------------------------- walking


@dataclass
class _Walk:
    """State of one walk over a schema: the root, the fields found, where to stop."""

    root: Schema
    stop_titles: frozenset[str]
    entries: dict[str, _Entry]

    def descend(self, node: Schema, path: str, seen: frozenset[str], depth: int) -> None:
        """Walk the fields below ``node`` (an object, an array or a union of them)."""
        if depth > MAX_DEPTH:
            return
        self.properties(node, path, seen, depth)
        items = node.get("items")
        if isinstance(items, Mapping):
            self.branch(items, f"{path}[]", seen, depth)
        for keyword in ("anyOf", "oneOf", "allOf"):
            alternatives = node.get(keyword)
            if isinstance(alternatives, list):
                for alternative in alternatives:
                    self.branch(alternative, path, seen, depth)

    def branch(self, node: Any, path: str, seen: frozenset[str], depth: int) -> None:
        """Descend into a sub-schema that adds no field of its own (array items, a union member)."""
        resolved, refs = _resolve(self.root, node)
        if refs & seen:
            return
        self.descend(resolved, path, seen | refs, depth + 1)

    def properties(self, node: Schema, path: str, seen: frozenset[str], depth: int) -> None:
        """Record each property of an object node, then what lies below it."""
        properties = node.get("properties")
        if not isinstance(properties, Mapping):
            return
        required = node.get("required")
        required_names = set(required) if isinstance(required, list) else set()
        for name, sub in properties.items():
            child = f"{path}.{name}" if path else str(name)
            resolved, refs = _resolve(self.root, sub)
            self.entries.setdefault(child, _Entry(
                path=child,
                type=_type_name(self.root, resolved),
                required=name in required_names,
                description=_text(resolved.get("description")),
            ))
            if refs & seen or _text(resolved.get("title")) in self.stop_titles:
                continue
            self.descend(resolved, child, seen | refs, depth + 1)


def _walk(schema: Schema, stop_titles: frozenset[str] = frozenset()) -> list[_Entry]:
    """Every field of ``schema``, parents before their children, in property order.

    Objects whose title is in ``stop_titles`` are listed but not descended into.
    """
    walk = _Walk(root=schema, stop_titles=stop_titles - {""}, entries={})
    walk.descend(schema, "", frozenset({"#"}), 0)
    return list(walk.entries.values())


# --------------------------------------------------------------------------- merging


def _anchor(path: str) -> str:
    """``field-`` and the path, lowercased, each run of other characters than a-z0-9 as ``-``."""
    slug = _ANCHOR_RUN.sub("-", path.lower()).strip("-")
    return f"field-{slug}" if slug else "field"


def _merged_type(by_version: Mapping[int, _Entry]) -> str:
    """The newest version's type, with each older version's type noted where it differs.

    For example ``one of: 3 (version 2: one of: 2)`` for ``schemaVersion``.
    """
    newest, *older = sorted(by_version, reverse=True)
    kind = by_version[newest].type
    notes = [f"version {version}: {by_version[version].type}" for version in older
             if by_version[version].type != kind]
    return f"{kind} ({'; '.join(notes)})" if notes else kind


def _merge(walks: Mapping[int, list[_Entry]]) -> list[tuple[_Entry, tuple[int, ...]]]:
    """One entry per path over all versions, taken from the newest version that has it.

    The newest version's order comes first, then paths only older versions have
    (newest of those first). A type that changed between versions says so.
    """
    by_path: dict[str, dict[int, _Entry]] = {}
    for version in sorted(walks, reverse=True):
        for entry in walks[version]:
            by_path.setdefault(entry.path, {})[version] = entry
    merged = []
    for by_version in by_path.values():
        newest = by_version[max(by_version)]
        entry = replace(newest, type=_merged_type(by_version))
        merged.append((entry, tuple(sorted(by_version))))
    return merged


def _with_anchors(
    groups: Iterable[list[tuple[_Entry, tuple[int, ...]]]],
) -> list[tuple[SchemaField, ...]]:
    """Turn merged entries into fields whose anchors are unique across every group."""
    taken: set[str] = set()
    result = []
    for group in groups:
        fields = []
        for entry, versions in group:
            base = anchor = _anchor(entry.path)
            counter = 2
            while anchor in taken:
                anchor, counter = f"{base}-{counter}", counter + 1
            taken.add(anchor)
            fields.append(SchemaField(entry.path, entry.type, entry.required, entry.description, versions, anchor))
        result.append(tuple(fields))
    return result


def _fields_of(loaded: list[_Loaded], name: str, stop_titles: frozenset[str]) -> list[tuple[_Entry, tuple[int, ...]]]:
    """The merged fields of every version of the schemas called ``name``."""
    walks = {item.document.version: _walk(item.schema, stop_titles) for item in loaded if item.document.name == name}
    return _merge(walks)


def schema_reference(folder: Path | None = None) -> SchemaReference:
    """Read every ``*.schema.json`` in ``folder`` (default: the project's) into a :class:`SchemaReference`.

    Raises :class:`~errdex.errors.DataError` naming the file when one is not a
    JSON object or not named ``NAME-vVERSION.schema.json``, and
    :class:`~errdex.errors.InputError` when the folder or a file cannot be read.
    """
    folder = default_schema_folder() if folder is None else Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: the schema folder does not exist")
    loaded = sorted(
        (_load(path) for path in folder.glob("*.schema.json") if path.is_file()),
        key=lambda item: (item.document.name, item.document.version),
    )
    record_titles = frozenset(item.document.title for item in loaded if item.document.name == RECORD)
    fields, envelope_fields = _with_anchors([
        _fields_of(loaded, RECORD, frozenset()),
        _fields_of(loaded, ENVELOPE, record_titles),
    ])
    return SchemaReference(
        documents=tuple(item.document for item in loaded),
        fields=fields,
        envelope_fields=envelope_fields,
    )
