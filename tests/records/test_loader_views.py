"""The loader's views kept column by column read as the list of dicts they replace."""

from __future__ import annotations

from typing import Any

import pytest

from errdex.records.loader import RecordStore
from errdex.records.views import ABSENT, VIEW_FIELDS, Views, view_of

RECORDS: list[dict[str, Any]] = [
    {"schemaVersion": 2, "id": "a1", "slug": "one", "repo": "o/r", "errorClass": "Error", "severity": "error",
     "messagePattern": "disk full", "errorMessage": "not in a view"},
    {"schemaVersion": 2, "id": "b2", "slug": "two", "repo": "o/r", "errorClass": "Error", "severity": "warning",
     "messagePattern": "job ([0-9]+) failed", "status": "withdrawn"},
    {"id": "c3", "messagePattern": "x"},  # a partial record: most fields absent
]


def _views() -> Views:
    return Views({name: [r.get(name, ABSENT) for r in RECORDS] for name in VIEW_FIELDS})


def test_views_equal_the_dicts_they_replace_in_order_and_keys() -> None:
    views = _views()
    expected = [view_of(r) for r in RECORDS]
    assert len(views) == 3 and list(views) == expected and views == expected
    assert [list(v) for v in views] == [list(v) for v in expected]  # the same key order
    assert views[-1] == expected[-1] and views[1:] == expected[1:]
    with pytest.raises(IndexError):
        views[3]


def test_a_view_is_built_once_and_found_again_by_identity() -> None:
    views = _views()
    first = views[1]
    assert views[1] is first and views.position_of(first) == 1
    with pytest.raises(KeyError):
        views.position_of(dict(first))  # a copy is not one of these views


def test_taken_views_share_what_was_built_and_keep_positions() -> None:
    views = _views()
    taken = views.take([0, 2])
    assert taken == [view_of(RECORDS[0]), view_of(RECORDS[2])]
    assert taken[1] is views[2] and views.position_of(taken[1]) == 2
    assert taken.column("id") == ["a1", "c3"] and views.column("status") == [ABSENT, "withdrawn", ABSENT]
    assert taken.take([1])[0] is views[2]


def test_a_store_leaves_out_the_retired_records_from_columns_or_dicts() -> None:
    def fetch(position: int) -> dict[str, Any]:
        return RECORDS[position]

    columns = RecordStore(["p"] * 3, _views(), [None] * 3, fetch)
    dicts = RecordStore(["p"] * 3, [view_of(r) for r in RECORDS], [None] * 3, fetch)
    assert columns.unretired_views() == dicts.unretired_views() == [view_of(RECORDS[0]), view_of(RECORDS[2])]
    kept = columns.unretired_views()
    assert columns.full_of(kept[1]) is RECORDS[2]
    nothing_retired = RecordStore(["p"], _views().take([0]), [None], fetch)
    assert nothing_retired.unretired_views() is nothing_retired.views
