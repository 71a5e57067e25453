"""backtracking_problems(): catastrophic shapes are flagged, ordinary log templates are not.

The polynomial shapes (overlapping repeats side by side) are in test_polynomial.py."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from errdex.patterns import backtracking_problems, charset
from errdex.patterns.backtracking import backtracking
from errdex.patterns.nodefacts import NodeFacts

EXPONENTIAL = [
    "(a+)+", "(.*)*", r"(\w|\d)+", "(a|a)*", "(a|aa)+", "(a|ab|b)+", "(a*)*b", r"(\d+\w)+",
    "(?:a?b?)*c", r"x(\w+\.?)+y", "(a{1,5})+b", r"(x\d+\d+y)+", r"((?:a|a)+)+", "(a|b|ab)*c",
    r"(?:[a-z]+|[0-9a-f]+)+!", "(?:.*,)+x",
]

# Shapes the first analysis missed: nested bounded repeats (and, in test_polynomial.py, overlapping repeats around
# a separator they can match themselves); a browser froze for 9 s to minutes on a pasted line.
BOUNDED_NESTED = [r"(?:[a-z]{1,30}){1,30}", r"x(?:\d{1,5}){3,20}y", r"(?:a|a){1,10}b", r"(?:\w+ ?){1,8}!"]

FINE = [
    r"CreateOS request failed \(HTTP (\d+)\) during (.+)\.",
    r"CreateOS process creation could not be confirmed; destroy the lease before reusing it\.",
    "(.*?) foo (.*?)", r"(\d+)\.(\d+)", "(.+)", "([^ ]+) ([^ ]+)", r"(\w+\.)+x", "(a+b)+",
    r"(?:(\w+)\.)+com", r"\d+[a-z]+", r"(\d+)-(\w+)", r"(?:GET|POST) (\S+)", "a|a",
    r"(\d+(?:\.\d+)?)ms", r"([A-Za-z_][\w.]*) is not defined", r"(?:ab|cd)+", r"(a|b)+",
    r"[^']*'([^']*)'", r"(.*?): (.*)", r"^(\w+) (\w+)$", r"\d+ \d+", "(?:a|b)?c+",
]


@pytest.mark.parametrize("source", EXPONENTIAL)
def test_exponential_shapes(source: str) -> None:
    problems = backtracking_problems(source)
    assert any("exponentially" in p.message for p in problems), problems


@pytest.mark.parametrize("source", BOUNDED_NESTED)
def test_nested_bounded_repeats(source: str) -> None:
    problems = backtracking_problems(source)
    assert any("exponentially" in p.message or "polynomial" in p.message for p in problems), problems


def test_separated_repeats_really_are_slow_in_python() -> None:
    # The premise, kept fast: doubling the line costs the flagged shape about 16x, and on the same line it
    # costs far more than the shape whose first two repeats cannot absorb the separator.
    small = _seconds(r"(.*?)=(.*?)=(.*?);", "=" * 40)
    large = _seconds(r"(.*?)=(.*?)=(.*?);", "=" * 80)
    assert large > 4 * small
    assert large > 10 * _seconds(r"([^=]*)=([^=]*)=(.*?);", "=" * 80)


def _work(pattern: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many node facts and character-set operations the analysis of ``pattern`` takes (a measure of its cost
    that does not depend on the machine)."""
    calls = [0]

    def counted(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            calls[0] += 1
            return fn(*args)
        return wrapper

    with monkeypatch.context() as m:
        for name in ("intersects", "intersection", "union"):
            m.setattr(charset, name, counted(getattr(charset, name)))
        m.setattr(NodeFacts, "_compute", counted(NodeFacts._compute))
        backtracking.cache_clear()  # analyse it now, not from an earlier test's result
        backtracking_problems(pattern)
    return calls[0]


@pytest.mark.parametrize("piece", [lambda i: chr(0x4E00 + i) + "*", lambda i: "(.*?)="])
def test_the_analysis_stays_linear_on_long_patterns(piece: Callable[[int], str], monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    short = _work("x" + "".join(piece(i) for i in range(300)), monkeypatch)
    long = _work("x" + "".join(piece(i) for i in range(1200)), monkeypatch)
    assert long < 6 * short  # four times the pattern, about four times the work (quadratic would be 16)


@pytest.mark.parametrize("source", FINE)
def test_ordinary_templates_are_fine(source: str) -> None:
    assert backtracking_problems(source) == []


def test_reports_innermost_repeat_and_offsets() -> None:
    [p] = backtracking_problems("x((?:a|a)+)+y")
    assert p.offset == 2  # the inner (?:a|a)+, not the outer group
    problems = backtracking_problems(r"(\w+)_?(\w+)")
    assert [p.offset for p in problems] == [8]
    assert "\\w+ (at 1)" in problems[0].message


def test_messages_explain_the_fix() -> None:
    [p] = backtracking_problems("(a+)+")
    assert "nested" in p.message and "quantifier" in p.message
    [p] = backtracking_problems(r"(\w|\d)+")
    assert "alternatives" in p.message and "mutually exclusive" in p.message
    [p] = backtracking_problems(r"\d+\d+")
    assert "required literal" in p.message


def test_syntax_errors_give_no_backtracking_problems() -> None:
    assert backtracking_problems("(a+") == []


def _seconds(pattern: str, text: str) -> float:
    rx = re.compile(pattern)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        rx.search(text)
        best = min(best, time.perf_counter() - start)
    return best


def test_flagged_exponential_shape_really_is_slow_in_python() -> None:
    # Sanity check of the premise, kept fast (~0.1 s): 6 more characters cost
    # ~18x the time for the flagged shape, while the unflagged one stays fast.
    small = _seconds(r"(a|aa)+b", "a" * 16)
    large = _seconds(r"(a|aa)+b", "a" * 22)
    assert large > 5 * small
    # the unflagged shape grows polynomially with the line (each start position scans on), never like that
    assert _seconds(r"(\w+\.)+x", "a." * 2000 + "!") < 8 * _seconds(r"(\w+\.)+x", "a." * 1000 + "!")


# Runs of optional parts that share characters: Python re tries 2^n ways at every start ((?:a?){24}b took 5 s on
# a line of 24 a's), and the repeat checks above saw none of them (no repeat loops).
OPTIONAL_RUNS = [r"(?:a?){30}a{30}", "a?" * 30 + "a" * 30, r"x(?:[0-9]?){8}y", r"(?:[ab]?){20}[ab]{20}",
                 "[0-9]?" * 8, "a?a" * 8, r"(?:a|b?){24}c"]
# ... and what stays fine: fewer than eight, disjoint characters, a separator they cannot match, or iterations
# past the required ones (an empty one ends the repeat).
OPTIONAL_RUNS_FINE = [r"(?:a?){7}b", "[0-9]?" * 7, "a?b?c?d?e?f?g?h?i?", "a?x" * 10, r"(?:a?){2,30}b",
                      r"(\d{1,3}\.){3}\d{1,3}", r"CreateOS (\d+) failed: ([a-z]+)?"]


@pytest.mark.parametrize("source", OPTIONAL_RUNS)
def test_runs_of_overlapping_optional_parts(source: str) -> None:
    problems = backtracking_problems(source)
    assert any("exponentially" in p.message and "2^" in p.message for p in problems), problems


@pytest.mark.parametrize("source", OPTIONAL_RUNS_FINE)
def test_short_or_separated_optional_parts_are_fine(source: str) -> None:
    assert backtracking_problems(source) == []


def test_a_run_of_optional_parts_really_is_exponential_in_python() -> None:
    small = _seconds(r"(?:a?){10}b", "a" * 10)
    large = _seconds(r"(?:a?){16}b", "a" * 16)
    assert large > 8 * small
