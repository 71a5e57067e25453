"""The matcher finds every pattern wherever it occurs in a line, keyed or not, ASCII or not, with spans in
characters.

The hyperscan this project installs misses matches of full expressions on AVX-512 machines (see
:mod:`errdex.match.prefilter`): these cases are the ones it missed, so they fail again if a pattern without a
key is ever looked for with hyperscan's full-expression mode.
"""

from __future__ import annotations

from typing import Any

import pytest
import re2

from errdex.match.engine import Matcher, rest_of


def _records(*sources: str) -> list[dict[str, Any]]:
    return [{"id": f"{i:016x}", "slug": f"r{i}", "repo": "a/b", "errorClass": "Error", "severity": "error",
             "messagePattern": source, "errorMessage": "x"} for i, source in enumerate(sources)]


def _found(matcher: Matcher, line: str) -> dict[str, tuple[int, int]]:
    """Pattern -> span, by match() on the line and by match_block() on the line between two others."""
    one = {m.view["messagePattern"]: m.span for m in matcher.match(line)}
    block = f"first\n{line}\nlast".encode()
    at = block.index(b"\n") + 1
    lines = {start: ms for start, _, ms in matcher.match_block(block)}
    assert {m.view["messagePattern"]: m.span for m in lines.get(at, [])} == one
    return one


def test_a_short_non_ascii_pattern_is_found_next_to_one_with_a_repeat() -> None:
    """The case the property test found: ``é`` was not found in this line once ``x([0-9]+)`` was loaded."""
    matcher = Matcher(_records("é", "x([0-9]+)"))
    assert _found(matcher, "diskdiskdiskdiské") == {"é": (16, 17)}
    assert _found(matcher, "diskdiskdiskdiské x42") == {"é": (16, 17), "x([0-9]+)": (18, 21)}
    assert [m.groups for m in matcher.match("ab x7")] == [("7",)]


@pytest.mark.parametrize(("sources", "sample"), [
    (("x[0-9]+",), "x1"),  # missed when it ended the buffer, 15 bytes or more into it
    (("[0-9]y+",), "1y"),  # missed anywhere past 32 bytes
    (("[0-9]+y+",), "1y"),
    (("(?:1|2)y+",), "1y"),
    (("ab", "x[0-9]+"), "ab"),  # a two-byte pattern next to one of those
    (("é", "x[0-9]+"), "é"),
    (("日", "[0-9]y+"), "日"),  # three bytes in UTF-8
    (("𝄞", "[0-9]y+"), "𝄞"),  # four bytes, one character
    (("İ", "x[0-9]+"), "İ"),  # lower-cases to two characters
    (("ß", "x[0-9]+"), "ß"),  # upper-cases to two characters
])
def test_patterns_without_a_key_are_found_at_every_position(sources: tuple[str, ...], sample: str) -> None:
    matcher = Matcher(_records(*sources))
    assert not matcher.skipped
    for before in (0, 1, 14, 15, 16, 31, 32, 33, 63, 64, 65, 100):
        for after in (0, 1, 17, 18, 40):
            line = "q" * before + sample + "q" * after
            assert _found(matcher, line).get(sources[0]) == (before, before + len(sample)), (before, after)


def test_spans_and_groups_are_in_characters_whatever_precedes_them() -> None:
    sources = ("é([0-9]+)", "Sandbox ([a-z]+) é failed", "İİ (.+)$", "𝄞+")
    matcher = Matcher(_records(*sources))
    line = "日本 ß İİ Sandbox vm é failed é42 𝄞𝄞"
    found = {m.view["messagePattern"]: (m.span, m.groups) for m in matcher.match(line)}
    assert found == {
        "é([0-9]+)": ((line.index("é4"), line.index("é4") + 3), ("42",)),
        "Sandbox ([a-z]+) é failed": ((8, 27), ("vm",)),
        "İİ (.+)$": ((5, len(line)), (line[8:],)),
        "𝄞+": ((len(line) - 2, len(line)), ()),
    }
    for pattern, (span, _) in found.items():
        assert line[span[0]:span[1]].startswith(pattern[:2].rstrip("(+")), pattern


def test_case_is_never_folded() -> None:
    """A pattern matches its characters as written: ``İ`` is not ``i̇`` (what it lower-cases to), ``ß`` not ``SS``."""
    matcher = Matcher(_records("İ", "ß", "straße voll", "ǅ"))
    line = "i̇ SS STRASSE VOLL ǆ ǅ"
    assert _found(matcher, line) == {"ǅ": (line.index("ǅ"), line.index("ǅ") + 1)}
    assert set(_found(matcher, "İ straße voll")) == {"İ", "ß", "straße voll"}


