"""compile_problems(): every engine, batching, skipped engines."""

from __future__ import annotations

import shutil

import pytest

from errdex.patterns import ENGINES, CompileReport, EngineProblem, compile_problems
from errdex.patterns import engines as engines_mod
from tests.patterns.patterns_corpus import realistic_patterns

pytest.importorskip("hyperscan")
HAVE_NODE = shutil.which("node") is not None

GOOD = [r"CreateOS request failed \(HTTP (\d+)\) during (.+)\.", r"foo (\d+)$", "é+x"]


def test_portable_patterns_compile_everywhere() -> None:
    report = compile_problems(GOOD + realistic_patterns(200))
    assert isinstance(report, CompileReport)
    assert {p: v for p, v in report.items() if v} == {}
    expected = ENGINES if HAVE_NODE else tuple(e for e in ENGINES if e != "javascript")
    assert report.engines == expected
    assert set(report.compiled) == set(expected)


def test_raw_sources_of_non_portable_patterns_are_judged_by_each_engine() -> None:
    named = "(?<n>a)b"
    lookahead = "a(?=b)"
    broken = "(a"
    empty = "a?"
    report = compile_problems([named, lookahead, broken, empty, "ok"])
    engines_of = {p: {e.engine for e in v} for p, v in report.items()}
    assert engines_of["ok"] == set()
    # Python 3.11 wants (?P<n>...); DuckDB's RE2 rejects (?<n>...); google-re2,
    # hyperscan and JavaScript accept it.
    assert {"python", "duckdb"} <= engines_of[named]
    assert "re2" not in engines_of[named] and "javascript" not in engines_of[named]
    assert {"re2", "duckdb", "hyperscan"} <= engines_of[lookahead]
    assert "python" not in engines_of[lookahead]
    assert engines_of[broken] >= {"python", "re2", "duckdb", "hyperscan"} | (
        {"javascript"} if HAVE_NODE else set())
    assert engines_of[empty] == {"hyperscan"}
    for problems in report.values():
        for p in problems:
            assert isinstance(p, EngineProblem) and p.message


def test_duckdb_batch_finds_every_culprit() -> None:
    patterns = [f"ok{i}" for i in range(50)] + ["(?<a>x)", "bad(", "[z"]
    report = compile_problems(patterns, engines=["duckdb"])
    bad = {p for p, v in report.items() if v}
    assert bad == {"(?<a>x)", "bad(", "[z"}
    assert report.engines == ("duckdb",)


def test_hyperscan_bisection_attributes_errors() -> None:
    patterns = [f"x{i}y" for i in range(70)]
    patterns[5] = "a^b"
    patterns[66] = "a?"
    report = compile_problems(patterns, engines=["hyperscan"])
    bad = {p: v[0].message for p, v in report.items() if v}
    assert set(bad) == {"a^b", "a?"}
    assert "anchor" in bad["a^b"].lower()


def test_missing_node_skips_javascript(monkeypatch) -> None:
    monkeypatch.setattr(engines_mod.shutil, "which", lambda name: None)
    report = compile_problems(GOOD, engines=["python", "javascript"])
    assert report.engines == ("python",)
    assert "javascript" in report.skipped and "node" in report.skipped["javascript"]


@pytest.mark.skipif(not HAVE_NODE, reason="node is not installed")
def test_javascript_reports_syntax_errors() -> None:
    report = compile_problems(["a{,3}x", r"\:", "fine"], engines=["javascript"])
    assert [e.engine for e in report["a{,3}x"]] == ["javascript"]
    assert report[r"\:"] and report["fine"] == []


def test_unknown_engine_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown engines"):
        compile_problems(GOOD, engines=["perl"])


def test_duplicates_and_empty_input() -> None:
    report = compile_problems(["x", "x"])
    assert list(report) == ["x"]
    assert dict(compile_problems([])) == {}


def test_hyperscan_chunks_are_bisected_to_the_culprit() -> None:
    sources = [b"x%dy" % i for i in range(300)]
    sources[5] = b"a^b"
    sources[290] = b"(a|)"
    out = engines_mod._hyperscan_compile(sources, likely_ok=set(sources))
    assert [k for k, v in enumerate(out) if v] == [5, 290]
    assert out[5] is not None and "anchor" in out[5].lower()
