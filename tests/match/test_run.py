"""Matching whole files: the cost on long lines, and output that is the same for every --jobs and block size."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import errdex
from errdex.match import readers, run
from errdex.match.knowledge import LineMatch
from errdex.match.run import MatchSummary, match_files, match_files_jsonl
from errdex.records.vocabulary import SEVERITY_RANK
from tests.processes import growth

SEED_MESSAGE = "CreateOS process creation could not be confirmed; destroy the lease before reusing it."
API_LINE = "2026-11-30T10:00:01Z worker[7] ERROR CreateOS request failed (HTTP 502) during process creation."


@pytest.fixture(scope="module")
def kb() -> errdex.KnowledgeBase:
    return errdex.load()


@contextlib.contextmanager
def _limits(**values: int) -> Iterator[None]:
    """Set reader and runner constants for a block (hypothesis examples cannot use ``monkeypatch``)."""
    saved = {name: getattr(readers if hasattr(readers, name) else run, name) for name in values}
    try:
        for name, value in values.items():
            setattr(readers if hasattr(readers, name) else run, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(readers if hasattr(readers, name) else run, name, value)


class _CountingBytes(bytes):
    """A block that counts the bytes its searches look at."""

    searched = 0

    def rfind(self, sub: Any, start: Any = None, end: Any = None) -> int:  # type: ignore[override]  # any arguments, as bytes takes them
        _CountingBytes.searched += (len(self) if end is None else end) - (start or 0)
        return super().rfind(sub, start, end)

    def find(self, sub: Any, start: Any = None, end: Any = None) -> int:  # type: ignore[override]  # any arguments, as bytes takes them
        found = super().find(sub, start, end)
        _CountingBytes.searched += (len(self) if found < 0 else found) - (start or 0)
        return found


def test_finding_the_lines_of_hits_looks_at_each_byte_a_bounded_number_of_times(kb: errdex.KnowledgeBase) -> None:
    line = (f"ERROR {SEED_MESSAGE} ".encode()) * 20_000  # 1.9 MB, 40,000 hits on one line
    block = _CountingBytes(b"before\n" + line + b"\nafter " + SEED_MESSAGE.encode())
    _CountingBytes.searched = 0
    hits = kb.matcher._hits(block)
    assert sorted(hits) == [7, 8 + len(line)]
    assert _CountingBytes.searched <= 3 * len(block)
    _CountingBytes.searched = 0
    assert [number for number, _ in run._error_looking(block)] == [1]
    assert _CountingBytes.searched <= 3 * len(block)


def test_an_8_mib_line_of_a_repeated_message_matches_in_linear_time(cli, tmp_path: Path) -> None:
    log = tmp_path / "long.log"
    message = f"ERROR {SEED_MESSAGE} ".encode()
    results = []

    def match(mebibytes: int) -> None:
        log.write_bytes(b"first\n" + message * (mebibytes * 1024 * 1024 // len(message)) + b"\nlast\n")
        results.append(cli("match", str(log), "--format", "jsonl", "--jobs", "1"))

    ratio = growth(match, 2, tries=1)  # 2 MiB, then 8 MiB (13 s or more for 8 MiB when quadratic)
    assert ratio < 9, f"a 4x longer line took {ratio:.1f}x the time: about 4x when linear, 16x when quadratic"
    result = results[-1]
    assert result.exit_code == 0
    [found] = [json.loads(line) for line in result.stdout.splitlines()]
    assert found["line"] == 2 and found["matches"][0]["span"] == [6, 6 + len(SEED_MESSAGE)]


def test_a_cut_falling_in_a_line_longer_than_the_limit_still_lands_on_a_line_break(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    data = b"short\n" + b"y" * 5000 + b"\n" + b"".join(b"line %d\n" % i for i in range(100))
    log.write_bytes(data)
    with _limits(MAX_LINE_BYTES=1000):
        ranges = readers.split_file(log, 4, min_part=100)
    assert ranges is not None and ranges[-1][1] == len(data)
    assert all(data[start - 1 : start] == b"\n" for start, _ in ranges[1:])


def test_a_line_over_the_limit_is_cut_with_a_warning_naming_it(cli, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(f"{SEED_MESSAGE}\n{SEED_MESSAGE} {'z' * 3000} {API_LINE}\n{API_LINE}\n".encode())
    monkeypatch.setattr(readers, "MAX_LINE_BYTES", 1000)
    result = cli("match", str(log), "--format", "jsonl")
    found = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(f["line"], len(f["text"])) for f in found] == [(1, len(SEED_MESSAGE)), (2, 1000), (3, len(API_LINE))]
    assert [m["slug"] for m in found[1]["matches"]] == [found[0]["matches"][0]["slug"]]  # only the first 1000 bytes
    warning = f"errdex: warning: {log}:2: line longer than 1000 bytes: matched on its first 1000 bytes only"
    assert warning in result.stderr
    assert "warning" not in cli("match", str(log), "-q").stderr


LINE_POOL = [
    SEED_MESSAGE,
    API_LINE,
    "é ü " + API_LINE,
    json.dumps({"level": "error", "msg": SEED_MESSAGE}),
    '{"msg": "\\u0043reateOS returned invalid JSON."}',
    "FATAL unknown thing broke",
    "plain line",
    "",
    "x" * 700 + " " + API_LINE,  # longer than the small blocks
    API_LINE + " " + "y" * 2500,  # longer than the line limit: matched on its first part
    "z" * 2500 + " " + SEED_MESSAGE,  # the message is in the part skipped
    "\xff\xfe bad bytes " + SEED_MESSAGE,
    "sshd[24200]: Failed password for invalid user webmaster from 173.234.31.186 port 38926 ssh2",
    "sshd[5100]: error: maximum authentication attempts exceeded for root from 10.0.0.9 port 4 ssh2 [preauth]",
]
ENDS = [b"\n", b"\r\n", b"\r\r\n", b"\r"]
LIMIT = 2000


def _expected(data: bytes, kb: errdex.KnowledgeBase) -> tuple[list[Any], int, list[int]]:
    """What matching each line on its own gives: (number, text, matches), line count, cut lines."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    found, cuts = [], []
    for number, raw in enumerate(lines, start=1):
        if len(raw) > LIMIT:
            raw = raw[:LIMIT]
            cuts.append(number)
        text = raw.rstrip(b"\r").decode("utf-8", "replace")
        matches = kb.match(text)
        if matches:
            found.append((number, text, [(m.view["id"], m.span, m.groups) for m in matches]))
    return found, len(lines), cuts


