"""``errdex migrate``: output, exit codes, and the effect checked through the Python API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errdex.records.loader import load_records
from tests.conftest import write_envelope
from tests.records.test_migrate import SEED_V2, SEED_V3, SEED_V3_SCENARIOS, snapshot, variant


def _versions_on_disk(folder: Path) -> list[int]:
    return [json.loads(path.read_text(encoding="utf-8"))["record"]["schemaVersion"]
            for path in sorted(folder.rglob("*.json"))]


@pytest.fixture
def mixed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A version-2 record and a version-3 record with scenarios, in their canonical places."""
    return tmp_path, write_envelope(tmp_path, variant(SEED_V2, 1)), write_envelope(tmp_path, variant(SEED_V3, 2))


def test_up_prints_one_line_per_migrated_file_and_a_summary(cli, mixed: tuple[Path, Path, Path]) -> None:
    folder, old, _ = mixed
    result = cli("migrate", "--to", "3", str(folder))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"migrated {old}: v2 -> v3\n"
    assert result.stderr == "1 file(s) migrated to version 3, 1 already at version 3\n"
    assert [r.record["schemaVersion"] for r in load_records([folder])] == [3, 3]
    assert _versions_on_disk(folder) == [3, 3]
    again = cli("migrate", "--to", "3", str(folder))
    assert (again.exit_code, again.stdout) == (0, "")


def test_check_changes_nothing_and_exits_1_when_a_file_would_change(cli, mixed: tuple[Path, Path, Path]) -> None:
    folder, old, _ = mixed
    before = snapshot(folder)
    result = cli("migrate", "--to", "3", "--check", str(folder))
    assert result.exit_code == 1
    assert result.stdout == f"would migrate {old}: v2 -> v3\n"
    assert result.stderr == "1 file(s) would be migrated to version 3, 1 already at version 3\n"
    assert snapshot(folder) == before
    cli("migrate", "--to", "3", str(folder))
    assert cli("migrate", "--to", "3", "--check", str(folder)).exit_code == 0


def test_check_down_lists_what_would_be_lost(cli, mixed: tuple[Path, Path, Path]) -> None:
    folder, _, new = mixed
    result = cli("migrate", "--to", "2", "--check", str(folder))
    assert result.exit_code == 1
    assert f"would migrate {new}: v3 -> v2\n{new}: record 0000000000000002: would drop scenarios (" in result.stdout
    assert result.stderr.endswith("; 1 record(s) would lose data (needs --allow-loss)\n")


def test_down_with_loss_is_refused_listing_every_loss(cli, mixed: tuple[Path, Path, Path]) -> None:
    folder, _, new = mixed
    withdrawn = variant(SEED_V3, 3)
    withdrawn["record"].update(status="withdrawn", statusReason="Removed upstream.")
    third = write_envelope(folder, withdrawn)
    before = snapshot(folder)
    result = cli("migrate", "--to", "2", str(folder))
    assert result.exit_code == 1
    scenarios = f"{len(SEED_V3_SCENARIOS)} scenarios: {', '.join(SEED_V3_SCENARIOS)}"
    assert result.stdout.splitlines() == [
        f"{new}: record 0000000000000002: would drop scenarios ({scenarios})",
        f"{third}: record 0000000000000003: would drop scenarios ({scenarios})",
        f"{third}: record 0000000000000003: would drop status (withdrawn)",
        f'{third}: record 0000000000000003: would drop statusReason ("Removed upstream.")',
    ]
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(
        f"errdex: error: {new}: migrating to version 2 would drop data from record 0000000000000002: ")
    assert "1 more file(s) would lose data" in result.stderr and "pass --allow-loss" in result.stderr
    assert snapshot(folder) == before


def test_down_with_allow_loss_writes_and_reports_what_was_dropped(cli, mixed: tuple[Path, Path, Path]) -> None:
    folder, old, new = mixed
    cli("migrate", "--to", "3", str(folder))
    result = cli("migrate", "--to", "2", "--allow-loss", str(folder))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"migrated {old}: v3 -> v2",
        f"migrated {new}: v3 -> v2",
        f"{new}: record 0000000000000002: drops scenarios "
        f"({len(SEED_V3_SCENARIOS)} scenarios: {', '.join(SEED_V3_SCENARIOS)})",
    ]
    assert result.stderr == "2 file(s) migrated to version 2, 0 already at version 2; data dropped from 1 record(s)\n"
    assert _versions_on_disk(folder) == [2, 2]
    assert json.loads(old.read_text(encoding="utf-8")) == variant(SEED_V2, 1)  # up and down: the original


def test_lossless_down_needs_no_flag(cli, tmp_path: Path) -> None:
    path = write_envelope(tmp_path, variant(SEED_V2, 1))
    cli("migrate", "--to", "3", str(path))
    result = cli("migrate", "--to", "2", str(path))
    assert (result.exit_code, result.stdout) == (0, f"migrated {path}: v3 -> v2\n")


def test_quiet_prints_no_summary(cli, mixed: tuple[Path, Path, Path]) -> None:
    folder, old, _ = mixed
    result = cli("migrate", "--to", "3", "-q", str(folder))
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"migrated {old}: v2 -> v3\n", "")


def test_invalid_record_is_one_line_naming_its_place(cli, tmp_path: Path) -> None:
    broken = variant(SEED_V2, 1)
    broken["record"]["severity"] = "fatal"
    path = write_envelope(tmp_path, broken)
    result = cli("migrate", "--to", "3", str(tmp_path))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"errdex: error: {path}:") and "/record/severity" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args", [["--to", "7"], ["--to", "two"], [], ["--to", "3", "-"]])
def test_usage_errors_exit_2(cli, tmp_path: Path, args: list[str]) -> None:
    path = write_envelope(tmp_path, variant(SEED_V2, 1))
    before = path.read_bytes()
    result = cli("migrate", *args, *([] if "-" in args else [str(path)]))
    assert result.exit_code == 2
    assert result.stderr.startswith("errdex: error: ") and result.stderr.count("\n") == 1
    assert result.stdout == "" and path.read_bytes() == before


def test_help_has_an_example(cli) -> None:
    result = cli("migrate", "--help")
    assert result.exit_code == 0 and "Example:" in result.stdout and "--allow-loss" in result.stdout
