"""Matching log lines to records: ranking, groups, JSON fields, streams, hostile input."""

from __future__ import annotations

import gzip
import itertools
import json
import tempfile
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import errdex
from errdex.index import build_index
from errdex.match import engine, plan, readers, run
from errdex.match.engine import Matcher, rest_of
from errdex.match.readers import read_lines, split_file
from errdex.match.run import ERROR_LOOKING, MatchSummary, match_files
from errdex.records.canonical import canonical_text

API_LINE = "2026-11-30T10:00:01Z worker[7] ERROR CreateOS request failed (HTTP 502) during process creation."
SEED_MESSAGE = "CreateOS process creation could not be confirmed; destroy the lease before reusing it."


def _record(index: int, pattern: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"{index:016x}", "slug": f"r{index}", "repo": "a/b", "errorClass": "Error", "severity": "error",
            "messagePattern": pattern, "errorMessage": message, **extra}


@pytest.fixture(scope="module")
def kb() -> errdex.KnowledgeBase:
    return errdex.load()


def test_dynamic_message_gives_its_record_and_groups(kb: errdex.KnowledgeBase) -> None:
    [best] = kb.match(API_LINE)
    assert best.record["errorClass"] == "CreateosApiError"
    assert best.groups == ("502", "process creation")
    assert API_LINE[best.span[0]:best.span[1]] == "CreateOS request failed (HTTP 502) during process creation."


def test_ranking_prefers_more_literal_text_then_fewer_variables() -> None:
    records = [
        _record(3, "failed: (.+)", "failed: x"),
        _record(2, "upload failed: ([a-z]+)", "upload failed: x"),
        _record(1, "upload failed: ([a-z]+) ([0-9]+)", "upload failed: x 1"),
        _record(4, "upload failed: [a-z]+", "upload failed: x"),
    ]
    matches = Matcher(records).match("upload failed: disk 42")
    # r1: 16 literal characters; r2 and r4: 15 with one variable part each (id breaks the tie); r3: 8.
    assert [m.record["slug"] for m in matches] == ["r1", "r2", "r4", "r3"]
    assert [m.literal_chars for m in matches] == [16, 15, 15, 8]
    assert matches[0].groups == ("disk", "42")


def test_json_log_lines_match_their_message_field(kb: errdex.KnowledgeBase) -> None:
    line = json.dumps({"level": "error", "msg": SEED_MESSAGE.replace(";", ";")})
    assert kb.match(line)[0].record["id"] == "2715d7d48ff9726c"
    escaped = json.dumps({"error": 'CreateOS returned invalid JSON.', "detail": "\"quoted\""})
    assert kb.match(escaped)[0].record["slug"] == "createos-returned-invalid-json"
    custom = errdex.load(fields=["detail"])
    assert custom.match(json.dumps({"detail": SEED_MESSAGE}))[0].record["id"] == "2715d7d48ff9726c"


def test_hostile_pattern_is_never_run_by_a_backtracking_engine() -> None:
    # (a|aa)+b is exponential in backtracking engines; here it is skipped as non-portable
    # or scanned in linear time, never hanging.
    records = [_record(1, "x(a|aa)+b", "xab"), _record(2, "(.*?) foo (.*?) bar", "1 foo 2 bar")]
    matcher = Matcher(records)
    assert matcher.match("x" + "a" * 50_000 + "c") == []
    assert [m.record["id"] for m in matcher.match("a foo b bar")] in (["0000000000000002"],)


def test_non_portable_patterns_are_skipped_with_a_reason() -> None:
    matcher = Matcher([_record(1, "a(?=b)", "ab"), _record(2, "ok", "ok")])
    assert [r["id"] for r, _ in matcher.skipped] == ["0000000000000001"]
    assert [m.record["id"] for m in matcher.match("ok ab")] == ["0000000000000002"]


