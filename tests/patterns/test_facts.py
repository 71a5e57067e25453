"""PatternFacts: the one cache of pattern analyses and engine verdicts, kept between runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import re2

from errdex._version import __version__
from errdex.patterns import EMPTY_MATCH
from errdex.patterns.facts import FACTS_FILE, PatternFacts
from errdex.patterns.re2_options import re2_options
from errdex.patterns.translate import to_re2

GOOD = r"CreateOS request failed \(HTTP (\d+)\) during (.+)\."


def test_analysis_is_saved_and_reused(tmp_path: Path) -> None:
    path = tmp_path / FACTS_FILE
    facts = PatternFacts(path)
    first = facts.analysis(GOOD)
    assert first == {"size": [], "portability": [], "backtracking": [],
                     "literals": ["CreateOS request failed (HTTP ", ") during ", "."]}
    facts.save()
    data = json.loads(path.read_text())
    assert data["version"] == __version__ and len(data["entries"]) == 1
    again = PatternFacts(path)
    assert again.analysis(GOOD) == first
    assert not again.changed  # nothing learnt: nothing to write
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_non_portable_pattern_is_not_analysed_further() -> None:
    found = PatternFacts().analysis("(?<n>a+)+b")
    assert found["portability"] and found["backtracking"] == [] and found["literals"] == []


def test_engine_verdicts_are_kept_between_runs(tmp_path: Path) -> None:
    path = tmp_path / FACTS_FILE
    facts = PatternFacts(path)
    assert facts.engine_problems(GOOD) is None
    facts.remember_engine_problems(GOOD, [["hyperscan", "too big"]])
    facts.save()
    assert PatternFacts(path).engine_problems(GOOD) == [["hyperscan", "too big"]]


def test_another_version_or_a_damaged_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / FACTS_FILE
    path.write_text(json.dumps({"version": "0.0.0-other", "entries": {"x": 1}}))
    assert PatternFacts(path).entries == {}
    path.write_text("{not json")
    facts = PatternFacts(path)
    assert facts.analysis(GOOD)["literals"]
    facts.save()
    assert json.loads(path.read_text())["version"] == __version__


def test_damaged_entries_are_recomputed(tmp_path: Path) -> None:
    facts = PatternFacts()
    facts.analysis(GOOD)
    for key in facts.entries:
        facts.entries[key] = {"size": "garbage"}
    assert facts.analysis(GOOD)["portability"] == []
    facts.entries = {key: "x" for key in facts.entries}
    assert facts.engine_problems(GOOD) is None


def test_an_unwritable_cache_costs_only_time(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    facts = PatternFacts(blocker / "sub" / FACTS_FILE)
    facts.analysis(GOOD)
    facts.save()  # no exception
    assert blocker.read_text() == "x"


def test_full_match() -> None:
    facts = PatternFacts()
    assert facts.full_match(r"foo (\d+)", "foo 12")
    assert not facts.full_match(r"foo (\d+)", "foo 12 bar")


def test_refusal_reads_the_cached_analysis() -> None:
    facts = PatternFacts()
    assert facts.refusal(GOOD) is None and facts.refusal(GOOD, browser=True) is None
    assert facts.refusal("(.*?)") is None
    assert facts.refusal("(.*?)", browser=True) == EMPTY_MATCH
    assert facts.refusal(r"(\d+)\d+ x") is None
    assert "polynomial" in (facts.refusal(r"(\d+)\d+ x", browser=True) or "")


@pytest.mark.parametrize("pattern", [
    r"Lease expired\.", "x", r"a\nb", "é€😀 done", r"\(status\) \[x\] \{1\}", r"a\.b", "a.b", "ab+", "^ab$",
    "a|b", "(ab)", r"a\d", "[a]", "a{2}",
])
@pytest.mark.parametrize("message", ["Lease expired.", "x", "", "a\nb", "é€😀 done", "(status) [x] {1}", "a.b",
                                     "axb", "abb", "ab", "a", "a1", "aa", "Lease expiredX"])
def test_a_literal_pattern_matches_what_re2_matches(pattern: str, message: str) -> None:
    """Patterns of literal characters only are compared as text, without RE2: the answer is RE2's."""
    expected = re2.compile(to_re2(pattern), re2_options()).fullmatch(message) is not None
    assert PatternFacts().full_match(pattern, message) is expected
