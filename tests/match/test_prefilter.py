"""Prefilter keys: each pattern's rarest piece of literal text, and a matcher that stays exact with them."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.match.engine import Matcher
from errdex.match.prefilter import KEY_BYTES, MIN_KEY_BYTES, choose_keys, windows
from errdex.patterns import is_portable, matches_every_line, python_regex


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


WORDS = ["disk", "full", "upload", "failed", "x", "é", "ab", "Sandbox", "lease expired"]
PIECES = st.sampled_from([*WORDS, " ", "([0-9]+)", "(.*?)", "[a-z]+", "\\.", "(?:ab|cd)", "é+"])


def _pattern(parts: list[str]) -> str:
    return "".join(parts)


patterns_st = st.lists(st.lists(PIECES, min_size=1, max_size=6).map(_pattern), min_size=1, max_size=12)
lines_st = st.lists(st.lists(st.sampled_from([*WORDS, " ", "42", ".", "cd", "zz"]), max_size=12).map("".join),
                    min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(sources=patterns_st, lines=lines_st)
def test_keyed_and_unkeyed_patterns_match_exactly_what_the_reference_finds(sources: list[str], lines: list[str]) -> None:
    records: list[dict[str, Any]] = [
        {"id": f"{i:016x}", "slug": f"r{i}", "repo": "a/b", "errorClass": "Error", "severity": "error",
         "messagePattern": source, "errorMessage": "x"}
        for i, source in enumerate(sources)
    ]
    matcher = Matcher(records)
    portable = [r for r in records if is_portable(r["messagePattern"])]
    every_line = {r["id"] for r in records if matches_every_line(r["messagePattern"])}  # they occur in every line
    block = "\n".join(lines).encode()
    at_once = {block.count(b"\n", 0, start): {m.record["id"] for m in ms} for start, _, ms in matcher.match_block(block)}
    for number, line in enumerate(lines):
        expected = {r["id"] for r in portable if python_regex(r["messagePattern"]).search(line)} | every_line
        assert {m.record["id"] for m in matcher.match(line)} == expected
        assert at_once.get(number, set()) == expected
