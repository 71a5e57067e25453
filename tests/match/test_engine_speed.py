"""What the matcher does to be fast gives the results it gave before: jsonl formatted once per record, JSON lines
found by their brace, a bounded number of compiled RE2 objects, line counts taken in the same pass."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from errdex.match import engine, knowledge, regexes
from errdex.match.knowledge import KnowledgeBase, LineMatch
from errdex.patterns import python_regex
from errdex.patterns.facts import FACTS_FILE, PatternFacts


def _records(*sources: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"id": f"{i:016x}", "slug": f"r{i}", "repo": "a/b", "errorClass": "Error", "severity": "error",
             "messagePattern": source, "errorMessage": "x", **extra} for i, source in enumerate(sources)]


LINES = [
    "disk full on /dev/sda1 (code 28)",
    'quote " and back\\slash: disk full on é "x" (code 7)',
    "emoji 😀 then disk full on \u2028 (code 99)",
    "optional part: timeout after 3 s",
    "optional part: timeout after s",
]
PATTERNS = ("disk full on (.+) \\(code ([0-9]+)\\)", "timeout after ([0-9]+ )?s", "disk full")


def test_jsonl_is_what_json_dumps_gives_for_every_line() -> None:
    kb = KnowledgeBase(_records(*PATTERNS))
    for number, line in enumerate(LINES, start=1):
        found = LineMatch("some/log\u00e9.txt", number, line, kb.match(line))
        assert found.matches
        assert kb.jsonl(found) == json.dumps(found.as_dict(), ensure_ascii=False)
        assert kb.jsonl(found) == kb.jsonl(found)  # the second time from the formatted part


def test_jsonl_of_records_with_odd_field_values() -> None:
    """Records that do not conform (matched with ``partial``) may hold any JSON value in a field."""
    kb = KnowledgeBase(_records("disk full", errorClass=None, severity=3))
    found = LineMatch("-", 1, "disk full", kb.match("disk full"))
    assert kb.jsonl(found) == json.dumps(found.as_dict(), ensure_ascii=False)


_OLD_JSON_LINE = re.compile(rb"\n[ \t\r]*\{")


def _old_starts(block: bytes) -> list[int]:
    starts = [hit.start() + 1 for hit in _OLD_JSON_LINE.finditer(block)]
    return ([0] if block.lstrip(b" \t\r")[:1] == b"{" else []) + starts


@pytest.mark.parametrize("block", [
    b"", b"{}", b"  {x}\nplain\n\t{a{b}\n{\n}\n", b"a{b\n{c\n \r{d\nno brace\n  x{\n{", b"\n\n{", b"{{{\n{{",
])
def test_json_lines_are_found_where_the_regex_found_them(block: bytes) -> None:
    assert list(knowledge._json_starts(block)) == _old_starts(block)


def test_a_bounded_number_of_compiled_patterns_gives_the_same_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [f"job {i} failed with code ([0-9]+)" for i in range(40)]
    lines = [f"job {i % 40} failed with code {i}" for i in range(200)]
    expected = [[(m.view["id"], m.span, m.groups) for m in engine.Matcher(_records(*sources)).match(line)]
                for line in lines]
    monkeypatch.setattr(regexes, "MAX_COMPILED", 3)
    matcher = engine.Matcher(_records(*sources))
    assert [[(m.view["id"], m.span, m.groups) for m in matcher.match(line)] for line in lines] == expected
    assert len(matcher._regexes) <= 3


def test_a_refused_pattern_is_reported_once_however_often_it_is_a_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regexes, "MAX_COMPILED", 1)
    matcher = engine.Matcher(_records("job ([0-9]+) failed", "task ([0-9]+) failed"))
    matcher._regexes.sources = ["job ([0-9]+ failed", matcher._re2_sources[1]]  # RE2 refuses the first
    for _ in range(3):
        matcher.match("job 1 failed, task 2 failed")
    assert len(matcher.skipped) == 1


def test_match_block_counts_the_lines_of_its_block() -> None:
    kb = KnowledgeBase(_records(*PATTERNS))
    for block in (b"disk full", b"x\ndisk full\ny\n", b"a\nb", b"\n\n\n"):
        found = kb.match_block(block)
        while True:
            try:
                next(found)
            except StopIteration as stop:
                assert stop.value == block.count(b"\n") + 1
                break


@pytest.mark.parametrize("pad", [0, 5, regexes.SHORT_LINE - 40, regexes.SHORT_LINE + 1, 3000])
def test_short_and_long_lines_give_the_spans_and_groups_python_re_gives(pad: int) -> None:
    """Short lines are confirmed by the pattern behind an anchored ``.*?``, long ones by the plain pattern."""
    sources = ["^start ([a-z]+)", "\\bword\\b", "code ([0-9]+)( retry)?", "(a|ab)(c|bcd)(d*)", "x(y)?z", "end$"]
    records = _records(*sources)
    matcher = engine.Matcher(records)
    bodies = ["start here code 42 retry", "a word, abcd code 7 xz end", "sword words xyz abcdd end"]
    for body in bodies:
        for line in (body + " " + "q" * pad, "q" * pad + " " + body):
            got = {m.view["messagePattern"]: (m.span, m.groups) for m in matcher.match(line)}
            expected = {}
            for source in sources:
                hit = python_regex(source).search(line)
                if hit:
                    expected[source] = (hit.span(), hit.groups())
            assert got == expected, line


def test_a_first_start_takes_the_analyses_validate_cached(tmp_path: Any) -> None:
    """The plan reads each pattern's refusal and literals from the pattern-facts cache when it holds them."""
    facts = PatternFacts(tmp_path / FACTS_FILE)
    facts.analysis("disk full")
    entry = next(iter(facts.entries.values()))
    entry["size"] = [[0, "too large (as the cache says)"]]
    facts.changed = True
    facts.save()
    matcher = engine.Matcher(_records("disk full", "job ([0-9]+) failed"), cache_dir=tmp_path / "hyperscan")
    assert [reason for _, reason in matcher.skipped] == ["too large (as the cache says)"]
    assert [m.view["messagePattern"] for m in matcher.match("job 3 failed: disk full")] == ["job ([0-9]+) failed"]
