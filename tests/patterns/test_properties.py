"""Property tests: every engine agrees on portable patterns; the parser agrees with V8."""

from __future__ import annotations

import os
import re

import pytest
import re2
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from errdex.patterns import (
    HYPERSCAN_FLAGS,
    PatternSyntaxError,
    backtracking_problems,
    compile_problems,
    parse,
    portability_problems,
    to_hyperscan,
    to_python,
    to_re2,
)
from tests.patterns.patterns_strategies import fuzz_sources, pattern_and_lines, pattern_sources

hyperscan = pytest.importorskip("hyperscan")

# ERRDEX_PATTERN_EXAMPLES=N runs N random (not derandomized) examples per property.
_DEEP = int(os.environ.get("ERRDEX_PATTERN_EXAMPLES", "0"))
_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much]


def _settings(examples: int) -> settings:
    return settings(max_examples=_DEEP or examples, deadline=None, derandomize=not _DEEP,
                    database=None, suppress_health_check=_HEALTH)


SETTINGS = _settings(200)


def _hyperscan_matches(source: bytes, lines: list[str]) -> list[bool]:
    db = hyperscan.Database()
    db.compile(expressions=[source], ids=[0], flags=[HYPERSCAN_FLAGS | hyperscan.HS_FLAG_SINGLEMATCH])
    out = []
    for line in lines:
        hits: list[int] = []
        db.scan(line.encode("utf-8"), match_event_handler=lambda *_, hits=hits: hits.append(1))
        out.append(bool(hits))
    return out


@SETTINGS
@given(pattern_and_lines())
def test_engines_agree_on_matches_and_groups(node, duck, case) -> None:
    source, lines = case
    assume(not portability_problems(source))
    # V8 can take minutes on exponential shapes (and node 20 once answered
    # "no match" after 106 s), so JavaScript is only asked about the others.
    exponential = any("exponentially" in p.message for p in backtracking_problems(source))
    py = re.compile(to_python(source), re.ASCII)
    r2 = re2.compile(to_re2(source))
    hs = _hyperscan_matches(to_hyperscan(source), lines)
    for line, hs_hit in zip(lines, hs, strict=True):
        m = py.search(line)
        n = r2.search(line)
        found = m is not None
        assert (n is not None) == found, (source, line)
        assert hs_hit == found, (source, line, "hyperscan")
        duck_hit, duck_text = duck.execute(
            "SELECT regexp_matches($1, $2), regexp_extract($1, $2, 0)",
            [line, to_re2(source)]).fetchone()
        assert duck_hit == found, (source, line, "duckdb")
        if m is None or n is None:
            continue
        assert n.span() == m.span(), (source, line)
        assert n.groups() == m.groups(), (source, line)
        assert duck_text == m.group(0), (source, line, "duckdb")
        if node is not None and not exponential:
            js = node.exec(source, line)
            assert js is not None, (source, line, "javascript")
            assert js["index"] == m.start(), (source, line, "javascript")
            assert js["groups"] == [m.group(0), *m.groups()], (source, line, "javascript")


@_settings(25)
@given(st.lists(pattern_sources(), min_size=1, max_size=25))
def test_portable_patterns_compile_in_every_engine(sources) -> None:
    portable = [s for s in sources if not portability_problems(s)]
    assume(portable)
    report = compile_problems(portable)
    assert {k: v for k, v in report.items() if v} == {}


@_settings(400)
@given(fuzz_sources)
def test_parser_agrees_with_javascript_and_portable_means_compilable(node, source) -> None:
    try:
        parse(source)
        parsed = True
    except PatternSyntaxError as e:
        parsed = False
        assert 0 <= e.offset <= len(source)
    if node is not None:
        ok, error = node.compiles(source)
        assert ok == parsed, (source, error)
    if parsed and not portability_problems(source):
        re.compile(to_python(source), re.ASCII)
        re2.compile(to_re2(source))
        hyperscan.Database().compile(expressions=[to_hyperscan(source)], ids=[0],
                                     flags=[HYPERSCAN_FLAGS])
