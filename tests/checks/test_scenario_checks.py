"""Version-3 checks: scenarios present, unique, in the executor's vocabulary, covering the prose."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errdex import validate
from tests.conftest import write_envelope

# Not a test of the cache: these validate the bundled records and small variants of them again and again, and
# share one cache (of their patterns' engine verdicts and parsed records) for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")


def v3(seed: dict[str, Any]) -> dict[str, Any]:
    record = seed["record"]
    record["schemaVersion"] = 3
    record["triggerScenarios"] = "The create answer is lost."
    record["commonSituations"] = "Connection dropped; answer lost."
    record["scenarios"] = [
        {
            "id": "lost-answer",
            "summary": "The process is created but the answer never arrives.",
            "covers": ["triggerScenarios:1", "commonSituations:1", "commonSituations:2"],
            "call": {"operation": "execute", "command": "echo"},
            "server": {"faults": [{"on": "create-process", "action": "drop-after-handling"}]},
            "expect": {"outcome": "raises", "errorClass": "CreateosCleanupError", "ledger": {"processesRunning": 1}},
        }
    ]
    return seed


def _second(mutate: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def apply(record: dict[str, Any]) -> None:
        extra = dict(record["scenarios"][0])
        record["scenarios"].append(extra)
        mutate(extra)

    return apply


def _fault(**rule: Any) -> Callable[[dict[str, Any]], None]:
    def apply(record: dict[str, Any]) -> None:
        record["scenarios"][0]["server"] = {"faults": [rule]}

    return apply


SCENARIO_DEFECTS: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    ("no-scenarios", lambda r: r.__setitem__("scenarios", []), "EDX201", "/record/scenarios"),
    ("duplicate-id", _second(lambda s: None), "EDX202", "/record/scenarios/1/id"),
    ("unknown-parameter", _fault(on="connect", action="respond", colour="red"), "EDX203",
     "/record/scenarios/0/server/faults/0"),
    ("stream-on-create", _fault(on="create-process", action="stream", frames=[]), "EDX203",
     "/record/scenarios/0/server/faults/0"),
    ("no-error-class", lambda r: r["scenarios"][0]["expect"].pop("errorClass"), "EDX203", "/record/scenarios/0/expect"),
    ("uncovered-clause", lambda r: r["scenarios"][0]["covers"].pop(), "EDX204", "/record/commonSituations"),
    ("clause-out-of-range", lambda r: r["scenarios"][0]["covers"].append("triggerScenarios:5"), "EDX204",
     "/record/scenarios/0/covers/3"),
    ("endless-stall", _fault(on="get-sandbox", action="stall", ms=10**12), "EDX205",
     "/record/scenarios/0/server/faults/0/ms"),
    ("endless-client-timeout", lambda r: r["scenarios"][0]["call"].__setitem__("clientTimeoutMs", 10**9), "EDX205",
     "/record/scenarios/0/call/clientTimeoutMs"),
    ("late-output", lambda r: r["scenarios"][0]["server"].__setitem__(
        "programs", [{"output": [{"stream": "stdout", "text": "x", "atMs": 10**7}]}]), "EDX205",
     "/record/scenarios/0/server/programs/0/output/0/atMs"),
    ("times-add-up", lambda r: r["scenarios"][0]["server"].__setitem__(
        "faults", [{"on": "get-sandbox", "action": "stall", "ms": 25_000, "nth": n} for n in (1, 2, 3)]), "EDX205",
     "/record/scenarios/0"),
    ("record-adds-up", lambda r: r.__setitem__("scenarios", [
        dict(r["scenarios"][0], id=f"stall-{n}",
             server={"faults": [{"on": "get-sandbox", "action": "stall", "ms": 29_000}]})
        for n in range(20)]), "EDX205", "/record/scenarios"),
]


def test_a_complete_v3_record_is_clean(tmp_path: Path, seed: dict[str, Any]) -> None:
    assert validate([write_envelope(tmp_path, v3(seed))], strict=True).findings == []


@pytest.mark.parametrize(("label", "mutate", "code", "pointer"), SCENARIO_DEFECTS, ids=[d[0] for d in SCENARIO_DEFECTS])
def test_scenario_defects(tmp_path: Path, seed: dict[str, Any], label: str,
                          mutate: Callable[[dict[str, Any]], None], code: str, pointer: str) -> None:
    envelope = v3(seed)
    mutate(envelope["record"])
    report = validate([write_envelope(tmp_path, envelope)], strict=True)
    assert (code, pointer) in {(f.code, f.pointer) for f in report.findings}
    assert not report.ok


def test_missing_scenarios_is_a_warning_unless_strict(tmp_path: Path, seed: dict[str, Any]) -> None:
    envelope = v3(seed)
    envelope["record"]["scenarios"] = []
    path = write_envelope(tmp_path, envelope)
    relaxed = validate([path], strict=False)
    assert [(f.code, f.severity) for f in relaxed.findings] == [("EDX201", "warning")] and relaxed.ok
    assert not validate([path], strict=True).ok
