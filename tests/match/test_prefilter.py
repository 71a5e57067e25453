"""Prefilter keys: each pattern's rarest piece of literal text, the RE2 sets that find the patterns without one,
and a matcher that stays exact with both."""

from __future__ import annotations

from typing import Any

import hyperscan
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.match import prefilter
from errdex.match.engine import Matcher
from errdex.match.prefilter import KEY_BYTES, MIN_KEY_BYTES, LineSets, choose_keys, windows
from errdex.patterns import is_portable, matches_every_line, python_regex, re2_options


def test_windows_start_at_words_and_skip_short_pieces() -> None:
    assert windows([b"Sandbox 4 could not be created"]) == [
        b"Sandbox 4 co", b"4 could not ", b"could not be", b"not be creat", b"be created", b"created",
    ]
    assert windows([b"abc de"]) == [b"abc de"]  # "de" alone is shorter than MIN_KEY_BYTES
    assert windows([b"ab", b"c"]) == []
    assert all(MIN_KEY_BYTES <= len(w) <= KEY_BYTES for w in windows([b"x" * 40 + b" yyyy zz"]))


def test_the_rarest_piece_wins() -> None:
    keys = choose_keys([
        [b"Sandbox 4 could not be created"],
        [b"Sandbox 5 could not be created"],
        [b"Worker 4 could not be created"],
    ])
    assert keys == [b"Sandbox 4 co", b"Sandbox 5 co", b"Worker 4 cou"]
    assert choose_keys([[b"ab"], []]) == [None, None]


def test_windows_of_non_ascii_literals_are_bytes_of_utf8() -> None:
    assert windows(["é".encode()]) == []  # one character, two bytes: shorter than MIN_KEY_BYTES
    assert windows(["éé".encode(), "𝄞".encode()]) == ["éé".encode(), "𝄞".encode()]
    cut = windows(["aéééééééé b".encode()])  # its first KEY_BYTES bytes end inside an "é": a key is bytes
    assert cut == ["aéééééééé b".encode()[:KEY_BYTES]] and cut[0].endswith(b"\xc3")


def test_line_sets_say_which_patterns_occur_in_a_line() -> None:
    sets = LineSets([(4, "x([0-9]+)"), (7, "é"), (9, "^[0-9]+y+$")], re2_options())
    assert sets and not sets.refused
    assert sorted(sets.find(("q" * 40 + "x1 é").encode())) == [4, 7]
    assert sets.find(b"12yy") == [9] and sets.find(b" 12yy") == [] and sets.find(b"") == []
    assert not LineSets([], re2_options()) and LineSets([], re2_options()).find(b"x1") == []


def test_line_sets_split_many_patterns_and_leave_out_what_re2_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefilter, "SET_SIZE", 3)
    sources = [(i, f"x{i}y") for i in range(8)] + [(8, "(unclosed"), (9, "é+")]
    sets = LineSets(sources, re2_options())
    assert sets.refused == [8] and len(sets._sets) == 4
    assert sorted(sets.find(b"x0y x5y x7y ee")) == [0, 5, 7]
    assert sets.find("é".encode()) == [9]


def test_a_set_too_large_for_its_memory_is_matched_pattern_by_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefilter, "SET_MEMORY", 1 << 16)  # enough for each of these alone, not for all at once
    sources = [(i, f"[a-q]{{{i + 3}}}x[0-9]{{3,9}}y") for i in range(40)]
    sets = LineSets(sources, re2_options())
    assert not sets._sets and len(sets._alone) == 40 and not sets.refused
    assert sorted(sets.find(b"abcdefghx123y")) == [0, 1, 2, 3, 4, 5]


def test_hyperscan_literal_mode_finds_keys_wherever_they_are() -> None:
    """The keys rely on hyperscan's pure-literal mode finding every occurrence, where its full-expression mode
    misses some on AVX-512 machines (a match ending the buffer, or past 32 bytes): the same places, for keys."""
    keys = [b"disk", "éé".encode(), "日本".encode(), b"x123", b"Sandbox 4 co", "𝄞ab".encode(), b"ab c", b"q1yq"]
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=keys, ids=list(range(len(keys))), flags=[0] * len(keys), literal=True)
    found: list[tuple[int, int]] = []

    def on_hit(ident: int, start: int, end: int, flags: int, context: Any) -> None:
        found.append((ident, end))

    for before in range(0, 70, 3):
        for after in (0, 1, 2, 17, 33, 64):
            for ident, key in enumerate(keys):
                found.clear()
                database.scan(b"q" * before + key + b"q" * after, match_event_handler=on_hit)
                assert (ident, before + len(key)) in found, (key, before, after)


WORDS = ["disk", "full", "upload", "failed", "x", "é", "ab", "Sandbox", "lease expired", "日", "𝄞", "İ", "ß"]
PIECES = st.sampled_from([*WORDS, " ", "([0-9]+)", "(.*?)", "[a-z]+", "\\.", "(?:ab|cd)", "é+", "[0-9]y+", "日+"])


def _pattern(parts: list[str]) -> str:
    return "".join(parts)


patterns_st = st.lists(st.lists(PIECES, min_size=1, max_size=6).map(_pattern), min_size=1, max_size=12)
lines_st = st.lists(st.lists(st.sampled_from([*WORDS, " ", "42", ".", "cd", "zz", "1y", "q" * 16]), max_size=12)
                    .map("".join), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(sources=patterns_st, lines=lines_st)
def test_keyed_and_unkeyed_patterns_match_exactly_what_the_reference_finds(sources: list[str],
                                                                           lines: list[str]) -> None:
    records: list[dict[str, Any]] = [
        {"id": f"{i:016x}", "slug": f"r{i}", "repo": "a/b", "errorClass": "Error", "severity": "error",
         "messagePattern": source, "errorMessage": "x"}
        for i, source in enumerate(sources)
    ]
    matcher = Matcher(records)
    portable = [r for r in records if is_portable(r["messagePattern"])]
    every_line = {r["id"] for r in records if matches_every_line(r["messagePattern"])}  # they occur in every line
    block = "\n".join(lines).encode()
    at_once = {block.count(b"\n", 0, start): {m.record["id"] for m in ms}
               for start, _, ms in matcher.match_block(block)}
    for number, line in enumerate(lines):
        expected = {r["id"] for r in portable if python_regex(r["messagePattern"]).search(line)} | every_line
        assert {m.record["id"] for m in matcher.match(line)} == expected
        assert at_once.get(number, set()) == expected
