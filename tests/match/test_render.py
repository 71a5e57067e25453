"""What ``match`` prints per line stays readable and bounded, whatever a record or a log line holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import write_envelope
from tests.processes import growth


def test_match_text_is_bounded_for_huge_fields_and_groups(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    record = seed["record"]
    record["messagePattern"] = "huge (\\w+) value (\\w+)"
    record["documentation"] = "D" * 1_000_000 + ". Second sentence."
    record["solutions"] = ["Retry $1 and $2 " + "S" * 1_000_000]
    folder = tmp_path / "records"
    write_envelope(folder, seed)
    line = "huge " + "a" * 2_000_000 + " value " + "b" * 2_000_000
    result = cli("match", "-", "--each", "--records", str(folder), input=line + "\n")
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout) < 4000  # was 6 MB for one line
    assert max(len(part) for part in result.stdout.splitlines()) <= 1000
    assert "fix: Retry aaaa" in result.stdout and "..." in result.stdout
    exact = json.loads(cli("match", "-", "--records", str(folder), "--format", "jsonl", input=line + "\n").stdout)
    assert exact["matches"][0]["groups"] == ["a" * 2_000_000, "b" * 2_000_000]  # data output stays exact


def test_match_text_shows_a_line_break_in_a_field_as_a_space(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    record = seed["record"]
    record["documentation"] = "Means\ntrouble. More."
    record["solutions"] = ["Fix\r\nit"]
    folder = tmp_path / "records"
    write_envelope(folder, seed)
    result = cli("match", "-", "--each", "--records", str(folder), input=record["errorMessage"] + "\n")
    assert result.exit_code == 0
    assert "): Means trouble.\n" in result.stdout and "  fix: Fix it\n" in result.stdout


def test_explain_wraps_long_blank_runs_in_linear_time(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    record = seed["record"]
    folder = tmp_path / "records"
    results = []

    def explain(blanks: int) -> None:
        record["documentation"] = "Starts" + "\t" * blanks + "here. Ends here."  # 200,000: 6 s, when quadratic
        record["commonSituations"] = "a  b" + " \n" * (blanks // 2) + "c"
        write_envelope(folder, seed)
        results.append(cli("explain", record["slug"], "--records", str(folder)))

    ratio = growth(explain, 50_000)
    assert ratio < 9, f"4x the blanks took {ratio:.1f}x the time: about 4x when linear, 16x when quadratic"
    result = results[-1]
    assert result.exit_code == 0
    assert "    Starts here.\n" in result.stdout and "    a b c\n" in result.stdout
