"""The example log is what the reference executor really produces, and the main job matches it."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_example_log_is_reproduced_by_its_script() -> None:
    produced = subprocess.run([sys.executable, str(ROOT / "examples" / "make_worker_log.py")],
                              capture_output=True, text=True, timeout=120, check=True).stdout
    assert produced == (ROOT / "examples" / "worker.log").read_text(encoding="utf-8")


def test_main_job_matches_the_example_log(cli) -> None:
    result = cli("match", str(ROOT / "examples" / "worker.log"), "--format", "json")
    assert result.exit_code == 0
    summary = result.json()
    assert summary["matchedLines"] == 6 and summary["unclassified"] == 1
    assert {r["slug"] for r in summary["records"]} >= {
        "createos-process-creation-could-not-be-confirmed-destroy-the",
        "createos-command-cleanup-failed-process-termination-is-uncon",
    }