def test_match_lines_numbers_from_one(kb: errdex.KnowledgeBase) -> None:
    found = list(kb.match_lines(["nothing", API_LINE + "\n", "still nothing"], source="x.log"))
    assert [(f.source, f.number) for f in found] == [("x.log", 2)]


def test_hostile_input_lines(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    log = tmp_path / "hostile.log"
    with log.open("wb") as handle:
        handle.write(b"\xff\xfe " + API_LINE.encode() + b"\r\n")
        handle.write(b"\x00\x00 NUL " + SEED_MESSAGE.encode() + b"\n")
        handle.write(b"x" * (20 * 1024 * 1024) + b" " + SEED_MESSAGE.encode() + b"\n")
        handle.write(b"no newline at the end: " + SEED_MESSAGE.encode())
    summary = MatchSummary()
    found = list(match_files([log, tmp_path, tmp_path / "missing.log"], kb=kb, summary=summary, text=True))
    assert [f.number for f in found] == [1, 2, 3, 4]
    first = found[0]
    assert first.text.startswith("\ufffd\ufffd ")
    assert first.text[first.matches[0].span[0]:].startswith("CreateOS request failed")
    assert len(summary.problems) == 2 and "is a folder" in summary.problems[0]
    # not read as text, it is binary data (a NUL byte at its start), skipped as grep does
    summary = MatchSummary()
    assert list(match_files([log], kb=kb, summary=summary)) == []
    assert summary.problems == [f"{log}: binary data (a NUL byte in its first 32 KiB): skipped "
                                "(--text matches it as text)"]
    assert (summary.lines, summary.inputs, summary.unread) == (0, 1, 1)


def test_gzip_and_empty_files(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    packed = tmp_path / "app.log.gz"
    packed.write_bytes(gzip.compress((API_LINE + "\n").encode()))
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    assert [f.source for f in match_files([packed, empty], kb=kb)] == [str(packed)]
    assert list(read_lines(empty)) == []


def test_unreadable_file_is_a_problem(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    dangling = tmp_path / "gone.log"
    dangling.symlink_to(tmp_path / "rotated-away.log")
    summary = MatchSummary()
    assert list(match_files([dangling], kb=kb, summary=summary)) == []
    assert summary.problems == [f"{dangling}: cannot read: no such file or folder"]


def test_cli_text_jsonl_summary_and_fail_on(cli, tmp_path: Path) -> None:
    log = tmp_path / "w.log"
    log.write_text(f"ok\n{API_LINE}\nFATAL unknown thing broke\n")
    text = cli("match", "--each", str(log))
    assert text.exit_code == 0
    assert f"{log}:2:" in text.stdout and "captured: 502, process creation" in text.stdout
    assert "errdex explain createos-request-failed" in text.stdout
    lines = [json.loads(row) for row in cli("match", str(log), "--format", "jsonl").stdout.splitlines()]
    assert len(lines) == 1 and set(lines[0]) == {"file", "line", "text", "matches"}
    assert set(lines[0]["matches"][0]) == {"id", "slug", "repo", "errorClass", "severity", "score", "span", "groups"}
    summary = cli("match", str(log), "--format", "json").json()
    assert summary["unclassified"] == 1 and summary["records"][0]["count"] == 1
    assert cli("match", str(log), "--fail-on", "error", "-q").exit_code == 1
    assert cli("match", str(log), "--fail-on", "critical", "-q").exit_code == 0
    for fmt in ("jsonl", "json"):  # jsonl is written by its own path: it gates the same way
        assert cli("match", str(log), "--format", fmt, "--fail-on", "error", "-q").exit_code == 1
        assert cli("match", str(log), "--format", fmt, "--fail-on", "critical", "-q").exit_code == 0
    assert cli("match", "--each", "-", input=API_LINE + "\n").stdout.startswith("<stdin>:1:")
    missing = cli("match", "--each", str(tmp_path / "nope.log"), str(log))
    assert missing.exit_code == 1 and "nope.log: cannot read" in missing.stderr and f"{log}:2:" in missing.stdout


def test_explain_by_slug_id_and_line(cli) -> None:
    by_slug = cli("explain", "createos-process-creation-could-not-be-confirmed-destroy-the")
    by_id = cli("explain", "2715d7d48ff9726c")
    by_line = cli("explain", "worker: " + SEED_MESSAGE)
    assert by_slug.exit_code == 0 and by_slug.stdout == by_id.stdout == by_line.stdout
    assert "How to fix it" in by_slug.stdout and "Proof: not proved in this run" in by_slug.stdout
    nothing = cli("explain", "no such thing at all")
    assert nothing.exit_code == 1 and nothing.stderr.startswith("errdex: error: no record")


def test_follow_reads_lines_appended_later(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    """The follower asks ``stop`` once before each look at the file, so the writes are made from there: each one
    lands after the follower has read what came before it (no timers, no writer thread)."""
    log = tmp_path / "growing.log"
    log.write_text("starting\n")

    def append(text: str) -> None:
        with log.open("a") as handle:
            handle.write(text)

    steps = iter([lambda: None,  # the first look reads what was there before following began
                  lambda: append(API_LINE[:30]),  # half a line: held back until it ends
                  lambda: append(API_LINE[30:] + "\n")])

    def stop() -> bool:
        step = next(steps, None)
        if step is None:
            return True
        step()
        return False

    found = list(match_files([log], kb=kb, follow=True, stop=stop))
    assert [(f.number, f.text) for f in found] == [(2, API_LINE)]


def test_compiled_cache_gives_the_same_matches_and_survives_corruption(tmp_path: Path) -> None:
    records = [
        _record(1, "upload failed: ([a-z]+)", "upload failed: x"),
        _record(2, "a(?=b)", "ab"),
        _record(3, "disk ([0-9]+) full", "disk 1 full"),
    ]
    line = "upload failed: disk 42 full"
    fresh = Matcher(records)
    first = Matcher(records, cache_dir=tmp_path)
    cached = Matcher(records, cache_dir=tmp_path)
    assert fresh.match(line) == first.match(line) == cached.match(line) != []
    assert [r["id"] for r, _ in cached.skipped] == ["0000000000000002"]
    for path in tmp_path.iterdir():
        path.write_bytes(b"garbage")
    assert Matcher(records, cache_dir=tmp_path).match(line) == fresh.match(line)
    changed = [*records[:2], _record(3, "disk ([0-9]+) empty", "disk 1 empty")]
    assert [m.record["id"] for m in Matcher(changed, cache_dir=tmp_path).match(line)] == ["0000000000000001"]


@settings(max_examples=120, deadline=None)
@given(data=st.lists(st.sampled_from([b"a", b"\xc3\xa9", b"\xff", b"\r", b"\n", b"\r\n", b"xyz", b"\x00"]),
                     max_size=60),
       block=st.integers(min_value=1, max_value=9))
def test_batched_reading_gives_the_same_lines(tmp_path_factory: pytest.TempPathFactory, data: list[bytes],
                                              block: int) -> None:
    path = tmp_path_factory.mktemp("lines") / "x.log"
    path.write_bytes(b"".join(data))
    original = readers.BLOCK_BYTES
    readers.BLOCK_BYTES = block
    try:
        batched = [line for block in readers.read_blocks(path, text=True)
                   for line in block.decode("utf-8").split("\n")]
    finally:
        readers.BLOCK_BYTES = original
    assert batched == list(read_lines(path, text=True))


LINE_POOL = [
    API_LINE,
    "é ü " + API_LINE,
    json.dumps({"level": "error", "msg": SEED_MESSAGE}),
    "  " + json.dumps({"err": "CreateOS returned invalid JSON.", "x": "é"}),
    "{not json " + SEED_MESSAGE,
    '{"msg": "\\u0043reateOS returned invalid JSON."}',  # only the decoded field matches
    "FATAL unknown thing broke",
    "an error and a failure on one line",
    "connection REFUSED by peer; Timed Out; timeout",
    "errors, xfailed and preerror are not error words",
    "plain line",
    "",
]


@settings(max_examples=60, deadline=None)
@given(picks=st.lists(st.tuples(st.sampled_from(LINE_POOL), st.sampled_from([b"\n", b"\r\n", b"\r\r\n"])), max_size=30),
       block=st.sampled_from([7, 64, 1 << 20]))
def test_block_scanning_gives_what_matching_each_line_gives(
    tmp_path_factory: pytest.TempPathFactory, kb: errdex.KnowledgeBase, picks: list[tuple[str, bytes]], block: int
) -> None:
    path = tmp_path_factory.mktemp("mixed") / "x.log"
    path.write_bytes(b"".join(text.encode() + end for text, end in picks))
    original = readers.BLOCK_BYTES
    readers.BLOCK_BYTES = block
    try:
        summary = MatchSummary()
        fast = [(f.number, f.text, [(m.record["id"], m.span, m.groups) for m in f.matches])
                for f in match_files([path], kb=kb, summary=summary)]
    finally:
        readers.BLOCK_BYTES = original
    slow, unclassified = [], 0
    for number, text in enumerate(read_lines(path), start=1):
        matches = kb.match(text)
        if matches:
            slow.append((number, text, [(m.record["id"], m.span, m.groups) for m in matches]))
        elif ERROR_LOOKING.search(text.encode()):
            unclassified += 1
    assert fast == slow
    assert (summary.lines, summary.matched_lines, summary.unclassified) == (len(picks), len(slow), unclassified)


def _mixed_log(path: Path, lines: int) -> None:
    with path.open("wb") as handle:
        for i in range(lines):
            handle.write(LINE_POOL[i % len(LINE_POOL)].encode() + (b"\r\n" if i % 7 == 0 else b"\n"))
        handle.write(b"last line without a break: " + API_LINE.encode())


def _run(path: Path, kb: errdex.KnowledgeBase, jobs: int) -> tuple[list[Any], dict[str, Any]]:
    summary = MatchSummary()
    found = [(f.number, f.text, [(m.record["id"], m.span, m.groups) for m in f.matches])
             for f in match_files([path], kb=kb, summary=summary, jobs=jobs)]
    return found, summary.as_dict()


def test_several_processes_give_the_same_output_as_one(tmp_path: Path, kb: errdex.KnowledgeBase,
                                                       monkeypatch: pytest.MonkeyPatch, single_threaded: bool,
                                                       forks: list[int]) -> None:
    if not single_threaded:
        return

    scratch = tmp_path / "tmp"  # this test's own temporary folder: another run's leftovers cannot fail it
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    log = tmp_path / "big.log"
    _mixed_log(log, 3000)
    one = _run(log, kb, 1)
    monkeypatch.setattr(run, "MIN_PART_BYTES", 4096)
    monkeypatch.setattr(readers, "BLOCK_BYTES", 1000)
    assert len(readers.split_file(log, 4, min_part=4096) or []) == 4
    assert _run(log, kb, 4) == one
    assert len(forks) == 3
    assert one[1]["lines"] == 3001 and one[1]["unclassified"] > 0
    assert not list(scratch.glob("errdex-part-*"))


def test_a_failing_child_costs_only_time(tmp_path: Path, kb: errdex.KnowledgeBase, monkeypatch: pytest.MonkeyPatch,
                                         single_threaded: bool, forks: list[int]) -> None:
    if not single_threaded:
        return

    log = tmp_path / "big.log"
    _mixed_log(log, 2000)
    one = _run(log, kb, 1)
    monkeypatch.setattr(run, "MIN_PART_BYTES", 4096)

    def broken(*args: Any) -> None:
        raise RuntimeError("the child dies")

    monkeypatch.setattr(run, "_child_part", broken)
    assert _run(log, kb, 3) == one
    assert len(forks) == 2


def test_split_file_cuts_only_plain_files_at_line_breaks(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(b"".join(b"line %d\n" % i for i in range(1000)))
    ranges = split_file(log, 3, min_part=100)
    assert ranges is not None and ranges[0][0] == 0 and ranges[-1][1] == log.stat().st_size
    data = log.read_bytes()
    assert all(data[start - 1 : start] == b"\n" for start, _ in ranges[1:])
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    packed = tmp_path / "x.log.gz"
    packed.write_bytes(gzip.compress(data))
    assert split_file(packed, 3, min_part=100) is None
    assert split_file(log, 3, min_part=10**9) is None
    assert split_file("-", 3, min_part=1) is None
    assert split_file(tmp_path / "one-line.log", 3, min_part=1) is None  # missing
    first, second = split_file(log, 2, min_part=100, first_share=0.3) or []
    assert abs(first[1] / second[1] - 0.3) < 0.01 and first[1] == second[0]


def test_records_being_written_are_matched_with_a_warning(tmp_path: Path, cli) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "draft.json").write_text(json.dumps({"record": {
        "id": "00000000000000ab", "messagePattern": "disk ([0-9]+) is full", "errorMessage": "disk 3 is full"}}))
    result = cli("match", "-", "--records", str(folder), "--format", "jsonl", input="ERROR disk 42 is full\n")
    assert result.exit_code == 0
    found = json.loads(result.stdout)["matches"][0]
    assert (found["id"], found["slug"], found["groups"]) == ("00000000000000ab", "disk-3-is-full", ["42"])
    assert result.stderr.startswith("errdex: warning: 1 record does not conform to its format and is matched anyway")
    text = cli("match", "-", "--records", str(folder), input="ERROR disk 42 is full\n")
    assert "fix: (no solution recorded yet)" in text.stdout and text.exit_code == 0
    (folder / "broken.json").write_text(json.dumps({"record": {"id": 7, "messagePattern": "x"}}))
    refused = cli("match", "-", "--records", str(folder), input="x\n")
    assert refused.exit_code == 1 and "broken.json:1:1" in refused.stderr  # no id string: not even matchable
    assert cli("validate", str(folder)).exit_code == 1  # validation stays strict


@pytest.mark.parametrize("fields", [{"documentation": ["a list"]}, {"documentation": 7},
                                    {"solutions": {"a": 1}}, {"solutions": True}, {"solutions": [1, 2]}])
def test_a_record_being_written_with_fields_of_the_wrong_type_is_matched_not_a_crash(tmp_path: Path, cli,
                                                                                      fields: dict[str, Any]) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "draft.json").write_text(json.dumps({"record": {
        "id": "00000000000000ab", "messagePattern": "disk ([0-9]+) is full", "errorMessage": "disk 3 is full",
        **fields}}))
    text = cli("match", "-", "--each", "--records", str(folder), input="ERROR disk 42 is full\n")
    assert text.exit_code == 0, text.stderr  # was an internal error (exit 70) while printing the match
    assert "ERROR disk 42 is full" in text.stdout
    grouped = cli("match", "-", "--records", str(folder), input="ERROR disk 42 is full\n")
    assert grouped.exit_code == 0, grouped.stderr
    assert grouped.stdout.startswith("disk 42 is full\n")


def test_a_pattern_an_engine_refuses_does_not_stop_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [_record(1, "([0-9]+) zz", "1 zz"), _record(2, "([0-9]+) yy", "2 yy"),
               _record(3, "disk ([0-9]+) is full", "disk 1 is full")]
    compile_ = plan.compile_databases

    def refuses_zz(keys: list[bytes], expressions: list[bytes]) -> Any:
        if any(b"zz" in e for e in expressions):
            raise errdex.DataError("hyperscan cannot compile the patterns: simulated; run 'errdex validate'")
        return compile_(keys, expressions)

    monkeypatch.setattr(plan, "compile_databases", refuses_zz)
    matcher = Matcher(records)
    assert [(r["id"], reason) for r, reason in matcher.skipped] == [
        ("0000000000000001", "hyperscan cannot compile the patterns: simulated")]
    assert [m.view["id"] for m in matcher.match("5 yy and 7 zz")] == ["0000000000000002"]
    monkeypatch.setattr(plan, "compile_databases", compile_)
    broken = Matcher(records)
    index = next(i for i, r in enumerate(broken.records) if r["id"] == "0000000000000003")
    broken._re2_sources[index] = "(unclosed"  # RE2 refuses it at the first hit
    assert [m.view["id"] for m in broken.match("disk 9 is full; 5 yy")] == ["0000000000000002"]
    assert broken.skipped[-1][1].startswith("RE2 cannot compile the pattern")


def test_cli_warns_about_records_it_cannot_match(tmp_path: Path, cli) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "r.json").write_text(json.dumps({"record": {"id": "00000000000000ab", "messagePattern": "a(?=b)",
                                                           "errorMessage": "ab"}}))
    result = cli("match", "-", "--records", str(folder), input="ab\n")
    assert result.exit_code == 0
    expected = ("errdex: warning: 1 record is not matched: its pattern cannot run in every engine "
                "(first: 00000000000000ab:")
    assert expected in result.stderr
    assert "warning" not in cli("match", "-", "--records", str(folder), "-q", input="ab\n").stderr


def test_text_output_points_at_the_site_page_only_when_there_is_one(cli, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "w.log"
    log.write_text(API_LINE + "\n")
    page = "records/paperclipai/paperclip/createos-request-failed-http-404-during-sandbox-lifecycle.html"
    monkeypatch.delenv("ERRDEX_SITE_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no build/site here: no link
    for layout in ([], ["--each"]):
        assert "build/site" not in cli("match", *layout, str(log)).stdout
    (tmp_path / "build" / "site" / page).parent.mkdir(parents=True)
    (tmp_path / "build" / "site" / page).write_text("<html></html>")
    for layout in ([], ["--each"]):  # the default site folder, found
        assert f"· build/site/{page}" in cli("match", *layout, str(log)).stdout
    other = tmp_path / "elsewhere"
    assert f"· {other}/" not in cli("match", "--site", str(other), str(log)).stdout
    monkeypatch.setenv("ERRDEX_SITE_URL", "https://errors.example.org/docs")
    assert f"· https://errors.example.org/docs/{page}" in cli("match", str(log)).stdout
    given = cli("match", "--site-url", "https://x.example/", str(log)).stdout
    assert f"· https://x.example/{page}" in given


def test_a_pattern_that_can_match_empty_matches_every_line_in_cli_and_sql(tmp_path: Path) -> None:
    """A template such as ``<*>`` (``(.*?)``) occurs in every line: the CLI and SQL both match it, ranked last."""
    records = [_record(1, "(.*?)", "anything"), _record(2, "disk ([0-9]+) full", "disk 1 full")]
    kb = errdex.KnowledgeBase(records)
    assert [(m.view["id"][-1], m.groups) for m in kb.match("disk 4 full")] == [("2", ("4",)), ("1", ("",))]
    assert [(m.view["id"][-1], m.groups) for m in kb.match("hello")] == [("1", ("",))]
    log = tmp_path / "x.log"
    log.write_text("hello\ndisk 5 full\n\n")
    found = [(f.number, [m.view["id"][-1] for m in f.matches]) for f in match_files([log], kb=kb)]
    assert found == [(1, ["1"]), (2, ["2", "1"]), (3, ["1"])]
    folder = tmp_path / "records"
    folder.mkdir()
    base = json.loads((Path(__file__).resolve().parents[2] / "records/paperclipai/paperclip/"
                       "createos-returned-invalid-json.json").read_text())
    for record in records:
        full = {**base["record"], **{k: record[k] for k in ("id", "slug", "messagePattern", "errorMessage")}}
        (folder / f"{record['slug']}.json").write_text(json.dumps({**base, "record": full}))
    db = build_index([folder], db=tmp_path / "i.duckdb").path
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT record_id, groups FROM errdex_match($1) ORDER BY rank", ["disk 4 full"]).fetchall()
    assert [(r[-1], g) for r, g in rows] == [("2", ["4"]), ("1", [""])]


def test_a_refused_expression_is_remembered_and_oversized_patterns_are_never_compiled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        _record(1, "x.{100}y", "x" + "a" * 100 + "y"),  # no literal key: hyperscan compiles it, and refuses it
        _record(2, "a.{0,1000}x.{0,1000}y\\.", "axy."),  # over EDX125's bound: no engine may even try
        _record(3, "CreateOS returned invalid JSON\\.", "CreateOS returned invalid JSON."),
    ]
    first = Matcher(records, cache_dir=tmp_path)
    reasons = {record["id"]: why for record, why in first.skipped}
    assert "hyperscan" in reasons[f"{1:016x}"]
    assert "expand to more than" in reasons[f"{2:016x}"]
    assert [m.view["id"] for m in first.match("CreateOS returned invalid JSON.")] == [f"{3:016x}"]

    def no_second_plan(self: Matcher, records: Any) -> None:
        raise AssertionError("the plan was made again instead of loaded from the cache")

    monkeypatch.setattr(Matcher, "_plan", no_second_plan)
    second = Matcher(records, cache_dir=tmp_path)
    assert {record["id"] for record, _ in second.skipped} == {f"{1:016x}", f"{2:016x}"}
    assert [m.view["id"] for m in second.match("CreateOS returned invalid JSON.")] == [f"{3:016x}"]


def test_memory_stays_bounded_when_every_line_matches_many_records(monkeypatch: pytest.MonkeyPatch) -> None:
    # 10,000 records that each matched every line of a 20,000-line log took 14 GB: every candidate and every
    # match of a block was held until the whole block was done.
    import tracemalloc

    monkeypatch.setattr(engine, "MAX_CANDIDATES", 2_000)
    kb = errdex.KnowledgeBase([_record(i, r"request (\d+) failed", "request 1 failed") for i in range(60)])
    block = "\n".join(f"request {i} failed" for i in range(2_000)).encode()
    tracemalloc.start()
    try:
        lines = matches = more = 0
        for number, text, found in kb.match_block(block):
            assert text == f"request {number} failed" and found[0].groups == (str(number),)
            lines, matches, more = lines + 1, matches + len(found), more + rest_of(found)[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (lines, matches, more) == (2_000, 2_000 * engine.MAX_LINE_MATCHES, 2_000 * (60 - engine.MAX_LINE_MATCHES))
    assert peak < 8 << 20, f"{peak >> 20} MiB held"


def test_a_block_scanned_in_parts_matches_like_each_line_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [_record(1, r"disk (\d+) full", "disk 1 full"), _record(2, r"(\w+) failed", "x failed"),
               _record(3, "x?", "x"), _record(4, r"request (\d+)", "request 1"), _record(5, "^start", "start")]
    texts = ["disk 7 full", "", "start: request 3 failed", '{"message": "disk 2 full"}', "nothing", "x failed",
             '  {"msg": "request 9"} disk 1 full', "start"] * 7
    block = "\n".join(texts).encode()
    kb = errdex.KnowledgeBase(records)
    alone = [(n, t, [(m.view["id"], m.span, m.groups) for m in kb.match(t)]) for n, t in enumerate(texts)]
    alone = [entry for entry in alone if entry[2]]
    for budget in (0, 1, 3, 10, 1_000_000):
        monkeypatch.setattr(engine, "MAX_CANDIDATES", budget)
        got = [(n, t, [(m.view["id"], m.span, m.groups) for m in found]) for n, t, found in kb.match_block(block)]
        assert got == alone, budget


def test_a_json_line_led_by_blanks_is_read_alike_alone_and_in_a_block(kb: errdex.KnowledgeBase) -> None:
    # A JSON line after a lone carriage return matched on its fields as one line but not inside a file.
    texts = ['\r{"msg": "\\u0043reateOS returned invalid JSON."}',
             ' \t\r {"msg": "\\u0043reateOS returned invalid JSON."}',
             '\x0c{"msg": "\\u0043reateOS returned invalid JSON."}']
    alone = [(n, t, [m.view["id"] for m in kb.match(t)]) for n, t in enumerate(texts)]
    in_block = [(n, t, [m.view["id"] for m in found]) for n, t, found in kb.match_block("\n".join(texts).encode())]
    assert in_block == [entry for entry in alone if entry[2]]
    assert [n for n, _, _ in in_block] == [0, 1]  # form feed is not a JSON blank: that line is text only


def test_a_blank_field_name_and_an_endless_explain_argument_are_usage_errors(cli) -> None:
    blank = cli("match", "--field", " ", "-", input="x\n")
    assert blank.exit_code == 2 and "names no JSON field" in blank.stderr
    huge = cli("explain", "x" * (2 << 20))
    assert huge.exit_code == 2 and huge.stderr.count("\n") == 1 and len(huge.stderr) < 300
    unknown = cli("explain", "y" * 5000)
    assert unknown.exit_code == 1 and len(unknown.stderr) < 400  # the line is shown cut, not repeated whole
def test_api_takes_bytes_and_whole_texts_and_refuses_other_types_plainly(kb: errdex.KnowledgeBase) -> None:
    text = kb.match(API_LINE)
    assert [m.view["id"] for m in kb.match(API_LINE.encode())] == [m.view["id"] for m in text]
    assert kb.match(b"\xff\xfe " + API_LINE.encode())[0].groups == text[0].groups  # invalid UTF-8 replaced
    # a whole text is split into lines, not read one character at a time (that matched nothing)
    assert [line.number for line in kb.match_lines("start\n" + API_LINE + "\nend\n")] == [2]
    assert [line.number for line in kb.match_lines([b"start\n", API_LINE.encode() + b"\r\n"])] == [2]
    for bad in (None, 502, ["a"]):
        with pytest.raises(TypeError, match="a log line must be str or bytes, not"):
            kb.match(bad)  # type: ignore[arg-type]  # the wrong type is the test
    with pytest.raises(TypeError, match="a log line must be str or bytes, not NoneType"):
        list(kb.match_lines([API_LINE, None]))  # type: ignore[list-item]  # the wrong type is the test
def test_explain_a_slug_two_repositories_hold_names_both_instead_of_picking_one(cli, tmp_path, seed) -> None:
    """A slug is unique only within its repository: explain by a slug that two records hold is refused with
    both, and OWNER/REPO/SLUG names one."""
    other = json.loads(json.dumps(seed))
    other["record"].update(id="0123456789abcdef", repo="acme/api")
    bundle = tmp_path / "both.jsonl"
    bundle.write_text("".join(canonical_text(e, bundle_line=True) + "\n" for e in (seed, other)))
    slug = seed["record"]["slug"]
    result = cli("explain", "--records", str(bundle), slug)
    assert result.exit_code == 1
    assert "acme/api" in result.stderr and seed["record"]["repo"] in result.stderr, result.stderr
    named = cli("explain", "--records", str(bundle), "--format", "json", f"acme/api/{slug}")
    assert named.exit_code == 0 and named.json()["id"] == "0123456789abcdef"
