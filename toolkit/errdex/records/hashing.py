"""Hashing records: the content hash, a hash per field, and which fields two versions of a record differ in.

A record's *content* is the record without its volatile fields (:data:`VOLATILE_FIELDS`: fields that change
without the content changing). Releases key manifests by these hashes, import compares by them, and ``diff``
and import name the fields that changed; every one of them asks here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "VOLATILE_FIELDS",
    "canonical_bytes",
    "changed_fields",
    "content_hash",
    "differing_fields",
    "field_hashes",
]

#: Record fields that change without the content changing (an envelope's ``datasetVersion`` is never hashed).
VOLATILE_FIELDS: tuple[str, ...] = ("contentChangedAt",)

_ABSENT = object()


def canonical_bytes(value: Any) -> bytes:
    """The bytes a value is hashed as: JSON with sorted keys, no spaces, UTF-8 (lone surrogates kept)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def content_hash(record: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the record's canonical JSON without its volatile fields."""
    content = {name: value for name, value in record.items() if name not in VOLATILE_FIELDS}
    return hashlib.sha256(canonical_bytes(content)).hexdigest()


def field_hashes(record: Mapping[str, Any]) -> dict[str, str]:
    """A short hash (16 hex digits) per top-level field, volatile fields left out, by field name in order."""
    return {name: hashlib.sha256(canonical_bytes(value)).hexdigest()[:16]
            for name, value in sorted(record.items()) if name not in VOLATILE_FIELDS}


def changed_fields(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    """The fields, sorted, whose hashes differ between two :func:`field_hashes` (a field on one side only
    counts as changed)."""
    return sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))


def differing_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The non-volatile fields whose values differ between two versions of a record: the new record's fields
    in its order, then those only the old one has. A field on one side only differs, even when the other
    side holds ``null``."""
    names = [name for name in new if name not in VOLATILE_FIELDS]
    names += [name for name in old if name not in new and name not in VOLATILE_FIELDS]
    return [name for name in names if old.get(name, _ABSENT) != new.get(name, _ABSENT)]
