"""Harvested records on a real Python codebase and its real logs: pip, the venv's own copy.

pip runs a fixed set of offline commands at ``-vvv`` (:mod:`tests.harvest.pylogs`) while a root handler
writes each record to a log and, to a truth file, the ``pathname:lineno`` Python's ``logging`` knows wrote it.
pip's folder is harvested with the default sinks and ``--log-levels all``, every line of the log that pip's
own code wrote is matched, and its top-1 record must name the statement that wrote it (or, for a wrapper
such as ``write_output(msg, *args)`` that logs its parameter, the statement that called the wrapper).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from errdex.harvest.run import harvest
from tests.harvest.pylogs import run_pip_workload
from tests.harvest.truth import Score, python_expected, score

ROOT = Path(__file__).resolve().parents[2]

#: What is measured today, rounded down (the issue's target: 98%); the README lists the misses and why.
PIP_FLOOR = 0.88


def _pip_folder() -> Path:
    """The venv's pip package; a skip with the reason when it is missing (a failure under CI=true)."""
    spec = importlib.util.find_spec("pip")
    if spec is None or spec.origin is None:
        reason = "pip is not installed in this interpreter: the real Python codebase to harvest is missing"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return Path(spec.origin).resolve().parent


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Score, int]:
    folder = _pip_folder()
    work = tmp_path_factory.mktemp("pip-workload")
    log, truth = run_pip_workload(work, python=sys.executable)
    records = work / "records"
    records.mkdir()
    harvest(folder, repo="pypa/pip", sha="0" * 40, out=records, log_levels="all")
    expected, others = python_expected(log, truth, folder)
    return score(records, expected), others


def test_pip_lines_trace_to_their_log_call(measured: tuple[Score, int]) -> None:
    result, _ = measured
    assert result.total >= 150, result.summary()
    assert result.rate >= PIP_FLOOR, result.summary(shown=40)
