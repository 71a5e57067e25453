"""Lines inside a block: carriage returns at line ends dropped the way the readers always dropped them."""

from __future__ import annotations

import itertools
import re

from hypothesis import given
from hypothesis import strategies as st

from errdex.match import lines
from errdex.match.lines import normalised

#: The rule as first written: every run of carriage returns before a line break or at the end goes.
_RULE = re.compile(rb"\r+(?=\n)|\r+\Z")


@given(st.lists(st.sampled_from([b"a", b"\r", b"\n", b"\r\n", b"\xc3\xa9", b"\xff"]), max_size=30))
def test_carriage_returns_go_as_the_rule_says(parts: list[bytes]) -> None:
    data = b"".join(parts)
    expected = _RULE.sub(b"", data).decode("utf-8", "replace").encode("utf-8")
    assert normalised(data) == expected


def test_a_crlf_log_and_runs_of_carriage_returns() -> None:
    assert normalised(b"one\r\ntwo\r\r\nthree\r") == b"one\ntwo\nthree"
    assert normalised(b"a\rb\r\n") == b"a\rb\n"  # a carriage return inside a line stays


@given(st.binary(max_size=300).map(lambda b: b.replace(b"\r", b"")), st.lists(st.integers(0, 300), max_size=6))
def test_line_breaks_are_counted_alike_by_bytes_and_by_numpy(block: bytes, cuts: list[int]) -> None:
    bounds = sorted({0, len(block), *(min(c, len(block)) for c in cuts)})
    expected = [block.count(b"\n", a, b) for a, b in itertools.pairwise(bounds)]
    saved = lines.LARGE_BLOCK, lines.LARGE_BLOCKS_BEFORE_NUMPY
    try:
        for large, before in ((1 << 30, 0), (1, 0)):  # bytes.count, then numpy from the first block on
            lines.LARGE_BLOCK, lines.LARGE_BLOCKS_BEFORE_NUMPY = large, before
            count = lines.break_counter(block)
            assert [count(a, b) for a, b in itertools.pairwise(bounds)] == expected
    finally:
        lines.LARGE_BLOCK, lines.LARGE_BLOCKS_BEFORE_NUMPY = saved