def test_a_key_cut_inside_a_character_still_finds_the_pattern_and_only_it() -> None:
    """Keys are up to 12 bytes of UTF-8: this one ends in the middle of an ``é``."""
    matcher = Matcher(_records("aééééééé failed", "aéééééê failed"))
    assert _found(matcher, "x aééééééé failed") == {"aééééééé failed": (2, 17)}
    assert _found(matcher, "x aéééééê failed") == {"aéééééê failed": (2, 16)}
    assert _found(matcher, "x aéééééé failed") == {}


def test_a_pattern_without_a_key_that_re2_refuses_is_skipped_with_its_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from errdex.match import plan

    real = plan._analyse

    def broken_re2(pattern: str, *rest: Any) -> list[Any]:
        analysis = real(pattern, *rest)
        if pattern == "x[0-9]+":
            analysis[3] = "(unclosed"
        return analysis

    monkeypatch.setattr(plan, "_analyse", broken_re2)
    matcher = Matcher(_records("x[0-9]+", "y[0-9]+"))
    assert [(r["messagePattern"], why.split(":")[0]) for r, why in matcher.skipped] == [
        ("x[0-9]+", "RE2 cannot compile the pattern")]
    assert [m.view["messagePattern"] for m in matcher.match("x1 y2")] == ["y[0-9]+"]


def test_a_cached_plan_finds_the_patterns_without_a_key_too(tmp_path: Any) -> None:
    first = Matcher(_records("é", "x([0-9]+)", "disk full"), cache_dir=tmp_path)
    second = Matcher(_records("é", "x([0-9]+)", "disk full"), cache_dir=tmp_path)
    line = "q" * 20 + "disk full é"
    assert _found(first, line) == _found(second, line) == {"é": (30, 31), "disk full": (20, 29)}
    assert len(list(tmp_path.iterdir())) == 1


def _placed_records(*places: tuple[str, int]) -> list[dict[str, Any]]:
    """Records of one pattern (so they tie), each written at one of ``places`` (file, line)."""
    records = _records(*["Cannot open channel to ([0-9]+)"] * len(places))
    return [{**record, "filePath": path, "lineNumber": number}
            for record, (path, number) in zip(records, places, strict=True)]


def _order(matcher: Matcher, line: str) -> list[int]:
    """Line numbers of the records matched, in rank order, by match() and by match_block() (which agree)."""
    order = [m.record["lineNumber"] for m in matcher.match(line)]
    assert [[m.record["lineNumber"] for m in ms] for _, _, ms in matcher.match_block(line.encode())] == [order]
    return order


def test_a_tie_is_broken_by_the_class_and_line_log4j_prints() -> None:
    matcher = Matcher(_placed_records(("src/quorum/QuorumCnxManager.java", 364),
                                      ("src/quorum/QuorumCnxManager.java", 368)))
    assert _order(matcher, "WARN [WorkerSender[myid=1]:QuorumCnxManager@368] - Cannot open channel to 2") == [368, 364]
    assert _order(matcher, "WARN [main:QuorumCnxManager@364] - Cannot open channel to 2") == [364, 368]
    # neither named: the record id decides, as before; a longer number or name is not the record's place
    assert _order(matcher, "WARN [main:QuorumCnxManager@3680] - Cannot open channel to 2") == [364, 368]
    assert _order(matcher, "WARN [main:MyQuorumCnxManager@368] - Cannot open channel to 2") == [364, 368]


def test_a_tie_is_broken_by_a_file_name_and_line() -> None:
    matcher = Matcher(_placed_records(("a/Conn.java", 10), ("b/Conn.java", 20), ("client.py", 42), ("main.go", 17)))
    assert _order(matcher, "Cannot open channel to 2 (Conn.java:20)") == [20, 10, 42, 17]
    assert _order(matcher, "client.py:42 Cannot open channel to 2") == [42, 10, 20, 17]
    assert _order(matcher, "main.go:17: Cannot open channel to 2") == [17, 10, 20, 42]


def test_without_a_tie_the_order_is_unchanged() -> None:
    records = _placed_records(("Net.java", 5), ("Net.java", 9))
    records[1]["messagePattern"] = "Cannot open channel to 2"  # more literal text: ranks first whatever the line says
    matcher = Matcher(records)
    assert _order(matcher, "[main:Net@5] - Cannot open channel to 2") == [9, 5]
    assert [m.record["lineNumber"] for m in Matcher(records[:1]).match("[main:Net@5] Cannot open channel to 2")] == [5]


