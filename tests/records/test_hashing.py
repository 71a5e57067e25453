"""Record hashing: the content hash, per-field hashes, and the fields two versions of a record differ in."""

from __future__ import annotations

import json
from typing import Any

from errdex import bundles, releases
from errdex.records.hashing import (
    VOLATILE_FIELDS,
    changed_fields,
    content_hash,
    differing_fields,
    field_hashes,
)
from tests.conftest import ROOT


def a_record() -> dict[str, Any]:
    """The first record of the bundled dataset (a fresh copy)."""
    path = next(p for p in sorted((ROOT / "records").rglob("*.json")) if ".releases" not in p.parts)
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["record"]
    return record


def test_content_hash_ignores_volatile_fields_and_key_order() -> None:
    record = a_record()
    digest = content_hash(record)
    assert len(digest) == 64 and digest == content_hash(dict(reversed(list(record.items()))))
    assert content_hash({**record, "contentChangedAt": "2030-01-01T00:00:00Z"}) == digest
    assert content_hash({**record, "severity": "info" if record["severity"] != "info" else "error"}) != digest


def test_field_hashes_leave_out_volatile_fields_and_name_what_changed() -> None:
    record = a_record()
    before = field_hashes(record)
    assert list(before) == sorted(before) and not set(VOLATILE_FIELDS) & set(before)
    assert all(len(digest) == 16 for digest in before.values())
    after = field_hashes({**record, "documentation": "elsewhere", "contentChangedAt": "2030-01-01T00:00:00Z",
                          "extra": 1})
    assert changed_fields(before, after) == ["documentation", "extra"]
    assert changed_fields(before, before) == []


def test_differing_fields_keep_the_new_order_then_fields_only_the_old_one_has() -> None:
    old = {"a": 1, "b": 2, "gone": None, "contentChangedAt": "x"}
    new = {"c": 3, "b": 5, "a": 1, "contentChangedAt": "y"}
    assert differing_fields(old, new) == ["c", "b", "gone"]  # a field on one side only differs, even as null
    assert differing_fields(new, new) == []


def test_releases_and_bundles_reexport_the_one_content_hash() -> None:
    assert releases.content_hash is content_hash and releases.field_hashes is field_hashes
    assert bundles.content_hash is content_hash and bundles.VOLATILE_FIELDS == VOLATILE_FIELDS
