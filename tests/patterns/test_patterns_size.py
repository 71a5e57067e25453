"""size_problems(): patterns too long, or whose counted repeats expand too far, are bounded before any engine."""

from __future__ import annotations

import time

import pytest

from errdex.patterns import MAX_EXPANSION, MAX_LENGTH, size_problems
from errdex.patterns.size import expanded_size

TOO_BIG = [
    "Job a failed at .{0,1000}\\.",         # 4 positions for each of 1,000 copies of .
    "(?:a.{0,10}){0,50}",                   # nested counts multiply
    "[^ ]{600}",                            # a negated class holds non-ASCII characters: it counts as .
    "x" * (MAX_LENGTH + 1),
]
FINE = [
    "CreateOS request failed \\(HTTP ([0-9]{3})\\) during (.+)\\.",
    "x.{0,500}y", "[a-z]{0,1000}", "a{1000,}", "(?:[a-z]{1,30}){1,30}", "x" * MAX_LENGTH,
]


@pytest.mark.parametrize("pattern", TOO_BIG)
def test_too_big(pattern: str) -> None:
    [problem] = size_problems(pattern)
    assert "above the limit" in problem.message or f"more than {MAX_EXPANSION:,}" in problem.message


@pytest.mark.parametrize("pattern", FINE)
def test_fine(pattern: str) -> None:
    assert size_problems(pattern) == []


def test_the_largest_repeat_is_named_with_its_offset() -> None:
    [problem] = size_problems("ab [0-9]{1,3} .{0,1000} end")
    assert problem.offset == 14 and ".{0,1000}" in problem.message


def test_nesting_multiplies_and_is_capped() -> None:
    assert expanded_size("(?:ab){10}")[0] == 20
    assert expanded_size("(?:(?:(?:a{1000}){1000}){1000}){1000}")[0] == MAX_EXPANSION + 1


def test_a_huge_pattern_costs_nothing() -> None:
    started = time.perf_counter()
    assert size_problems("(?:" * 30000 + "a" + ")" * 30000)
    assert size_problems("\u4e00*" * 35000)
    assert time.perf_counter() - started < 0.5


def test_syntax_errors_are_left_to_portability() -> None:
    assert size_problems("(a") == []
