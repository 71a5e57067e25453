"""size_problems(): patterns too long, or whose counted repeats expand too far, are bounded before any engine."""

from __future__ import annotations

import json
from typing import Any

import hyperscan
import pytest

from errdex.patterns import MAX_EXPANSION, MAX_LENGTH, size_problems
from errdex.patterns.size import expanded_size
from tests.conftest import ROOT, SEED_PATH
from tests.processes import time_limit

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
    """Refused by its length alone, at the limit, before anything parses its 30,000 nested groups."""
    for huge in ("(?:" * 30000 + "a" + ")" * 30000, "\u4e00*" * 35000):
        with time_limit(30, what="size_problems on a huge pattern"):  # only stops a hang
            [problem] = size_problems(huge)
        assert problem.offset == MAX_LENGTH and f"above the limit of {MAX_LENGTH:,}" in problem.message


def test_syntax_errors_are_left_to_portability() -> None:
    assert size_problems("(a") == []


def test_too_many_alternations_are_bounded_before_any_engine() -> None:
    # 300 groups such as (a0|b) in 2,300 characters: hyperscan took 3 s on each before refusing it as too large,
    # so eight such records cost validate 25 s and every fresh match start 28 s.
    from errdex.patterns.size import MAX_ALTERNATIONS

    many = "".join(f"(a{i}|b)" for i in range(MAX_ALTERNATIONS + 1))
    problems = size_problems(many)
    assert len(problems) == 1 and f"{MAX_ALTERNATIONS + 1} alternations" in problems[0].message
    assert problems[0].offset == many.index(f"(a{MAX_ALTERNATIONS}|b)") + 1
    assert size_problems("".join(f"(a{i}|b)" for i in range(MAX_ALTERNATIONS))) == []
    assert size_problems("|".join(f"w{i}" for i in range(400))) == []  # one alternation of many literals is fine


def _record_hyperscan_compiles(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every expression given to hyperscan from now on (its databases are still real ones)."""
    compiled: list[bytes] = []

    class Recording(hyperscan.Database):
        def compile(self, *args: Any, **kwargs: Any) -> Any:
            compiled.extend(kwargs.get("expressions", args[0] if args else []))
            return super().compile(*args, **kwargs)

    monkeypatch.setattr(hyperscan, "Database", Recording)
    return compiled


def test_a_record_with_too_many_alternations_is_never_compiled(cli, tmp_path, monkeypatch) -> None:
    envelope = json.loads((ROOT / "records/paperclipai/paperclip/createos-returned-invalid-json.json").read_text())
    envelope["record"]["messagePattern"] = "".join(f"(a{i}|b)" for i in range(300))
    bundle = tmp_path / "records.jsonl"
    healthy = json.loads(SEED_PATH.read_text())  # compiled as usual: shows the recording sees what is compiled
    bundle.write_text(json.dumps(envelope) + "\n" + json.dumps(healthy) + "\n")
    compiled = _record_hyperscan_compiles(monkeypatch)
    result = cli("match", "--records", str(bundle), "-", input="a0a1a2\n")
    assert compiled, "nothing was compiled: the recording missed hyperscan"
    assert not any(b"(a299|b)" in expression for expression in compiled)  # hyperscan never saw the big one
    assert result.exit_code == 0 and "1 record is not matched" in result.stderr and "alternations" in result.stderr


def _corpus() -> list[str]:
    """Varied patterns: the bundled records', generated records', realistic templates, and ones near the bounds
    (counted repeats, many alternations, escaped braces and bars, syntax errors)."""
    from errdex.records.loader import load_records
    from tests.benchmarks.generate import generate
    from tests.patterns.patterns_corpus import realistic_patterns

    bundled = [loaded.record["messagePattern"] for loaded in load_records()]
    generated = [envelope["record"]["messagePattern"] for envelope in generate(200)]
    edges = ["a{2}", "a\\{2}", "a\\{1000\\}", ".{0,1000}", "(a|b){0,600}", "\\|" * 150, "|".join("ab" * 120),
             "".join(f"(a{i}|b)" for i in range(101)), "x{", "(?:[a-z]{1,30}){1,30}", "a{1000,}", "[{]", "[|]" * 200,
             "\\p{L}+", "\\u{1F600}", "(", "a)", "x" * MAX_LENGTH]
    return bundled + generated + realistic_patterns(1500) + edges


def test_the_text_shortcut_gives_what_the_walk_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    # size_problems answers [] from the text alone for a pattern without '{' and with few '|': the walks of its
    # tree, run on every pattern, must find the same problems (offset and message).
    from errdex.patterns import size

    corpus = _corpus()
    shortcut = size._cannot_be_too_large
    assert sum(map(shortcut, corpus)) > len(corpus) // 2  # the shortcut is what most of them take
    assert not all(map(shortcut, corpus))
    quick = [size_problems(pattern) for pattern in corpus]
    monkeypatch.setattr(size, "_cannot_be_too_large", lambda pattern: False)
    walked = [size_problems(pattern) for pattern in corpus]
    assert quick == walked
    assert any(quick)
