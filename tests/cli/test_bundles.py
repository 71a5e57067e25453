"""``errdex import`` and ``errdex export`` on the command line (the dataset is copied, never modified)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.bundles.test_bundles import (
    CHANGED_ID,
    CLASH_ID,
    NEW_ID,
    conflicting_bundle,
    copy_dataset,
    dataset_envelopes,
    errors_in,
    snapshot,
    write_bundle,
)

# Not a test of the cache: these validate or load the bundled records again and again, and share one cache of
# them for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")


@pytest.mark.parametrize("command", ["import", "export"])
def test_help_has_an_example(cli, command: str) -> None:
    result = cli(command, "--help")
    assert result.exit_code == 0 and "Example:" in result.stdout


def test_export_jsonl_twice_gives_the_same_bytes(cli, tmp_path: Path) -> None:
    for name in ("a.jsonl.gz", "b.jsonl.gz"):
        result = cli("export", "--to", "jsonl", "--output", str(tmp_path / name))
        assert result.exit_code == 0 and result.stdout == ""
        assert f"exported {len(dataset_envelopes())} record(s) to {tmp_path / name}" in result.stderr
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()


def test_export_parquet_of_chosen_records(cli, tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    target = tmp_path / "out.parquet"
    result = cli("export", "--to", "parquet", "--output", str(target), "--records", str(folder))
    assert result.exit_code == 0, result.stderr
    ids = [row[0] for row in duckdb.sql(f"SELECT id FROM '{target}' ORDER BY id").fetchall()]
    assert ids == sorted(dataset_envelopes())


def test_export_usage_errors_exit_2(cli, tmp_path: Path) -> None:
    assert cli("export", "--to", "xml", "--output", str(tmp_path / "x")).exit_code == 2
    result = cli("export", "--to", "jsonl", "--output", str(tmp_path))
    assert result.exit_code == 2 and "is a folder" in result.stderr and result.stderr.count("\n") == 1


def test_import_adds_records_and_reimport_changes_nothing(cli, tmp_path: Path) -> None:
    assert cli("export", "--to", "jsonl", "--output", str(tmp_path / "dump.jsonl")).exit_code == 0
    folder = tmp_path / "records"
    result = cli("import", str(tmp_path / "dump.jsonl"), "--records", str(folder))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(dataset_envelopes()) and all(line.startswith("added ") for line in lines)
    assert f"wrote {len(lines)} file(s)" in result.stderr
    assert errors_in(folder) == []
    before = snapshot(folder)
    again = cli("import", str(tmp_path / "dump.jsonl"), "--records", str(folder))
    assert again.exit_code == 0 and again.stdout == "" and f"{len(lines)} unchanged" in again.stderr
    assert snapshot(folder) == before


def test_conflicts_exit_1_and_leave_every_file_as_it_was(cli, tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    before = snapshot(folder)
    bundle = conflicting_bundle(tmp_path / "dump.jsonl")
    result = cli("import", str(bundle), "--records", str(folder))
    assert result.exit_code == 1
    changed, clash = result.stdout.splitlines()
    assert changed.startswith(f"conflict  {CHANGED_ID} ") and changed.endswith("changed: documentation")
    assert clash.startswith(f"conflict  {NEW_ID} ") and clash.endswith(f"slug taken by {CLASH_ID}")
    assert "2 conflict(s)" in result.stderr and "pass --overwrite" in result.stderr
    assert snapshot(folder) == before

    replaced = cli("import", str(bundle), "--records", str(folder), "--overwrite")
    assert replaced.exit_code == 0, replaced.stderr
    assert [line.split()[0] for line in replaced.stdout.splitlines()] == ["replaced", "replaced"]
    target = folder / "paperclipai" / "paperclip" / "createos-command-was-cancelled.json"
    assert json.loads(target.read_text())["record"]["documentation"].endswith(" Seen upstream too.")
    assert errors_in(folder) == []


def test_check_reports_and_writes_nothing(cli, tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    before = snapshot(folder)
    bundle = conflicting_bundle(tmp_path / "dump.jsonl")
    result = cli("import", str(bundle), "--records", str(folder), "--overwrite", "--check")
    assert result.exit_code == 0 and "--check: nothing written" in result.stderr
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [["would", "replace"]] * 2
    assert snapshot(folder) == before


def test_invalid_record_is_reported_and_not_imported(cli, tmp_path: Path) -> None:
    envelopes = dataset_envelopes()
    bad = envelopes[CLASH_ID]
    bad["record"]["id"] = "NOT-AN-ID"
    bundle = write_bundle(tmp_path / "dump.jsonl", [envelopes[CHANGED_ID], bad])
    folder = tmp_path / "records"
    result = cli("import", str(bundle), "--records", str(folder))
    assert result.exit_code == 1 and not folder.exists()
    invalid = [line for line in result.stdout.splitlines() if line.startswith("invalid")]
    assert len(invalid) == 1 and f"{bundle}:2:" in invalid[0] and "EDX" in invalid[0]
    assert "1 invalid" in result.stderr
    rest = cli("import", str(bundle), "--records", str(folder), "--overwrite")
    assert rest.exit_code == 1  # something was left out
    assert [p.name for p in folder.rglob("*.json")] == ["createos-command-was-cancelled.json"]


def test_a_line_that_is_not_json_is_one_error_line(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    bundle = write_bundle(tmp_path / "dump.jsonl", [seed], extra_lines=("{not json",))
    folder = copy_dataset(tmp_path / "records")
    before = snapshot(folder)
    result = cli("import", str(bundle), "--records", str(folder), "--overwrite")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"errdex: error: {bundle}:2:") and result.stderr.count("\n") == 1
    assert snapshot(folder) == before


def test_import_json_output(cli, tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    result = cli("import", str(conflicting_bundle(tmp_path / "dump.jsonl")), "--records", str(folder),
                 "--format", "json")
    assert result.exit_code == 1
    report = result.json()
    assert report["blocked"] and report["counts"] == {"added": 0, "unchanged": 0, "conflict": 2, "invalid": 0}
    assert [e["reasons"] for e in report["entries"]] == [["changed: documentation"], [f"slug taken by {CLASH_ID}"]]
    assert report["written"] == []