def _matched(path: Path, kb: errdex.KnowledgeBase, jobs: int) -> tuple[list[Any], int, list[str]]:
    summary = MatchSummary()
    found = [(f.number, f.text, [(m.view["id"], m.span, m.groups) for m in f.matches])
             for f in match_files([path], kb=kb, summary=summary, jobs=jobs, text=True)]
    return found, summary.lines, summary.warnings


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.tuples(st.sampled_from([t.encode("latin-1") if t.startswith("\xff") else t.encode()
                                                  for t in LINE_POOL]), st.sampled_from(ENDS)),
                      min_size=1, max_size=40),
       last_break=st.booleans(), block=st.sampled_from([7, 64, 1000, 1 << 20]))
def test_output_is_the_same_for_every_jobs_and_block_size(tmp_path_factory: pytest.TempPathFactory,
                                                          kb: errdex.KnowledgeBase, single_threaded: bool,
                                                          picks: list[tuple[bytes, bytes]], last_break: bool,
                                                          block: int) -> None:
    if not single_threaded:
        return
    data = b"".join(text + end for text, end in picks)
    if not last_break:
        data = data.rstrip(b"\n")
    path = tmp_path_factory.mktemp("jobs") / "x.log"
    path.write_bytes(data)
    expected, count, cuts = _expected(data, kb)
    jsonl = "".join(kb.jsonl(LineMatch(str(path), number, text, kb.match(text))) + "\n"
                    for number, text, _ in expected)
    worst = max((SEVERITY_RANK[m.view["severity"]] for _, text, _ in expected for m in kb.match(text)), default=-1)
    with _limits(MAX_LINE_BYTES=LIMIT, BLOCK_BYTES=block, MIN_PART_BYTES=64):
        for jobs in (1, 2, 3):
            found, lines, warnings = _matched(path, kb, jobs)
            assert found == expected, jobs
            assert lines == count
            assert [int(w.split(":")[1]) for w in warnings] == cuts[: run.MAX_WARNINGS]
            for chunk in (run.CHILD_CHUNK_MATCHES, 1):  # 1: a block's lines written a match at a time
                summary = MatchSummary()
                with _limits(CHILD_CHUNK_MATCHES=chunk):
                    written = match_files_jsonl([path], kb=kb, summary=summary, jobs=jobs, text=True)
                    assert "".join(written) == jsonl, jobs
                assert (summary.lines, summary.matched_lines, summary.worst) == (count, len(expected), worst)
                assert [int(w.split(":")[1]) for w in summary.warnings] == cuts[: run.MAX_WARNINGS]


