"""Keys found without their database: the same hits as hyperscan's, and the same matches as a matcher that
compiled its database with the plan, on a line, on a small input and past where the database is compiled."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.errors import DataError
from errdex.match import engine, plan
from errdex.match.key_index import TAIL, TINY_BYTES, KeyIndex, scan_each

ALPHABET = b"ab \n"


def _hyperscan_hits(keys: list[bytes], block: bytes) -> list[tuple[int, int]]:
    database = plan.compile_keys(keys)
    hits: list[tuple[int, int]] = []
    database.scan(block, match_event_handler=lambda ident, start, end, flags, context: hits.append((end, ident)))
    return sorted(hits)


def _hits(scan: Any, block: bytes) -> list[tuple[int, int]]:
    hits: list[tuple[int, int]] = []
    ends: list[int] = []

    def on_hit(ident: int, start: int, end: int, flags: int, context: Any) -> None:
        hits.append((end, ident))
        ends.append(end)

    scan(block, on_hit)
    assert ends == sorted(ends)  # in order of where each hit ends, as hyperscan reports them
    return sorted(hits)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(min_size=TAIL, max_size=7).map(lambda b: bytes(ALPHABET[c % 4] for c in b)),
                min_size=1, max_size=12, unique=True),
       st.binary(max_size=300).map(lambda b: bytes(ALPHABET[c % 4] for c in b)))
def test_both_ways_report_every_hit_hyperscan_reports(keys: list[bytes], block: bytes) -> None:
    expected = _hyperscan_hits(keys, block)
    assert _hits(KeyIndex(keys).scan, block) == expected
    assert _hits(lambda data, on_hit: scan_each(keys, data, on_hit), block) == expected


def test_a_callback_that_stops_the_scan_stops_it() -> None:
    keys = [b"abcd", b"bcde"]
    seen: list[int] = []

    def on_hit(ident: int, start: int, end: int, flags: int, context: Any) -> bool:
        seen.append(end)
        return True

    assert KeyIndex(keys).scan(b"xxabcdexx abcd", on_hit) and seen == [6]
    seen.clear()
    assert scan_each(keys, b"xxabcdexx abcd", on_hit) and seen == [6]


def test_keys_shorter_than_the_tail_are_left_to_the_database() -> None:
    assert not KeyIndex.serves([b"abc", b"abcd"]) and KeyIndex.serves([b"abcd"])


def _records(count: int) -> list[dict[str, Any]]:
    return [{"id": f"{i:016x}", "slug": f"r{i}", "repo": "a/b", "errorClass": "Error", "severity": "error",
             "messagePattern": f"job {i} failed (?:on|at) host ([a-z]+[0-9]*)" if i % 2 else f"disk {i} is full"}
            for i in range(count)]


def _lines(count: int, rng: random.Random) -> list[bytes]:
    lines = []
    for _ in range(count):
        i = rng.randrange(400)
        lines.append(rng.choice([f"job {i} failed on host web{i}", f"disk {i} is full", f"job {i} failed",
                                 f"disk {i} is ful", "noise line", f"job {i} failed at host db"]).encode())
    return lines


def _found(matcher: engine.Matcher, block: bytes) -> list[Any]:
    return [(start, end, found) for start, end, found in matcher.found_block(block)]


def test_a_plan_that_leaves_its_database_matches_as_one_that_compiled_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records(400)
    eager = engine.Matcher(records)
    assert eager._literal_db is not None
    monkeypatch.setattr(plan, "LATER_KEYS", 1)
    later = engine.Matcher(records, cache_dir=tmp_path)
    assert later._literal_db is None
    rng = random.Random(5)
    line = b"\n".join(_lines(3, rng))
    assert len(line) <= TINY_BYTES
    assert _found(later, line) == _found(eager, line) and later._key_index is None  # no index for a line
    small = b"\n".join(_lines(2000, rng))
    assert TINY_BYTES < len(small) < engine.SMALL_INPUT_BYTES
    assert _found(later, small) == _found(eager, small) and later._literal_db is None
    assert later._key_index is not None
    large = b"\n".join(_lines(20000, rng))
    assert len(large) > engine.SMALL_INPUT_BYTES
    assert _found(later, large) == _found(eager, large) and later._literal_db is not None
    # the plan was cached again with its database: the next start loads it and never plans
    monkeypatch.setattr(engine.Matcher, "_plan", lambda *args: pytest.fail("planned again"))
    again = engine.Matcher(records, cache_dir=tmp_path)
    assert again._literal_db is not None and _found(again, small) == _found(eager, small)


def test_the_budget_of_candidates_stops_at_the_same_line(monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records(400)
    lines = b"\n".join(_lines(300, random.Random(9)))
    monkeypatch.setattr(engine, "MAX_CANDIDATES", 7)
    eager = engine.Matcher(records)
    expected = eager._scan_hits(lines, 7)
    monkeypatch.setattr(plan, "LATER_KEYS", 1)
    later = engine.Matcher(records)
    assert later._literal_db is None
    assert later._scan_hits(lines, 7) == expected
    assert _found(later, lines) == _found(eager, lines)


def test_ensure_database_compiles_once_and_a_bad_key_set_is_a_data_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan, "LATER_KEYS", 1)
    matcher = engine.Matcher(_records(10))
    matcher.ensure_database()
    first = matcher._literal_db
    matcher.ensure_database()
    assert first is not None and matcher._literal_db is first

    fresh = engine.Matcher(_records(12))
    fresh._key_bytes = [b"", *fresh._key_bytes]  # a key hyperscan refuses (the pure-literal API takes no empty one)
    with pytest.raises(DataError, match="cannot compile the patterns' keys"):
        fresh.ensure_database()
