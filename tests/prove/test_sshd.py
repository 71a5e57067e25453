"""prove dispatches sshd records to the real sshd and judges them by the lines it writes, with errdex's matcher."""

from __future__ import annotations

import copy
import os
import pwd
from pathlib import Path
from typing import Any

import pytest

from errdex.prove import prove, prove_scenario
from errdex.records.scenarios.sshd import is_family
from tests.conftest import write_envelope
from tests.executor.sshd.helpers import CLOSED_PREAUTH, FAILED_PASSWORD, FAMILY, INVALID_USER, need_sshd, sshd_envelope
from tests.prove.test_prove import RECORDS


def _write(tmp_path: Path, envelopes: list[dict[str, Any]]) -> list[Path]:
    return [write_envelope(tmp_path, copy.deepcopy(envelope)) for envelope in envelopes]


def _errdex_users() -> set[str]:
    return {entry.pw_name for entry in pwd.getpwall() if entry.pw_name.startswith("errdex-")}


def test_the_family_built_by_code_is_proved_against_the_real_sshd(tmp_path: Path) -> None:
    need_sshd()
    before = _errdex_users()
    report = prove(_write(tmp_path, FAMILY))
    assert report.passed, [(r.slug, s.id, s.failures) for r in report.records for s in r.scenarios]
    assert report.summary()["scenarios"] == 4
    invalid = next(r for r in report.records if r.slug == "invalid-user").scenarios[0]
    assert invalid.observed["outcome"] == "logged"
    assert invalid.observed["line"] == next(line for line in invalid.observed["lines"] if line.startswith("Invalid"))
    assert f"port {invalid.observed['port']}" in invalid.observed["line"]
    assert _errdex_users() - before == set(), "the test user is removed after the run"  # others may run too


def test_wrong_captures_fail_naming_what_was_captured(tmp_path: Path) -> None:
    need_sshd()
    envelope = copy.deepcopy(FAILED_PASSWORD)
    envelope["record"]["scenarios"][0]["expect"]["captures"] = ["$invalid", "$host", None]
    proof = prove(_write(tmp_path, [envelope])).records[0].scenarios[0]
    assert not proof.passed and proof.failures[0].startswith("captured [")


def test_a_record_that_the_matcher_does_not_rank_first_fails(tmp_path: Path) -> None:
    need_sshd()
    rival = sshd_envelope("a0000000000000ff", "rival", r"Invalid user ([^ ]+) from 127\.0\.0\.1 port ([0-9]+)", [
        {"id": "never-run", "summary": "Not run here.", "call": {"operation": "connect"},
         "expect": {"outcome": "not-logged"}}])
    report = prove(_write(tmp_path, [INVALID_USER, FAILED_PASSWORD, rival]), only=["invalid-user"])
    failures = report.records[0].scenarios[0].failures
    assert failures and "ranks rival (a0000000000000ff) first" in failures[0]


def test_a_line_of_a_not_logged_record_fails_the_scenario(tmp_path: Path) -> None:
    need_sshd()
    pattern = r"Connection closed by (.+) port ([0-9]+) \[preauth\]"
    closed_user = sshd_envelope("a000000000000004", "closed-by-user", pattern, [
        {"id": "never-run", "summary": "Not run here.", "call": {"operation": "connect"},
         "expect": {"outcome": "not-logged"}}])
    family = [INVALID_USER, FAILED_PASSWORD, closed_user]
    report = prove(_write(tmp_path, family), only=["invalid-user"])
    assert report.records[0].scenarios[0].passed, "no line of failed-password is written for an invalid user"
    envelope = copy.deepcopy(INVALID_USER)
    envelope["record"]["scenarios"][0]["expect"]["notLogged"] = ["a000000000000004"]
    proof = prove(_write(tmp_path, [envelope, FAILED_PASSWORD, closed_user]), only=["invalid-user"]).records[0]
    assert not proof.scenarios[0].passed and proof.scenarios[1].passed
    assert "of record a000000000000004 (notLogged)" in proof.scenarios[0].failures[0]


def test_a_not_logged_expectation_fails_when_the_line_is_written(tmp_path: Path) -> None:
    need_sshd()
    envelope = copy.deepcopy(CLOSED_PREAUTH)
    envelope["record"]["scenarios"][0]["expect"] = {"outcome": "not-logged"}
    proof = prove(_write(tmp_path, [envelope])).records[0].scenarios[0]
    assert not proof.passed and "must not" in proof.failures[0]


def test_a_scenario_outside_the_vocabulary_is_not_run(tmp_path: Path) -> None:
    envelope = copy.deepcopy(CLOSED_PREAUTH)
    envelope["record"]["scenarios"][0]["call"]["waitMs"] = 60_000
    proof = prove_scenario(envelope["record"], envelope["record"]["scenarios"][0])
    assert not proof.passed and proof.failures[0].startswith("not run: call/waitMs is 60000 ms")
    envelope["record"]["scenarios"][0]["call"] = {"operation": "connect", "close": "slam"}
    proof = prove_scenario(envelope["record"], envelope["record"]["scenarios"][0])
    assert proof.failures[0].startswith("invalid scenario: 'close' is one of close, reset")


def test_a_scenario_naming_a_file_for_sshd_to_read_is_not_run(tmp_path: Path) -> None:
    """sshd runs as root: a Banner path would have it read any file and send it to whoever connects."""
    envelope = copy.deepcopy(CLOSED_PREAUTH)
    secret = tmp_path / "secret"
    secret.write_text("hunter2\n")
    envelope["record"]["scenarios"][0]["server"] = {"config": {"Banner": str(secret)}}
    proof = prove_scenario(envelope["record"], envelope["record"]["scenarios"][0])
    assert not proof.passed and proof.failures == [
        "invalid scenario: 'Banner' may only be 'none': its value names a file that sshd, as root, would read and "
        "send to whoever connects (EDX203; run 'errdex validate')"]
    assert proof.observed == {}  # no sshd was started, no connection made


def test_without_root_the_sshd_records_fail_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    report = prove(_write(tmp_path, [CLOSED_PREAUTH]))
    assert not report.passed and report.records[0].problem is not None
    assert report.records[0].problem.startswith("not run: ")


def test_one_scenario_is_proved_in_a_session_of_its_own() -> None:
    need_sshd()
    record = FAILED_PASSWORD["record"]
    proof = prove_scenario(record, record["scenarios"][0], family=[e["record"] for e in FAMILY])
    assert proof.passed, proof.failures


def test_the_cli_proves_both_families(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    need_sshd()
    paths = _write(tmp_path, [CLOSED_PREAUTH])
    result = cli("prove", "--records", str(paths[0]))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.startswith("pass  connection-closed-preauth  (a000000000000003)\n  pass  silent-client")


def test_the_bundled_sshd_family_is_proved_in_one_run() -> None:
    family = [record for record in RECORDS if is_family(record)]
    if not family:
        pytest.skip("the bundled dataset has no sshd records yet")
    need_sshd()
    report = prove(only=[record["id"] for record in family])
    assert report.passed, [(r.slug, r.problem, [(s.id, s.failures) for s in r.scenarios if not s.passed])
                           for r in report.records if not r.passed]
    assert report.seconds < 60
