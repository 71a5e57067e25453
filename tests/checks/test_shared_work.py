"""New records checked on both cores give the findings one process gives, and a failed child only costs time."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from errdex import parallel
from errdex.checks import shared_work
from errdex.checks.config import ValidationConfig
from errdex.checks.runner import validate
from tests.benchmarks.generate import generate, write_dataset


def _dataset(folder: Path) -> Path:
    """120 generated records, some broken in the ways each kind of check finds."""
    envelopes = generate(120, seed=3)
    broken: list[dict[str, Any]] = []
    for n, envelope in enumerate(envelopes[:12]):
        record = copy.deepcopy(envelope["record"])
        kind = n % 6
        if kind == 0:
            record["id"] = record["id"].upper()  # EDX101
        elif kind == 1:
            record["messagePattern"] = "(?=x)" + record["messagePattern"]  # EDX121
        elif kind == 2:
            record["messagePattern"] = "(a+)+" + record["messagePattern"]  # EDX123, EDX124
        elif kind == 3:
            record["errorMessage"] += " and more"  # EDX124, EDX111
        elif kind == 4:
            record["id"] = envelopes[50]["record"]["id"]  # EDX102
        else:
            record["severity"] = "fatal"  # the schema (EDX010)
        broken.append({**envelope, "record": record})
    write_dataset(folder, broken + envelopes[12:])
    return folder


def _findings(folder: Path) -> list[dict[str, Any]]:
    return [finding.as_dict() for finding in validate([str(folder)], config=ValidationConfig()).findings]


def test_two_processes_find_what_one_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          single_threaded: bool, forks: list[int]) -> None:
    if not single_threaded:
        return
    folder = _dataset(tmp_path / "records")
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "one"))
    alone = _findings(folder)
    assert forks == []  # fewer records than shared_work.MIN_PARALLEL
    monkeypatch.setattr(shared_work, "MIN_PARALLEL", 10)
    monkeypatch.setattr(shared_work, "_TASK", 7)
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "two"))
    assert _findings(folder) == alone
    assert forks == [1]
    assert {"EDX010", "EDX101", "EDX102", "EDX111", "EDX121", "EDX123", "EDX124"} <= {f["code"] for f in alone}
    assert _findings(folder) == alone  # and warm, from what the child learnt


def test_a_child_that_fails_costs_only_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            single_threaded: bool) -> None:
    if not single_threaded:
        return
    folder = _dataset(tmp_path / "records")
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "one"))
    alone = _findings(folder)
    start_child = parallel.start_child

    def failing(work: Any) -> parallel.Child:
        def dies(out: Any) -> None:
            raise RuntimeError("the child fails before its first task")
        return start_child(dies)

    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    monkeypatch.setattr(parallel, "start_child", failing)
    monkeypatch.setattr(shared_work, "MIN_PARALLEL", 10)
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "two"))
    assert _findings(folder) == alone
