"""The CreateOS scenario vocabulary: one home for calls, actions, sandbox states and bounds, validated as data."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, get_args

import pytest

import errdex.checks.scenario
import errdex.records.scenarios.createos as createos
from errdex.records.models import SCENARIO_ACTIONS, SCENARIO_CALLS, SCENARIO_OPERATIONS, ScenarioCall, ScenarioFault


def test_the_literal_types_and_the_tables_name_the_same_words() -> None:
    assert get_args(createos.Action) == tuple(createos.ACTIONS)
    assert get_args(createos.Call) == createos.CALLS
    assert all(only is None or only in createos.CALLS for _, only in createos.ACTIONS.values())


def test_the_models_use_the_vocabulary() -> None:
    assert (createos.CALLS, tuple(createos.ACTIONS), createos.OPERATIONS) == (
        SCENARIO_CALLS, SCENARIO_ACTIONS, SCENARIO_OPERATIONS)
    assert get_args(ScenarioFault.model_fields["on"].annotation) == createos.CALLS
    assert get_args(ScenarioCall.model_fields["operation"].annotation) == createos.OPERATIONS


def test_the_scenario_checks_import_nothing_from_the_executor() -> None:
    tree = ast.parse(Path(errdex.checks.scenario.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name and name.startswith("errdex.executor")}


def test_a_valid_rule_gets_its_defaults() -> None:
    spec = createos.fault_spec({"on": "connect", "action": "replay", "times": 2})
    assert (spec.on, spec.action, spec.nth, spec.times, spec.params) == ("connect", "replay", None, 2, {"overlap": 1})
    stream = createos.fault_spec({"on": "connect", "action": "stream", "frames": []})
    assert stream.params == {"frames": [], "then": "end"}


def test_a_rule_s_parameters_are_copied() -> None:
    frames: list[Any] = [{"raw": "x"}]
    spec = createos.fault_spec({"on": "connect", "action": "stream", "frames": frames})
    frames.append({"raw": "y"})
    assert spec.params["frames"] == [{"raw": "x"}]


@pytest.mark.parametrize(("rule", "problem"), [
    ([], "must be an object"),
    ({"on": "exec", "action": "drop", "times": True}, "whole number"),
    ({"on": "exec", "action": "respond", "headers": {"a": 1}}, "object of strings"),
    ({"on": "terminate", "action": "terminate-response", "data": []}, "needs 'data'"),
    ({"on": "connect", "action": "replay", "overlap": -1}, "whole number"),
])
def test_invalid_rules_say_why(rule: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        createos.fault_spec(rule)


def test_sandboxes_are_a_status_or_an_object() -> None:
    assert createos.sandbox_spec("s", "paused") == createos.SandboxSpec("paused", None, None)
    spec = createos.sandbox_spec("s", {"pause": ["pausing", "paused"], "resume": "immediate"})
    assert spec == createos.SandboxSpec("running", ["pausing", "paused"], None)
    with pytest.raises(ValueError, match="non-empty list"):
        createos.sandbox_spec("s", {"pause": []})
    with pytest.raises(ValueError, match="is a status or an object"):
        createos.sandbox_spec("s", 3)


def test_a_server_is_checked_programs_first() -> None:
    createos.check_server(None, [{"output": [{"text": "hi", "atMs": 5}], "exit": None}])
    with pytest.raises(ValueError, match="program"):
        createos.check_server({"s": "gone"}, [{"exit": 0}])
    with pytest.raises(ValueError, match="unknown sandbox status"):
        createos.check_server({"s": "gone"}, ())
    with pytest.raises(AttributeError):
        createos.check_server([], ())


def test_what_a_scenario_needs() -> None:
    scenario = {
        "call": {"timeoutMs": 100, "cancelAfterMs": 50, "clientTimeoutMs": 1000},
        "server": {"faults": [{"on": "exec", "action": "stall", "ms": 200}, {"on": "exec", "action": "drop"}],
                   "programs": [{"exitAtMs": 300, "output": [{"atMs": 400}]}, "not a program"]},
    }
    assert dict(createos.scenario_times(scenario)) == {
        "call/timeoutMs": 100, "call/cancelAfterMs": 50, "call/clientTimeoutMs": 1000, "server/faults/0/ms": 200,
        "server/programs/0/exitAtMs": 300, "server/programs/0/output/0/atMs": 400,
    }
    assert createos.scenario_need_ms(scenario) == 2 * 1000 + 100 + 50 + 200 + 400
    assert createos.scenario_need_ms({}) == 2 * createos.DEFAULT_CLIENT_TIMEOUT_MS
    huge = {"call": {"timeoutMs": 10 * createos.MAX_SCENARIO_TOTAL_MS}}
    assert createos.record_need_ms([huge, huge, "x"]) == 2 * createos.MAX_SCENARIO_TOTAL_MS
    assert createos.record_need_ms("x") == 0
