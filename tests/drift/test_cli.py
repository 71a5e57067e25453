"""``errdex drift``: exit codes and the three formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.drift.test_relocate import moved_repo  # noqa: F401  # the fixture, shared with the relocation tests

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "errdex", "drift", *args], capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": f"{ROOT / 'toolkit'}:{ROOT}", "PATH": "/usr/bin:/bin"})


def test_clean_exits_0_and_drifted_exits_1(moved_repo: tuple[Path, Path, str, str]) -> None:  # noqa: F811
    root, bundle, old, new = moved_repo
    clean = _run("--source", str(root), "--rev", old, "--records", str(bundle))
    assert clean.returncode == 0, clean.stderr
    assert clean.stdout.splitlines() == ["unchanged 5  moved 0  reworded 0  vanished 0  new 0"]
    drifted = _run("--source", str(root), "--rev", new, "--records", str(bundle))
    assert drifted.returncode == 1, drifted.stderr
    lines = drifted.stdout.splitlines()
    assert lines[0] == "unchanged 1  moved 2  reworded 1  vanished 1  new 1"
    assert any(line.startswith("moved ") and "util.py:3 -> helpers.py:4" in line for line in lines)
    assert any(line.startswith("reworded ") and '"save failed for the record" -> "saving failed for this record"'
               in line for line in lines)
    assert lines[-1] == 'new       core.py:15  "a brand new failure to report"'


def test_json_and_github(moved_repo: tuple[Path, Path, str, str]) -> None:  # noqa: F811
    root, bundle, _, new = moved_repo
    out = _run("--source", str(root), "--rev", new, "--records", str(bundle), "--format", "json")
    report = json.loads(out.stdout)
    assert list(report) == ["repo", "rev", "sha", "analyzedAt", "clean", "counts", "drifted", "newSites",
                            "unparsedFiles"]
    assert report["counts"] == {"unchanged": 1, "moved": 2, "reworded": 1, "vanished": 1, "new": 1}
    github = _run("--source", str(root), "--rev", new, "--records", str(bundle), "--format", "github")
    assert github.returncode == 1
    assert all(line.startswith("::warning file=") for line in github.stdout.splitlines())
    assert "::warning file=helpers.py,line=4::errdex record" in github.stdout


def test_usage_errors_exit_2_in_one_line(tmp_path: Path) -> None:
    missing = _run("--source", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    (tmp_path / "plain").mkdir()
    no_repo = _run("--source", str(tmp_path / "plain"), "--sha", "a" * 40, "--records", str(tmp_path))
    assert no_repo.returncode == 2 and "--repo" in no_repo.stderr and no_repo.stderr.count("\n") == 1
    bad_format = _run("--source", str(tmp_path), "--format", "xml")
    assert bad_format.returncode == 2
