"""``errdex match``'s grouped output: one block per record, bounded memory, a closing summary, refused pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.cli.match import CONFLICTS
from errdex.match import grouping
from errdex.match.grouping import GroupedSummary, shape_of
from errdex.match.knowledge import KnowledgeBase
from errdex.match.run import match_files
from tests.conftest import ROOT
from tests.match.test_drafts import LINE, draft_envelope

BEFORE = Path(__file__).parent / "data" / "before"
WORKER = ROOT / "examples" / "worker.log"


def _record(index: int, pattern: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"{index:016x}", "slug": f"r{index}", "repo": "a/b", "errorClass": "DiskError",
            "severity": "error", "messagePattern": pattern, "errorMessage": message,
            "solutions": ["Free space on disk $1."], **extra}


DISK = _record(1, "disk ([0-9]+) is full after ([a-z]+)", "disk 3 is full after write")
SLOW = _record(2, "request took ([0-9]+) ms", "request took 900 ms", severity="warning", errorClass="Slow",
               solutions=[], exampleFix="raise the timeout\nmore")


def _group(tmp_path: Path, lines: list[str]) -> GroupedSummary:
    log = tmp_path / "x.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = GroupedSummary()
    list(match_files([log], kb=KnowledgeBase([DISK, SLOW]), summary=summary, jobs=1))
    return summary


def test_lines_are_grouped_per_record_with_counts_lines_times_and_varying_values(tmp_path: Path) -> None:
    lines = [f"2024-05-01 10:00:0{i} ERROR disk 7 is full after {'write' if i % 2 else 'read'}" for i in range(8)]
    lines += ["2024-05-01 09:59:00 request took 5 ms", "FATAL something else broke", "request took 7 ms"]
    summary = _group(tmp_path, lines)
    disk, slow = summary.groups[DISK["id"]], summary.groups[SLOW["id"]]
    assert (disk.count, slow.count) == (8, 2)
    assert [n for _, n in disk.where] == [1, 2, 3, 4, 5]  # the first LINE_NUMBERS only
    assert disk.first is not None and disk.last is not None
    assert (disk.first.text, disk.last.text, disk.unstamped) == ("2024-05-01 10:00:00", "2024-05-01 10:00:07", 0)
    assert slow.unstamped == 1 and slow.first is not None and slow.first.text == "2024-05-01 09:59:00"
    assert not disk.captures[0].varies and disk.captures[1].varies
    assert disk.constant_groups() == ("7", None)
    assert dict(disk.captures[1].values) == {"write": 4, "read": 4}
    assert summary.per_severity == {"error": 8, "warning": 2}
    assert summary.unclassified == 1 and summary.shapes.counts == {"FATAL something else broke": 1}


def test_memory_stays_bounded_for_a_huge_variety_of_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grouping, "MAX_DISTINCT", 10)
    monkeypatch.setattr(grouping, "MAX_SHAPES", 3)
    lines = [f"disk {i} is full after write" for i in range(500)]
    lines += [f"error number {'x' * (i % 7)} here" for i in range(100)]
    summary = _group(tmp_path, lines)
    disk = summary.groups[DISK["id"]]
    assert disk.count == 500 and len(disk.where) == grouping.LINE_NUMBERS
    assert len(disk.captures[0].values) == 10 and disk.captures[0].other == 490
    assert len(summary.shapes.counts) == 3 and sum(summary.shapes.counts.values()) + summary.shapes.other == 100


def test_shapes_mask_digits_hex_ids_addresses_and_the_timestamp() -> None:
    first = shape_of("Dec 10 06:55:46 LabSZ sshd[24200]: error for 173.234.31.186 id 0x1f blk_3886 deadbeef01")
    again = shape_of("Dec 11 07:00:00 LabSZ sshd[99]: error for 10.0.0.1 id 0xff blk_12 cafebabe99")
    assert first == again == "LabSZ sshd[<n>]: error for <ip> id <hex> <id> <hex>"
    assert shape_of("job 1b4e28ba-2fa1-11d2-883f-0016d3cca427 failed") == "job <id> failed"


def _every_mask(text: str) -> str:
    """shape_of as written first: every mask run over the line, in order."""
    import re

    shape = grouping.strip_stamp(text)[: grouping.MAX_SHAPE_CHARS * 2]
    for source, mask, _ in grouping._MASK_SOURCES:
        shape = re.sub(source, mask, shape)
    return shape.strip()[: grouping.MAX_SHAPE_CHARS]


#: Pieces that each mask matches, and near misses, for lines made of them.
_PIECES = ["1b4e28ba-2fa1-11d2-883f-0016d3cca427", "abcdefab-abcd-abcd-abcd-abcdefabcdef", "10.0.0.1", "1.2.3",
           "0x1f", "0xZ", "deadbeef01", "cafebabe", "blk_3886", "ec2-52-80", "x-1", "42", "\u0663", "a", "-", ".",
           "_", "<id>", "E9", "2026-11-30T10:00:00Z", "Dec 10 06:55:46"]


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="ab-0x1.9fE _\u0663:<>", max_size=60)
       | st.lists(st.sampled_from(_PIECES), max_size=8).flatmap(
           lambda pieces: st.lists(st.sampled_from(["", " ", "-", ".", "_", ":", "x", "[", "/"]),
                                   min_size=len(pieces), max_size=len(pieces))
           .map(lambda cuts: "".join(p + c for p, c in zip(pieces, cuts, strict=True)))))
def test_masks_run_on_the_runs_that_can_hold_them_give_every_shape_as_before(text: str) -> None:
    assert shape_of(text) == _every_mask(text)


def test_the_loghub_lines_get_the_shapes_every_mask_gives() -> None:
    from tests.loghub import loghub_dir, systems

    folder = loghub_dir()
    if folder is None:
        pytest.skip("Loghub samples not found")
    lines = [line for name in systems(folder)
             for line in (folder / name / f"{name}_2k.log").read_text(errors="replace").splitlines()]
    assert len(lines) >= 16_000
    assert [shape_of(line) for line in lines] == [_every_mask(line) for line in lines]


def test_shapes_and_samples_of_the_workers_pieces_are_those_of_one_process(
        tmp_path: Path, single_threaded: bool, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker sends the shapes of its piece's unclassified lines (and the first samples): the summaries of one
    process and of three are the same, more than MAX_UNCLASSIFIED_SAMPLES lines and MAX_SHAPES shapes included."""
    if not single_threaded:
        return
    from errdex.match import run

    monkeypatch.setattr(grouping, "MAX_SHAPES", 40)
    monkeypatch.setattr(run, "MIN_PART_BYTES", 2000)
    lines = [f"2024-05-01 10:00:00 ERROR disk {i} is full after write" if i % 5 == 0 else
             f"FATAL worker {i % 7} failed {'x' * (i % 61)} at 10.0.{i % 9}.1" if i % 2 else f"plain line {i}"
             for i in range(3000)]
    log = _log(tmp_path, lines)

    def summaries(jobs: int) -> tuple[Any, ...]:
        grouped, plain = GroupedSummary(), run.MatchSummary()
        list(match_files([log], kb=KnowledgeBase([DISK, SLOW]), summary=grouped, jobs=jobs))
        list(match_files([log], kb=KnowledgeBase([DISK, SLOW]), summary=plain, jobs=jobs))
        return (grouped.shapes, grouped.unclassified, grouped.unclassified_samples, plain.as_dict())

    one, three = summaries(1), summaries(3)
    assert forks and one == three
    shapes, count, samples, _ = one
    assert count == 1200 and len(samples) == run.MAX_UNCLASSIFIED_SAMPLES and samples[0]["line"] == 2
    assert len(shapes.counts) == 40 and shapes.other > 0


