"""The version steps' shortcut: a key put in its canonical place, found once per key order."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.records import versions

_NAMES = ["id", "repo", "slug", "scenarios", "status", "extra", "messagePattern", "zz"]
_RANK = {name: rank for rank, name in enumerate(["id", "repo", "slug", "messagePattern", "scenarios", "status"])}


def _with_key_by_loop(record: dict[str, Any], key: str, value: Any, rank: dict[str, int]) -> dict[str, Any]:
    """_with_key as first written: the rank of every key compared as the copy is built."""
    result: dict[str, Any] = {}
    for name, existing in record.items():
        if key not in result and rank.get(name, len(rank)) > rank[key]:
            result[key] = value
        result[name] = existing
    result.setdefault(key, value)
    return result


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_NAMES), unique=True), st.sampled_from(sorted(_RANK)))
def test_the_key_goes_where_the_loop_put_it(names: list[str], key: str) -> None:
    record = {name: f"value of {name}" for name in names}
    for _ in range(2):  # the second time from the memo of places
        got = versions._with_key(record, key, [], _RANK)
        want = _with_key_by_loop(record, key, [], _RANK)
        assert list(got.items()) == list(want.items())
    assert list(record) == names  # the record itself is left as it was


def test_a_v2_record_upgrades_as_the_loop_upgrades_it() -> None:
    record = {"schemaVersion": 2, "id": "a", "repo": "r", "slug": "s", "messagePattern": "x", "severity": "error"}
    upgraded = versions.upgrade(record, 3)
    want = _with_key_by_loop(record, "scenarios", [], versions._V3_RANK)
    want["schemaVersion"] = 3
    assert list(upgraded.items()) == list(want.items())


def test_the_memo_of_places_stays_small(monkeypatch: Any) -> None:
    monkeypatch.setattr(versions, "_MAX_PLACES", 3)
    monkeypatch.setattr(versions, "_PLACES", {})
    for count in range(10):
        versions._with_key({f"k{i}": i for i in range(count)}, "scenarios", [], versions._V3_RANK)
    assert len(versions._PLACES) <= 3
