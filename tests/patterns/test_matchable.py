"""refusal(): the one rule for whether the CLI matcher, the SQL index and the browser matcher run a pattern."""

from __future__ import annotations

import pytest

from errdex.patterns import EMPTY_MATCH, MAX_LENGTH, refusal
from errdex.patterns.facts import PatternFacts
from errdex.patterns.matchable import refusal_of


@pytest.mark.parametrize("pattern", [r"foo (\d+)$", "é+x", r"User (\w+) logged in"])
def test_portable_safe_patterns_run_everywhere(pattern: str) -> None:
    assert refusal(pattern) is None
    assert refusal(pattern, browser=True) is None


def test_a_pattern_that_matches_every_line_runs_in_the_cli_only() -> None:
    assert refusal("(.*?)") is None
    assert refusal("(.*?)", browser=True) == EMPTY_MATCH


def test_a_pattern_that_backtracks_runs_in_the_cli_only() -> None:
    assert refusal("(a+)+b") is None
    message = refusal("(a+)+b", browser=True)
    assert message is not None and "backtracks exponentially" in message


@pytest.mark.parametrize("browser", [False, True])
def test_non_portable_and_oversized_patterns_run_nowhere(browser: bool) -> None:
    assert "lookahead" in (refusal("a(?=b)", browser=browser) or "")
    assert "above the limit" in (refusal("a" * (MAX_LENGTH + 1), browser=browser) or "")
    # a pattern that both is not portable and can match the empty string is refused for its first problem
    assert refusal("(?<n>a)?", browser=browser) is not None


def test_the_first_problem_is_the_reason() -> None:
    assert refusal_of(["big"], ["odd"], ["slow"]) == "big"
    assert refusal_of([], [EMPTY_MATCH, "odd"]) == EMPTY_MATCH
    assert refusal_of([], [EMPTY_MATCH]) is None
    assert refusal_of([], [], ["slow"]) is None
    assert refusal_of([], [], ["slow"], browser=True) == "slow"


@pytest.mark.parametrize("pattern", ["(.*?)", "(a+)+b", "a(?=b)", r"foo (\d+)$", "(?<n>a)?", "x" * (MAX_LENGTH + 1)])
@pytest.mark.parametrize("browser", [False, True])
def test_the_cached_rule_is_the_same_rule(pattern: str, browser: bool) -> None:
    assert PatternFacts().refusal(pattern, browser=browser) == refusal(pattern, browser=browser)