def test_a_line_longer_than_the_limit_across_a_cut_gives_the_same_numbers(
    tmp_path: Path, kb: errdex.KnowledgeBase, single_threaded: bool, forks: list[int],
) -> None:
    """The report: a cut inside a line over the limit numbered the lines after it wrongly with --jobs 2."""
    if not single_threaded:
        return
    log = tmp_path / "x.log"
    log.write_bytes(f"first {SEED_MESSAGE}\n".encode() + b"y" * 20_000
                    + f" {SEED_MESSAGE}\nthird {SEED_MESSAGE}\n".encode())
    with _limits(MAX_LINE_BYTES=4000, MIN_PART_BYTES=1000):
        one, two = _matched(log, kb, 1), _matched(log, kb, 2)
    assert len(forks) == 1
    assert [number for number, _, _ in one[0]] == [1, 3]
    assert two == one


def test_a_database_left_for_later_is_compiled_once_before_the_workers_fork(
        tmp_path: Path, single_threaded: bool, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Left for later (many keys), the keys' database is compiled here before the pieces are forked, not by
    each worker; the lines are the same as with one process."""
    if not single_threaded:
        return
    from errdex.match import engine, plan

    monkeypatch.setattr(plan, "LATER_KEYS", 1)
    compiled: list[int] = []
    real = engine.compile_keys
    monkeypatch.setattr(engine, "compile_keys", lambda keys: compiled.append(len(keys)) or real(keys))
    kb = errdex.load()
    assert kb.matcher._literal_db is None
    log = tmp_path / "x.log"
    log.write_bytes(f"first {SEED_MESSAGE}\nnoise\n".encode() * 400)
    with _limits(MIN_PART_BYTES=1000):
        two = "".join(match_files_jsonl([log], kb=kb, jobs=2))
    assert forks and compiled == [len(kb.matcher._key_bytes)] and kb.matcher._literal_db is not None
    one = "".join(match_files_jsonl([log], kb=errdex.load(), jobs=1))
    assert two == one and two.count("\n") == 400


def test_a_line_every_record_matches_is_written_alike_for_every_jobs(tmp_path: Path, single_threaded: bool) -> None:
    # Every output names what a capped line leaves out; the jsonl writer (in each worker) and LineMatch.as_dict
    # (json, the API) agree, and --jobs changes nothing.
    if not single_threaded:
        return
    from errdex.match.engine import MAX_LINE_MATCHES

    count = 300
    kb = errdex.KnowledgeBase([{"id": f"{i:016x}", "slug": f"tok-{i}", "repo": "a/b", "errorClass": "E",
                                "severity": "error", "messagePattern": f"tok{i} (.*)failed"} for i in range(count)])
    heavy = " ".join(f"tok{i}" for i in range(count)) + " failed"
    path = tmp_path / "x.log"
    path.write_text("".join(f"plain line {n}\n" + (heavy + "\n" if n % 7 == 0 else "") for n in range(200)))
    with _limits(MIN_PART_BYTES=64):
        outputs = {jobs: "".join(match_files_jsonl([path], kb=kb, jobs=jobs)) for jobs in (1, 2, 3)}
        summary = MatchSummary()
        lines = list(match_files([path], kb=kb, summary=summary, jobs=2))
    assert outputs[1] == outputs[2] == outputs[3]
    assert outputs[1] == "".join(kb.jsonl(line) + "\n" for line in lines)
    rows = [json.loads(row) for row in outputs[1].splitlines()]
    assert len(rows) == 29 and all(len(row["matches"]) == MAX_LINE_MATCHES for row in rows)
    assert all(row["moreMatches"] + row["unchecked"] == count - MAX_LINE_MATCHES for row in rows)
    assert [line.as_dict() for line in lines] == rows
    assert summary.capped == 29 and summary.as_dict()["cappedLines"] == 29
    assert summary.warnings == [f"{path}:2: more than {MAX_LINE_MATCHES} records match the line: the best "
                                f"{MAX_LINE_MATCHES} are listed, the others counted (as every such line's)"]


def test_a_file_truncated_while_it_is_read_says_so(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(f"{API_LINE}\n".encode() * 50_000)  # several blocks
    summary = MatchSummary()
    lines = match_files([path], kb=kb, summary=summary, jobs=1)
    assert next(lines).number == 1
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(100)
    rest = list(lines)
    assert len(rest) < 49_999 and summary.problems == []
    assert summary.warnings == [f"{path}: shrank from {size} to 100 bytes while it was read: the lines past the "
                                "cut were not matched"]
