"""Each of the 26 messages of the CreateOS document, raised by a real run against the fake server.

Every scenario triggers its fault on the socket and checks the class the
upstream would raise (``error_class``), the exact message and, where it
matters, what the server saw.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errdex.executor.createos import CreateosError, execute
from tests.executor.createos.helpers import RUNNING, SANDBOX, data, program, stream
from tests.processes import wait_until

DOCUMENT = Path(__file__).resolve().parents[4] / "shared" / "reference" / "createos-protocol.md"
SOURCE = Path(__file__).resolve().parents[3] / "toolkit" / "errdex" / "executor" / "createos"

# code -> (error_class, exact message raised in the scenario below)
MESSAGES = {
    "C1": ("CreateosApiError", "CreateOS request failed (HTTP 400) during process creation."),
    "C2": ("Error", "CreateOS connection failed."),
    "C3": ("Error", "CreateOS returned invalid JSON."),
    "C4": ("Error", "CreateOS returned an unsuccessful response."),
    "C5": ("Error", "CreateOS returned an invalid response."),
    "C6": ("Error", "CreateOS returned an invalid resource ID."),
    "C7": ("Error", "CreateOS sandbox identity or state is invalid."),
    "C8": ("Error", "CreateOS sandbox did not reach running."),
    "E1": ("Error", "Sandbox command values cannot contain NUL."),
    "E2": ("Error", "A sandbox command is required."),
    "E3": ("Error", "Invalid sandbox environment variable."),
    "E4": ("Error", "CreateOS process output was evicted before it could be read."),
    "E5": ("Error", "CreateOS process output connection failed."),
    "E6": ("Error", "CreateOS returned an empty process stream."),
    "E7": ("Error", "CreateOS process frame is too large."),
    "E8": ("Error", "CreateOS returned an invalid process frame."),
    "E9": ("Error", "CreateOS process sequence is invalid."),
    "E10": ("Error", "CreateOS process output has a sequence gap."),
    "E11": ("Error", "CreateOS process output is invalid."),
    "E12": ("Error", "CreateOS process exit status is missing."),
    "E13": ("Error", "CreateOS process stream reported an error."),
    "E14": ("Error", "CreateOS returned an unknown process event."),
    "E15": ("Error", "CreateOS process stream ended without an exit status."),
    "E16": (
        "CreateosCleanupError",
        "CreateOS process creation could not be confirmed; destroy the lease before reusing it.",
    ),
    "E17": ("Error", "CreateOS command was cancelled."),
    "E18": ("CreateosCleanupError", "CreateOS command cleanup failed; process termination is unconfirmed."),
}

# Messages of the document with a placeholder, as the document writes them.
TEMPLATES = {
    "C1": "CreateOS request failed (HTTP {status}) during {operation}.",
    "C8": "CreateOS sandbox did not reach {running\\|paused}.",
}


def _raise(action: Callable[[], Any]) -> CreateosError:
    with pytest.raises(CreateosError) as caught:
        action()
    return caught.value


def _run(setup, command: str = "/bin/true", *, client_options=None, **options: Any) -> tuple[Any, CreateosError]:
    """Execute ``command`` against a fake server set up with ``options``; the server and the error raised."""
    execute_options = options.pop("execute", {})
    fake, client = setup(client_options=client_options, **options)
    error = _raise(lambda: execute(client, execute_options.pop("lease", SANDBOX), command, **execute_options))
    return fake, error


def _after_process(fake, *, connects: int = 1) -> None:
    """A failure once the process id is known: fatal at once, and the process is terminated."""
    facts = fake.facts()
    assert facts["requests"]["connect"] == connects
    assert facts["requests"]["terminate"] == 1
    assert facts["processesRunning"] == 0


def _nothing_sent(fake) -> None:
    assert fake.ledger.requests == []


def scenario_c1(setup):
    plan = [{"on": "create-process", "action": "respond", "status": 400, "body": {"status": "error"}}]
    fake, error = _run(setup, plan=plan)
    assert (error.status, error.operation) == (400, "process creation")
    assert fake.facts()["requests"]["terminate"] == 0  # below 500: definitely refused, no E16
    return error


def scenario_c2(setup):
    _fake, error = _run(setup, plan=[{"on": "upload-file", "action": "drop"}], execute={"stdin": "x"})
    assert error.__cause__ is None and error.__context__ is None
    return error


def scenario_c3(setup):
    _fake, client = setup(plan=[{"on": "get-sandbox", "action": "respond", "bodyText": "<html>busy</html>"}])
    return _raise(lambda: client.get_sandbox(SANDBOX))


def scenario_c4(setup):
    plan = [{"on": "close-stdin", "action": "respond", "body": {"status": "error", "data": {}}}]
    fake, error = _run(setup, plan=plan, programs=[RUNNING])
    assert fake.facts()["requests"]["terminate"] == 1
    return error


def scenario_c5(setup):
    _fake, client = setup(plan=[{"on": "get-sandbox", "action": "respond", "body": {"status": "success", "data": []}}])
    return _raise(lambda: client.get_sandbox(SANDBOX))


def scenario_c6(setup):
    fake, error = _run(setup, execute={"lease": "sbx/../1"})
    _nothing_sent(fake)
    return error


def scenario_c7(setup):
    body = {"status": "success", "data": {"id": "sbx-2", "status": "running"}}
    _fake, client = setup(plan=[{"on": "get-sandbox", "action": "respond", "body": body}])
    return _raise(lambda: client.get_sandbox(SANDBOX))


def scenario_c8(setup):
    fake, client = setup(sandboxes={SANDBOX: {"status": "paused", "resume": ["paused", "running"]}})
    error = _raise(lambda: client.resume_sandbox(SANDBOX))
    requests = fake.facts()["requests"]
    assert (requests["get-sandbox"], requests["resume-sandbox"]) == (2, 1)
    return error


def scenario_e1(setup):
    fake, error = _run(setup, execute={"args": ["ok", "bad\0arg"]})
    _nothing_sent(fake)
    return error


def scenario_e2(setup):
    fake, error = _run(setup, "")
    _nothing_sent(fake)
    return error


def scenario_e3(setup):
    fake, error = _run(setup, execute={"env": {"PATH": "/bin", "1BAD": "x"}})
    _nothing_sent(fake)
    return error


def scenario_e4(setup):
    fake, error = _run(setup, plan=[{"on": "connect", "action": "respond", "status": 410, "body": {}}])
    _after_process(fake)
    return error


def scenario_e5(setup):
    plan = [{"on": "connect", "action": "respond", "status": 503, "body": {}, "times": 4}]
    fake, error = _run(setup, plan=plan)
    _after_process(fake, connects=4)
    return error


def scenario_e6(setup):
    fake, error = _run(setup, plan=[{"on": "connect", "action": "no-body", "status": 204}])
    _after_process(fake)
    return error


def scenario_e7(setup):
    fake, error = _run(setup, plan=[stream({"raw": "x" * 1_048_577 + "\n"})])
    _after_process(fake)
    return error


def scenario_e8(setup):
    fake, error = _run(setup, plan=[stream(data(1, "ok"), {"raw": "not json\n"})])
    _after_process(fake)
    return error


def scenario_e9(setup):
    fake, error = _run(setup, plan=[stream(data(0, "zero"))])
    _after_process(fake)
    return error


def scenario_e10(setup):
    fake, error = _run(setup, plan=[stream(data(1, "a"), data(3, "c"))])
    _after_process(fake)
    return error


def scenario_e11(setup):
    fake, error = _run(setup, plan=[stream(data(1, "a", stream="stdin"))])
    _after_process(fake)
    return error


def scenario_e12(setup):
    fake, error = _run(setup, plan=[stream(data(1, "a"), {"type": "exit"})])
    _after_process(fake)
    return error


def scenario_e13(setup):
    fake, error = _run(setup, plan=[stream({"type": "error", "error": "disk_full"})])
    _after_process(fake)
    return error


def scenario_e14(setup):
    fake, error = _run(setup, plan=[stream({"type": "progress", "percent": 50})])
    _after_process(fake)
    return error


def scenario_e15(setup):
    fake, error = _run(setup, plan=[stream({"type": "heartbeat"}, times=4)])
    _after_process(fake, connects=4)
    return error


def scenario_e16(setup):
    fake, error = _run(setup, plan=[{"on": "create-process", "action": "drop-after-handling"}], programs=[RUNNING])
    facts = fake.facts()
    assert (facts["processesCreated"], facts["processesRunning"]) == (1, 1)
    assert facts["requests"]["terminate"] == 0
    return error


def scenario_e17(setup):
    cancel = threading.Event()
    fake, client = setup(programs=[program(running=True)])

    def cancel_once_running() -> None:  # not on a timer: a busy machine could cancel before the process exists
        try:
            wait_until(lambda: fake.facts()["processesCreated"] >= 1 and fake.facts()["requests"]["connect"] >= 1,
                       what="the process to be created and its output stream followed")
        finally:
            cancel.set()  # even after a failed wait, so that the call ends and the test reports it

    threading.Thread(target=cancel_once_running, daemon=True).start()
    error = _raise(lambda: execute(client, SANDBOX, "/bin/true", cancel=cancel))
    assert error.__cause__ is not None and error.__cause__.error_class == "AbortError"
    assert fake.facts()["processesTerminated"] == 1
    return error


def scenario_e18(setup):
    plan = [{"on": "terminate", "action": "terminate-response", "data": {"tree_exited": False}}]
    fake, error = _run(setup, plan=plan, programs=[RUNNING], execute={"timeout_ms": 150})
    assert fake.facts()["processesRunning"] == 1
    return error


SCENARIOS = {code: globals()[f"scenario_{code.lower()}"] for code in MESSAGES}


@pytest.mark.parametrize("code", list(MESSAGES))
def test_message_is_raised_by_its_scenario(code: str, setup) -> None:
    error = SCENARIOS[code](setup)
    error_class, message = MESSAGES[code]
    assert (error.error_class, str(error)) == (error_class, message)


def test_c8_when_pausing_from_a_state_that_does_not_allow_it(setup) -> None:
    fake, client = setup(sandboxes={SANDBOX: "error"})
    error = _raise(lambda: client.pause_sandbox(SANDBOX))
    assert str(error) == "CreateOS sandbox did not reach paused."
    assert fake.facts()["requests"]["pause-sandbox"] == 0


def test_messages_are_those_of_the_document() -> None:
    if not DOCUMENT.exists():
        pytest.skip("the reference document is not available")
    text = DOCUMENT.read_text(encoding="utf-8")
    found = dict(re.findall(r"\| (C\d) \| `([^`]+)`", text))
    found |= dict(re.findall(r"- (E\d+) `([^`]+)`", text))
    found |= {code: message for code, message in re.findall(r"→ (E\d+)\s+`([^`]+)`", text)}
    found["E16"] = re.search(r"\(the seed record\)\s+`([^`]+)`", text).group(1)
    expected = {code: TEMPLATES.get(code, message) for code, (_, message) in MESSAGES.items()}
    assert found == expected


def test_each_fixed_message_is_written_once_in_the_source() -> None:
    """A message lives where it is raised; C1, C2 and the E4 pair are the documented exceptions."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in sorted(SOURCE.glob("*.py")))
    expected_sites = {"C1": 0, "C2": 1, "C8": 0, "E4": 2, "E7": 3}  # C1/C8 are formatted; E7: lines, tail, end
    for code, (_, message) in MESSAGES.items():
        assert source.count(f'"{message}"') == expected_sites.get(code, 1), code
