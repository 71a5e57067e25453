"""EDX122's engine verdicts: patterns of one shape share one compile, a failing shape compiles its patterns."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from errdex import patterns
from errdex.checks import pattern as pattern_check
from errdex.patterns.engines import CompileReport, EngineProblem
from errdex.patterns.facts import PatternFacts, pattern_shape


@pytest.mark.parametrize(("given", "shape"), [
    (r"Lease ([0-9]+) expired\.", "a([0-9]+)a"),
    (r"CreateOS request failed \(HTTP ([0-9]{3})\) during (file transfer|stdin close)\.", "a([0-9]{3})a(a|a)a"),
    (r"ab+c", "ab+a"),  # the repeated character stays: the quantifier applies to it alone
    (r"x[a-z:]*y", "a[a-z:]*a"),  # classes are kept as written
    (r"^Worker \d+ gone$", "^a\\d+a$"),
    (r"é(?:ü|ß){2}(?:ok|no)?", "a(?:ü|ß){2}(?:a|a)?"),  # what repeats keeps its characters (their UTF-8 size)
])
def test_a_shape_keeps_everything_but_the_literal_runs(given: str, shape: str) -> None:
    assert pattern_shape(given) == shape
    assert not PatternFacts().analysis(shape)["portability"]  # the shape is itself a portable pattern


def _recording(monkeypatch: pytest.MonkeyPatch, fail: frozenset[str] = frozenset()) -> list[list[str]]:
    calls: list[list[str]] = []

    def compile_problems(given: Sequence[str]) -> CompileReport:
        calls.append(list(given))
        report = CompileReport()
        report.engines = patterns.ENGINES
        for item in given:
            report[item] = [EngineProblem("hyperscan", f"refused {item}")] if item in fail else []
        return report

    monkeypatch.setattr(patterns, "compile_problems", compile_problems)
    return calls


def test_patterns_of_one_shape_share_one_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _recording(monkeypatch)
    facts = PatternFacts()
    many = [f"Lease {n} expired after ([0-9]+) s\\." for n in range(50)]
    assert pattern_check._verdicts(facts, many) == {p: [] for p in many}
    assert calls == [["a([0-9]+)a"]]
    assert all(facts.engine_problems(p) == [] for p in many)  # the next run asks no engine


def test_the_patterns_of_a_failing_shape_are_compiled_for_their_own_messages(monkeypatch: pytest.MonkeyPatch
                                                                            ) -> None:
    bad = "Lease 1 expired after ([0-9]+) s\\."
    calls = _recording(monkeypatch, fail=frozenset({"a([0-9]+)a", bad}))
    facts = PatternFacts()
    good = "Lease 2 expired after ([0-9]+) s\\."
    verdicts = pattern_check._verdicts(facts, [bad, good, "plain text"])
    assert verdicts == {bad: [["hyperscan", f"refused {bad}"]], good: [], "plain text": []}
    assert calls == [["a([0-9]+)a", "a"], [bad, good]]