def _log(tmp_path: Path, lines: list[str]) -> Path:
    log = tmp_path / "app.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


@pytest.fixture
def records(tmp_path: Path) -> Path:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps({"schemaVersion": 2, "record": r}) + "\n" for r in (DISK, SLOW)))
    return path


def test_grouped_text_leads_with_message_severity_fix_count_and_when(cli, tmp_path: Path, records: Path) -> None:
    lines = [f"Dec 10 06:55:{40 + i} h disk 7 is full after {'write' if i % 3 else 'read'}" for i in range(9)]
    lines += ["request took 5 ms", "FATAL number 12 broke", "FATAL number 13 broke", "ERROR other 0x1f"]
    result = cli("match", "--records", str(records), str(_log(tmp_path, lines)))
    assert result.exit_code == 0, result.stderr
    blocks = result.stdout.split("\n\n")
    log = tmp_path / "app.log"
    assert blocks[0].splitlines() == [
        "disk 7 is full after read",  # as the first line wrote it, not the record's example "disk 3 ..."
        "  error · DiskError · 9 lines · Dec 10 06:55:40 to Dec 10 06:55:48",
        "  fix: Free space on disk 7.",  # the value every line shares, filled in
        f"  lines: {log}:1, 2, 3, 4, 5 and 4 more",
        "  $2 varies: write (6), read (3)",
        "  more: errdex explain r1",
    ]
    assert blocks[1].splitlines()[1:3] == ["  warning · Slow · 1 line · no timestamp in the line",
                                           "  fix: raise the timeout"]  # the example fix's headline
    assert blocks[2].splitlines() == [
        "13 line(s) read, 10 matched 2 records: 9 error, 1 warning",
        "3 error-looking line(s) matched no record; the most frequent shapes:",
        f"       2  FATAL number <n> broke  (first {log}:11)",
        f"       1  ERROR other <hex>  (first {log}:13)",
    ]
    assert "matched a record" not in result.stderr  # the closing summary replaces the per-line count line