def test_a_line_without_a_patterns_other_literals_is_refused_before_re2_and_results_do_not_change() -> None:
    """Lines holding the key but not the rest of the message (an older release's wording) are refused by a
    substring search; what matches is what RE2 alone finds."""
    sources = ["Invalid user ([^ ]*) from ([0-9.]+) port ([0-9]+)", "Received disconnect from ([0-9.]+) port ([0-9]+)"]
    matcher = Matcher(_records(*sources))
    assert all(matcher._extras.get(i) for i in range(2))
    lines = ["Invalid user test9 from 52.80.34.196", "Invalid user test9 from 52.80.34.196 port 22",
             "Received disconnect from 1.2.3.4: 11: Bye", "Received disconnect from 1.2.3.4 port 22:11: Bye",
             "port Invalid user x from 1.2.3.4"]
    for line in lines:
        expected = [i for i, source in enumerate(sources) if re2.search(source, line)]
        assert [int(m.view["id"], 16) for m in matcher.match(line)] == expected, line


def _every_record_matches(count: int) -> tuple[list[dict[str, Any]], str]:
    """``count`` records ``tok{i} (.*)failed`` and a line that holds all of them (each capturing the rest of it)."""
    line = " ".join(f"tok{i}" for i in range(count)) + " failed"
    return _records(*(f"tok{i} (.*)failed" for i in range(count))), line


def test_a_line_every_record_matches_lists_the_best_and_counts_the_rest() -> None:
    # 5,000 such records against a 39 KB line took 13 s a line and wrote 100 MB of jsonl: every candidate was
    # confirmed with its group, a copy of most of the line.
    from errdex.match import engine

    records, line = _every_record_matches(2_000)
    matcher = Matcher(records)
    matches = matcher.match(line)
    budget = max(engine.MIN_LINE_TRIES, engine.LINE_WORK_BYTES // (len(line.encode()) + 1))
    assert len(matches) == engine.MAX_LINE_MATCHES
    more, unchecked = rest_of(matches)
    assert more == budget - engine.MAX_LINE_MATCHES and more + unchecked + len(matches) == 2_000
    # the best by rank: the longest tokens (four digits), the lowest ids first
    assert [m.view["messagePattern"] for m in matches] == [f"tok{i} (.*)failed" for i in range(1000, 1020)]
    assert all(m.groups == (line[line.index(f"tok{1000 + k} ") + len(f"tok{1000 + k} "):-len("failed")],)
               for k, m in enumerate(matches))
    # the same from a block, with the line among others, and from found_block's plain tuples
    block = f"nothing\n{line}\nnothing".encode()
    [(start, _end, found)] = list(matcher.match_block(block))
    assert start == len("nothing\n") and found == matches and rest_of(found) == (more, unchecked)


def test_the_work_on_a_line_grows_with_the_line_not_with_the_records_it_holds() -> None:
    from tests.processes import growth

    records, _ = _every_record_matches(4_000)
    matcher = Matcher(records)

    def one_line(count: int) -> None:
        matcher.match(" ".join(f"tok{i}" for i in range(count)) + " failed")

    matcher.match(" ".join(f"tok{i}" for i in range(4_000)) + " failed")  # every RE2 compiled once
    assert growth(one_line, 1_000, factor=4) < 8  # four times the line, four times the work (it was 16)


def test_a_long_line_tries_few_candidates_and_says_how_many_it_left() -> None:
    from errdex.match import engine

    matcher = Matcher(_records("alpha (.*) end", "beta (.*) end", "gamma (.*) end", "delta (.*) end",
                               "epsilon (.*) end", "zeta (.*) end"))
    line = "alpha beta gamma delta epsilon zeta " + "x" * (engine.LINE_WORK_BYTES // 2) + " end"
    matches = matcher.match(line)
    # the best by rank: most literal characters, then the lowest id
    assert [m.view["messagePattern"] for m in matches] == ["epsilon (.*) end", "alpha (.*) end",
                                                            "gamma (.*) end", "delta (.*) end"]
    assert rest_of(matches) == (0, 2) and len(matches) == engine.MIN_LINE_TRIES
    assert rest_of(matcher.match("alpha beta gamma delta epsilon zeta x end")) == (0, 0)  # a short line: all six
