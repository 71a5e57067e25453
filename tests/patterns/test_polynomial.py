"""Polynomial backtracking: overlapping repeats side by side, with only optional items (or items both can match)
between them, are flagged; a separator they cannot absorb keeps them apart."""

from __future__ import annotations

import pytest

from errdex.patterns import backtracking_problems

POLYNOMIAL = [
    r"\d+\d+", "(.*?)(.*?)", r".*\s*.*", r"(\w+)_?(\w+)", r"(\d+) ?(\d+)", r"[a-z]+\d*[a-z]+",
    r"((\w+)_?)(\w+)", r"(\d+|x)\d+", r"(\d+){2}", r"(?:\w+ ?){2,5}", r"a.*b?.+c",
    r"(?:foo)?(.+)(?:bar)?(.+)", r"\w+\b\w+",
]

# Overlapping repeats around a separator they can match themselves (a browser froze for 9 s to minutes on a pasted
# line).
SEPARATED = [
    r"(.*?)=(.*?)=(.*?);", r"(.*?)=(.*?);", r".{0,1000}x.{0,1000}y", r"(.+) x (.+)\.", r"a[a-z]{1,30}[a-z]{1,30}!",
    r"(\w+)\w(\w+)!", r"(.*)(?:=|:)(.*);",
]
# What stays fine: the separator cannot be absorbed, or nothing can fail after the second repeat.
SEPARATED_FINE = [r"([^=]*)=([^=]*)=(.*?);", r"(.*?) foo (.*?)", r"(.*?): (.*)", r"(\d{1,3}\.){3}\d{1,3}",
                  r"[a-z]{1,3}[a-z]{1,3}!", r"x(?:ab|cd){1,30}y"]


@pytest.mark.parametrize("source", POLYNOMIAL)
def test_polynomial_shapes(source: str) -> None:
    problems = backtracking_problems(source)
    assert any("polynomial" in p.message for p in problems), problems


@pytest.mark.parametrize("source", SEPARATED)
def test_repeats_that_absorb_their_separator(source: str) -> None:
    problems = backtracking_problems(source)
    assert any("polynomial" in p.message for p in problems), problems


@pytest.mark.parametrize("source", SEPARATED_FINE)
def test_separators_that_hold(source: str) -> None:
    assert backtracking_problems(source) == []


def test_character_sets_are_real_sets() -> None:
    # [^ ] and \d overlap (digits are not spaces); [a-f] and [g-z] do not.
    assert backtracking_problems(r"[^ ]+\d+")
    assert backtracking_problems("[a-f]+[g-z]+") == []
    assert backtracking_problems(r"[a-f]+[f-z]+")
    assert backtracking_problems(r"\D+\d+") == []
    assert backtracking_problems(r"\W+\w+") == []
    assert backtracking_problems(r"[^\d]+[0-9]+") == []