def test_the_closing_summary_says_how_many_more_shapes(cli, tmp_path: Path, records: Path) -> None:
    lines = [f"ERROR kind{'x' * i} broke" for i in range(8)]
    result = cli("match", "--records", str(records), str(_log(tmp_path, lines)))
    assert result.stdout.splitlines()[0] == "8 line(s) read, 0 matched 0 records"
    assert result.stdout.splitlines()[-1] == "  and 3 more line(s) of 3 other shape(s)"


def test_summary_has_the_time_range_severity_fix_and_how_many_more(cli, tmp_path: Path, records: Path) -> None:
    lines = ["2024-05-01 10:00:00 disk 7 is full after write", "2024-05-01 11:00:00 disk 7 is full after read"]
    lines += [f"ERROR unknown {i}" for i in range(25)]
    result = cli("match", "--records", str(records), "--summary", str(_log(tmp_path, lines)))
    out = result.stdout.splitlines()
    assert out[1].startswith("       2  error    DiskError") and "2024-05-01 10:00:00 to 2024-05-01 11:00:00" in out[1]
    assert out[2] == "          fix: Free space on disk 7."
    assert out[-1] == "  and 5 more"


def test_a_draft_group_says_it_is_not_documented_yet(cli, tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "d.json").write_text(json.dumps(draft_envelope()))
    result = cli("match", "-", "--records", str(folder), input=LINE + "\n")
    assert result.exit_code == 0, result.stderr
    assert "  not documented yet (a draft); what the code tells:" in result.stdout.splitlines()


@pytest.mark.parametrize(("first", "second", "why"), CONFLICTS)
def test_incompatible_pairs_are_refused_in_one_line(cli, first: str, second: str, why: str) -> None:
    args = [*first.split(), *second.split()]
    args = [a if a not in ("--site", "--site-url") else f"{a}=x" for a in args]
    result = cli("match", *args, str(WORKER))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"errdex: error: {first} and {second} cannot be used together: {why}\n"


def test_each_is_the_old_per_line_layout_and_jsonl_and_json_are_unchanged(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files in data/before/ are the command's output before grouping came, on the bundled dataset, run
    from the checkout's root (regenerate them from that commit if the dataset changes)."""
    monkeypatch.setenv("ERRDEX_SITE_URL", "https://errors.example.org/docs")  # the old layout always linked
    monkeypatch.chdir(ROOT)
    each = cli("match", "--each", "examples/worker.log")
    assert each.stdout == (BEFORE / "worker.text").read_text(encoding="utf-8")
    assert each.stderr == "6 of 22 line(s) matched a record\n"
    for fmt in ("jsonl", "json"):
        out = cli("match", "examples/worker.log", "--format", fmt).stdout.encode("utf-8")
        assert out == (BEFORE / f"worker.{fmt}").read_bytes(), fmt


def test_the_readme_lists_every_refused_pair() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for first, second, why in CONFLICTS:
        assert f"| `{first}` | `{second}` | {why} |" in readme


def test_grouped_text_is_bounded_for_huge_fields_and_values(cli, tmp_path: Path) -> None:
    huge = {**DISK, "errorMessage": "M" * 1_000_000, "solutions": ["Retry $1 " + "S" * 1_000_000]}
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps({"schemaVersion": 2, "record": huge}) + "\n")
    lines = [f"disk {'9' * 2_000_000} is full after {'abc'[i] * 1_000_000}" for i in range(3)]
    result = cli("match", "-", "--records", str(path), input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout) < 5000 and max(len(row) for row in result.stdout.splitlines()) <= 1000
    assert "$2 varies: " in result.stdout and "..." in result.stdout
