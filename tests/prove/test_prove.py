"""Every recorded scenario is proved by the test suite, exactly as `errdex prove` runs it."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from errdex.executor.createos import CreateosClient, CreateosError, FakeCreateos
from errdex.executor.createos.bounds import MAX_SCENARIO_TOTAL_MS, SLACK_S, scenario_limit_s
from errdex.prove import prove, prove_scenario
from errdex.records.scenarios.sshd import is_family
from errdex.records.sources import iter_documents
from tests.conftest import write_envelope
from tests.processes import wait_until

RECORDS = [
    doc.value["record"]
    for doc in iter_documents()
    if isinstance(doc.value, dict) and isinstance(doc.value.get("record"), dict)
]
#: The CreateOS records' scenarios, one test each (the sshd family is proved in one run: tests/prove/test_sshd.py).
CASES = [(record, scenario) for record in RECORDS if not is_family(record) for scenario in record.get("scenarios", [])]


def test_every_record_has_scenarios() -> None:
    assert RECORDS and all(record.get("scenarios") for record in RECORDS)


@pytest.mark.parametrize(
    ("record", "scenario"), CASES, ids=[f"{r['slug'][:40]}::{s['id']}" for r, s in CASES]
)
def test_recorded_scenario_is_proved(record: dict[str, Any], scenario: dict[str, Any]) -> None:
    proof = prove_scenario(record, scenario)
    assert proof.passed, (proof.failures, proof.observed)


def _seed_v3(seed: dict[str, Any]) -> dict[str, Any]:
    record = seed["record"]
    record["schemaVersion"] = 3
    record["scenarios"] = [
        {
            "id": "lost-answer",
            "summary": "The process is created but the answer to the POST never arrives.",
            "call": {"operation": "execute", "command": "echo", "args": ["hi"]},
            "server": {
                "programs": [{"output": [], "exit": None}],
                "faults": [{"on": "create-process", "action": "drop-after-handling"}],
            },
            "expect": {
                "outcome": "raises",
                "errorClass": "CreateosCleanupError",
                "ledger": {"processesRunning": 1, "requests.terminate": 0},
            },
        }
    ]
    return seed


def test_prove_reports_the_matrix(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = write_envelope(tmp_path, _seed_v3(seed))
    report = prove([path])
    assert report.passed
    data = report.as_dict()
    scenario = data["records"][0]["scenarios"][0]
    assert scenario["id"] == "lost-answer" and scenario["passed"] is True
    assert scenario["observed"]["errorClass"] == "CreateosCleanupError"
    assert scenario["ledger"]["processesRunning"] == 1
    assert data["summary"]["scenariosPassed"] == 1


def test_a_wrong_expectation_fails_with_reasons(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    envelope = _seed_v3(seed)
    envelope["record"]["scenarios"][0]["expect"]["errorClass"] = "CreateosApiError"
    envelope["record"]["scenarios"][0]["expect"]["ledger"] = {"processesRunning": 0}
    path = write_envelope(tmp_path, envelope)
    result = cli("prove", "--records", str(path), "--format", "json")
    assert result.exit_code == 1
    failures = result.json()["records"][0]["scenarios"][0]["failures"]
    assert any("expected CreateosApiError" in f for f in failures)
    assert any("ledger processesRunning is 1" in f for f in failures)


def test_a_record_without_scenarios_fails(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    path = write_envelope(tmp_path, seed)
    result = cli("prove", "--records", str(path))
    assert result.exit_code == 1 and "has no scenarios" in result.stdout


def test_a_pattern_that_does_not_match_the_raised_message_fails(seed: dict[str, Any]) -> None:
    envelope = _seed_v3(seed)
    record = copy.deepcopy(envelope["record"])
    record["messagePattern"] = "CreateOS process creation failed\\."
    proof = prove_scenario(record, record["scenarios"][0])
    assert not proof.passed and "does not match the raised message" in proof.failures[0]


def test_unknown_record_is_an_error(cli) -> None:
    result = cli("prove", "no-such-record")
    assert result.exit_code == 1 and "no record with id or slug" in result.stderr


def test_prove_json_shape(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    # one record with one scenario shows the keys; every recorded scenario is proved by the test above
    path = write_envelope(tmp_path, _seed_v3(seed))
    data = json.loads(cli("prove", "--records", str(path), "--format", "json").stdout)
    assert set(data) == {"records", "summary"}
    [record] = data["records"]
    assert {"id", "slug", "scenarios"} <= set(record)
    [scenario] = record["scenarios"]
    assert {"id", "passed", "observed", "failures", "ledger", "seconds"} <= set(scenario)


def _endless(seed: dict[str, Any]) -> dict[str, Any]:
    envelope = _seed_v3(seed)
    envelope["record"]["scenarios"][0].update({
        "call": {"operation": "get-sandbox", "clientTimeoutMs": 10**6},
        "server": {"faults": [{"on": "get-sandbox", "action": "stall", "ms": 10**12, "handle": True}]},
        "expect": {"outcome": "raises", "errorClass": "CreateosTimeoutError"},
    })
    return envelope


def _slow(seed: dict[str, Any]) -> dict[str, Any]:
    """A scenario within the bounds (EDX205) that still outlasts a short --timeout."""
    envelope = _endless(seed)
    scenario = envelope["record"]["scenarios"][0]
    scenario["call"]["clientTimeoutMs"] = 15_000
    scenario["server"]["faults"][0]["ms"] = 25_000
    return envelope


def test_an_endless_scenario_times_out_and_its_server_is_stopped(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    path = write_envelope(tmp_path, _slow(seed))
    before = {t.ident for t in threading.enumerate()}
    result = cli("prove", "--records", str(path), "--timeout", "0.5", "--format", "json")
    assert result.exit_code == 1
    # unfinished, not the client's own timeout (15 s) nor the stall's end (25 s): --timeout stopped the call
    scenario = result.json()["records"][0]["scenarios"][0]
    assert scenario["passed"] is False and scenario["observed"] == {"outcome": "unfinished"}
    assert scenario["failures"] == ["timed out after 0.5 s (the scenario's call did not finish; see --timeout)"]
    assert scenario["ledger"]["requests"]["get-sandbox"] == 1
    # the fake server and the cancelled call are gone, not left running
    wait_until(lambda: {t.ident for t in threading.enumerate()} <= before, timeout=3,
               what="the fake server's and the cancelled call's threads to end")


def test_the_default_time_limit_follows_the_scenario_and_is_bounded(seed: dict[str, Any]) -> None:
    endless = _endless(seed)["record"]["scenarios"][0]
    assert scenario_limit_s(endless) == MAX_SCENARIO_TOTAL_MS / 1000 + SLACK_S
    recorded = [scenario_limit_s(scenario) for _, scenario in CASES]
    assert max(recorded) < 20 and min(recorded) > SLACK_S


def test_a_stall_longer_than_the_clock_can_wait_still_answers_as_a_stall() -> None:
    with FakeCreateos(plan=[{"on": "get-sandbox", "action": "stall", "ms": 10**15}]) as server:
        client = CreateosClient(server.url, "key", timeout_ms=200, pace_ms=0, poll_interval_ms=20,
                                reconnect_delay_ms=20)
        with pytest.raises(CreateosError) as caught:
            client.get_sandbox("sbx-1")
    assert caught.value.error_class == "TimeoutError"  # the client gave up, as on a stall


@pytest.mark.parametrize(("place", "value"), [("stall", 10**12), ("timeoutMs", 10**17), ("cancelAfterMs", 10**17),
                                              ("clientTimeoutMs", 40_000)])
def test_a_scenario_beyond_the_bounds_is_not_run_but_fails_at_once(tmp_path: Path, seed: dict[str, Any], cli,
                                                                   place: str, value: int) -> None:
    envelope = _seed_v3(seed)
    scenario = envelope["record"]["scenarios"][0]
    if place == "stall":
        scenario["server"]["faults"] = [{"on": "create-process", "action": "stall", "ms": value}]
    else:
        scenario["call"][place] = value
    path = write_envelope(tmp_path, envelope)
    # --timeout only stops a regression from hanging: a scenario that ran would fail "timed out", not "not run"
    result = cli("prove", "--records", str(path), "--timeout", "2", "--format", "json")
    assert result.exit_code == 1
    (failure,) = result.json()["records"][0]["scenarios"][0]["failures"]
    assert failure.startswith("not run: ") and "(EDX205; run 'errdex validate')" in failure
    assert cli("validate", "--no-config", "--select", "EDX205", str(path)).exit_code == 1


def test_prove_refuses_a_timeout_that_is_not_a_positive_time(cli) -> None:
    result = cli("prove", "--timeout", "0")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1


def test_a_pattern_that_cannot_compile_is_a_record_problem_not_a_crash(tmp_path: Path, seed: dict[str, Any],
                                                                       cli) -> None:
    envelope = _seed_v3(seed)
    envelope["record"]["messagePattern"] = "CreateOS (process creation"
    path = write_envelope(tmp_path, envelope)
    result = cli("prove", "--records", str(path))
    assert result.exit_code == 1 and "internal error" not in result.stderr
    assert "messagePattern cannot be compiled (unterminated group" in result.stdout


def test_prove_refuses_what_every_command_refuses(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    envelope = _seed_v3(seed)
    envelope["record"]["httpStatus"] = 700
    path = write_envelope(tmp_path, envelope)
    result = cli("prove", "--records", str(path))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"errdex: error: {path}:") and "/record/httpStatus" in result.stderr


def test_many_scenarios_within_their_bounds_cannot_add_up_to_hours(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    """Each scenario within its own bound, but 100 of them: refused as a record problem at once, not run for hours."""
    envelope = _seed_v3(seed)
    stall = {"id": "stall", "summary": "The server holds the answer.",
             "call": {"operation": "get-sandbox", "clientTimeoutMs": 15_000},
             "server": {"faults": [{"on": "get-sandbox", "action": "stall", "ms": 29_000, "handle": True}]},
             "expect": {"outcome": "raises", "errorClass": "CreateosTimeoutError"}}
    envelope["record"]["scenarios"] = [dict(stall, id=f"stall-{n}") for n in range(100)]
    path = write_envelope(tmp_path, envelope)
    # --timeout only stops a regression from hanging: scenarios that ran would be listed, not []
    result = cli("prove", "--records", str(path), "--timeout", "1", "--format", "json")
    assert result.exit_code == 1
    proof = result.json()["records"][0]
    assert proof["scenarios"] == [] and "more than the 300000 ms one record's proof may take" in proof["problem"]


def test_text_output_escapes_what_a_record_puts_in_it(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    """A ledger fact name is record text: on a terminal its ESC and BEL could retitle and clear the screen."""
    envelope = _seed_v3(seed)
    envelope["record"]["scenarios"][0]["expect"]["ledger"] = {"requests.\x1b]0;pwned\x07\x1b[2J": 1}
    path = write_envelope(tmp_path, envelope)
    result = cli("prove", "--records", str(path))
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "ledger requests.\\x1b]0;pwned\\x07\\x1b[2J is None, expected 1" in result.stdout
