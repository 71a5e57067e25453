"""``errdex executor serve --plan``: a hostile or mistaken plan file is one clear line and exit 1, never exit 70
or a wait (every case here fails before the server would start)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from errdex.cli.executor import _load_plan
from errdex.errors import InputError
from errdex.executor.createos import FakeCreateos
from tests.test_fuzz_commands import FUZZ, json_values, mutated

PLANS = {
    "deep": ("[" * 100_000, "nest more than 64 levels"),
    "huge-integer": ('{"faults": [{"on": "exec", "action": "stall", "ms": 1' + "0" * 5000 + "}]}",
                     "does not fit in 64 bits"),
    "infinite-stall": ('{"faults": [{"on": "exec", "action": "stall", "ms": 1e999}]}', "too large for a double"),
    "sandboxes-list": ('{"sandboxes": [1, 2]}', "/sandboxes: Input should be a valid dictionary"),
    "sandbox-number": ('{"sandboxes": {"sbx-1": 5}}', "sandbox 'sbx-1' is a status or an object"),
    "programs-number": ('{"programs": 5}', "/programs: Input should be a valid list"),
    "faults-object": ('{"faults": {"on": "exec"}}', "/faults: Input should be a valid list"),
    "misspelt-key": ('{"fault": []}', "/fault: Extra inputs are not permitted"),
    "not-an-object": ("[]", "expected an object like a scenario's server"),
    "output-at-null": ('{"programs": [{"output": [{"text": "hi", "atMs": null}]}]}',
                       "'atMs' is a number of milliseconds"),
    "exit-at-text": ('{"programs": [{"output": [], "exitAtMs": "soon"}]}', "'exitAtMs' is a number of milliseconds"),
    "text-number": ('{"programs": [{"output": [{"text": 5}]}]}', "'text' or 'base64' are strings"),
}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_a_bad_plan_is_one_line_and_exit_1(cli: Any, tmp_path: Path, name: str) -> None:
    text, says = PLANS[name]
    plan = tmp_path / "plan.json"
    plan.write_text(text, encoding="utf-8")
    result = cli("executor", "serve", "--plan", str(plan))
    assert result.exit_code == 1, result.stderr
    assert result.stderr.count("\n") == 1 and str(plan) in result.stderr and says in result.stderr
    assert "internal error" not in result.stderr


def test_a_fifo_plan_is_refused_at_once(cli: Any, tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    os.mkfifo(plan)
    result = cli("executor", "serve", "--plan", str(plan))
    assert result.exit_code == 1 and "not a regular file" in result.stderr


REAL_PLAN = {"sandboxes": {"sbx-1": {"status": "paused", "resume": ["resuming", "running"]}},
             "programs": [{"output": [{"stream": "stdout", "text": "hi\n", "atMs": 5}], "exit": {"exit_code": 0}}],
             "faults": [{"on": "create-process", "action": "stall", "ms": 10, "handle": True, "nth": 1},
                        {"on": "connect", "action": "stream", "frames": [{"raw": "x"}], "then": "reset"}]}


def test_any_plan_is_refused_in_one_line_or_accepted_by_the_server(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Random plans (the real shape with fields replaced, or any JSON): the checks the command runs refuse them
    with an InputError, or the fake server takes them; nothing else escapes (it would be exit 70)."""
    @settings(FUZZ, max_examples=200)
    @given(data=json_values.map(lambda v: json.dumps(v).encode()) | mutated(REAL_PLAN))
    def check(data: bytes) -> None:
        plan = tmp_path_factory.mktemp("plan") / "plan.json"
        plan.write_bytes(data)
        try:
            loaded = _load_plan(plan)
            FakeCreateos(plan=loaded.get("faults"), sandboxes=loaded.get("sandboxes"), programs=loaded.get("programs"))
        except (InputError, ValueError) as error:
            assert "\n" not in str(error) and str(error)

    check()
