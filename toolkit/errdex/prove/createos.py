"""Proving CreateOS records: every trigger scenario is run against a fresh fake CreateOS server.

A scenario passes when the reference executor really runs into the fault and
what it observes is what the record says: the call raises the recorded error
class with a message that the record's own ``messagePattern`` matches (with
the expected captured values), or returns the expected result; and the fake
server's ledger shows the expected facts. Waits between polls and reconnects
are shortened to 20 ms so that proofs are fast; everything else runs as the
upstream client does, on real sockets on 127.0.0.1.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pydantic
import re2

from errdex.executor.createos import (
    CreateosClient,
    CreateosError,
    FakeCreateos,
    execute,
)
from errdex.executor.createos.bounds import scenario_limit_s
from errdex.patterns import to_re2
from errdex.patterns.re2_options import re2_options
from errdex.prove.report import ScenarioProof
from errdex.records.models import Scenario
from errdex.records.scenarios.createos import (
    MAX_RECORD_TOTAL_MS,
    MAX_SCENARIO_MS,
    MAX_SCENARIO_TOTAL_MS,
    record_need_ms,
    scenario_need_ms,
    scenario_times,
)

__all__ = ["PROOF_API_KEY", "prove_scenario", "record_problem"]

PROOF_API_KEY = "errdex-proof-key"


def _result_dict(result: Any) -> dict[str, Any]:
    return {
        "exitCode": result.exit_code,
        "signal": result.signal,
        "timedOut": result.timed_out,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "outputTruncated": result.output_truncated,
        "processId": result.process_id,
    }


def _run_call(scenario: Scenario, client: CreateosClient, cancel: threading.Event) -> Any:
    call = scenario.call
    op = call.operation
    if op == "execute":
        result = execute(
            client, call.sandbox, call.command or "", args=call.args, cwd=call.cwd, env=call.env or None,
            stdin=call.stdin, timeout_ms=call.timeoutMs, cancel=cancel,
        )
        return _result_dict(result)
    simple = {
        "get-sandbox": lambda: client.get_sandbox(call.sandbox, cancel=cancel),
        "create-sandbox": lambda: client.create_sandbox(cancel=cancel),
        "destroy-sandbox": lambda: client.destroy_sandbox(call.sandbox, cancel=cancel),
        "pause-sandbox": lambda: client.pause_sandbox(call.sandbox, cancel=cancel),
        "resume-sandbox": lambda: client.resume_sandbox(call.sandbox, cancel=cancel),
        "upload-file": lambda: client.upload_file(call.sandbox, call.path or "/tmp/file", (call.text or "").encode(),
                                                  cancel=cancel),
        "exec": lambda: client.exec(call.sandbox, call.command or "", call.args, cancel=cancel),
    }
    value = simple[op]()
    return {"value": value}


def _fact(facts: dict[str, Any], dotted: str) -> Any:
    node: Any = facts
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _beyond_bounds(raw: dict[str, Any]) -> str | None:
    """Why the scenario is not run: a time it names is beyond the executor's bounds (EDX205), or None."""
    for place, ms in scenario_times(raw):
        if not 0 <= ms <= MAX_SCENARIO_MS:
            return (f"not run: {place} is {ms:.0f} ms, outside 0-{MAX_SCENARIO_MS} ms, the longest a scenario "
                    "may wait (EDX205; run 'errdex validate')")
    if (need := scenario_need_ms(raw)) > MAX_SCENARIO_TOTAL_MS:
        return (f"not run: the scenario's times add up to {need:.0f} ms, more than {MAX_SCENARIO_TOTAL_MS} ms "
                "(EDX205; run 'errdex validate')")
    return None


def prove_scenario(record: dict[str, Any], raw: dict[str, Any], *, timeout: float | None = None) -> ScenarioProof:
    """Run one scenario of a record against a fresh fake server and judge what was observed.

    A scenario still running after ``timeout`` seconds (default: what its own
    times need, see :func:`~errdex.executor.createos.bounds.scenario_limit_s`)
    has failed: it is cancelled and its fake server is stopped.
    """
    started = time.monotonic()
    limit = scenario_limit_s(raw) if timeout is None else timeout
    scenario = _checked(raw)
    if isinstance(scenario, ScenarioProof):
        return scenario
    try:
        server = FakeCreateos(
            plan=[fault.model_dump(exclude_none=True) for fault in scenario.server.faults],
            sandboxes=scenario.server.sandboxes,
            programs=scenario.server.programs,
            listen=scenario.server.listen,
        )
    except (ValueError, TypeError) as exc:
        return ScenarioProof(scenario.id, False, {}, [f"the fake server refuses the scenario: {exc}"])
    failures: list[str] = []
    with server:
        outcome = _run(scenario, server, limit)
        if outcome is None:
            failures.append(f"timed out after {limit:g} s (the scenario's call did not finish; see --timeout)")
        facts = server.facts()
    observed = _observation(outcome)
    failures.extend(_judge(record, scenario, observed, facts))
    return ScenarioProof(scenario.id, not failures, observed, failures, facts, time.monotonic() - started)


def _checked(raw: dict[str, Any]) -> Scenario | ScenarioProof:
    """The scenario, or the failed proof of one that cannot be run: beyond the bounds or not valid."""
    scenario_id = str(raw["id"]) if isinstance(raw.get("id"), str) else "?"
    if (beyond := _beyond_bounds(raw)) is not None:  # what validate refuses (EDX205) is not run for a minute
        return ScenarioProof(scenario_id, False, {}, [beyond])
    try:
        return Scenario.model_validate(raw)
    except pydantic.ValidationError as exc:
        problem = exc.errors()[0]
        where = "/".join(str(p) for p in problem["loc"])
        return ScenarioProof(scenario_id, False, {}, [f"invalid scenario at {where}: {problem['msg']}"])


def _run(scenario: Scenario, server: FakeCreateos, limit: float) -> dict[str, Any] | None:
    """Make the scenario's call against the running server in a thread of its own, cancelled when it asks for it;
    what it returned, raised or crashed with (one key of ``returns``, ``raises``, ``crash``; none: it never
    finished), or None when it was still running after ``limit`` seconds (then it is cancelled)."""
    client = CreateosClient(
        server.url, PROOF_API_KEY, timeout_ms=scenario.call.clientTimeoutMs, pace_ms=0,
        poll_interval_ms=20, reconnect_delay_ms=20,
    )
    outcome: dict[str, Any] = {}
    cancel = threading.Event()
    timer = None
    # a cancel due after the time limit never comes (and a huge delay overflows the clock's wait)
    if scenario.call.cancelAfterMs is not None and scenario.call.cancelAfterMs / 1000 < limit:
        timer = threading.Timer(scenario.call.cancelAfterMs / 1000, cancel.set)
        timer.daemon = True
        timer.start()

    def run() -> None:
        try:
            outcome["returns"] = _run_call(scenario, client, cancel)
        except CreateosError as exc:
            outcome["raises"] = exc
        except Exception as exc:  # a bug in the executor is a failed proof, not a crash
            outcome["crash"] = exc

    worker = threading.Thread(target=run, name=f"proof-{scenario.id}", daemon=True)
    worker.start()
    worker.join(limit)
    if timer:
        timer.cancel()
    if worker.is_alive():
        cancel.set()
        return None
    return outcome


def _observation(outcome: dict[str, Any] | None) -> dict[str, Any]:
    """What was observed, as the proof reports it; a call that timed out observed nothing (what the cancelled
    call does while its server stops is not an observation)."""
    if outcome is None:
        return {"outcome": "unfinished"}
    if "raises" in outcome:
        error = outcome["raises"]
        return {"outcome": "raises", "errorClass": error.error_class, "message": str(error)}
    if "returns" in outcome:
        return {"outcome": "returns", "result": outcome["returns"]}
    if "crash" in outcome:
        error = outcome["crash"]
        return {"outcome": "crash", "errorClass": type(error).__name__, "message": str(error)}
    return {"outcome": "unfinished"}


def _judge(record: dict[str, Any], scenario: Scenario, observed: dict[str, Any], facts: dict[str, Any]) -> list[str]:
    expect = scenario.expect
    failures = []
    if observed["outcome"] == "unfinished":
        pass  # the timeout is the failure
    elif observed["outcome"] != expect.outcome:
        detail = f" ({observed.get('errorClass')}: {observed.get('message')})" if "message" in observed else ""
        failures.append(f"expected the call to {expect.outcome}, but it {observed['outcome']}{detail}")
    elif expect.outcome == "raises":
        if expect.errorClass is not None and observed["errorClass"] != expect.errorClass:
            failures.append(f"expected {expect.errorClass}, observed {observed['errorClass']}")
        pattern = record.get("messagePattern")
        match = None
        if isinstance(pattern, str):
            match = re2.compile(to_re2(pattern), re2_options()).fullmatch(observed["message"])
        if expect.matchesRecord and match is None:
            failures.append(f"the record's messagePattern does not match the raised message {observed['message']!r}")
        if not expect.matchesRecord and match is not None:
            failures.append("the raised message is matched by the record's messagePattern, but must not be")
        if match is not None and expect.groups is not None and list(match.groups()) != expect.groups:
            failures.append(f"captured {list(match.groups())}, expected {expect.groups}")
    else:
        for name, wanted in expect.result.items():
            got = observed["result"].get(name, "<missing>")
            if got != wanted:
                failures.append(f"result {name} is {got!r}, expected {wanted!r}")
    for name, wanted in expect.ledger.items():
        got = _fact(facts, name)
        if got != wanted:
            failures.append(f"ledger {name} is {got!r}, expected {wanted!r}")
    return failures


def record_problem(scenarios: list[Any]) -> str | None:
    """Why a CreateOS record's scenarios are not run at all (their times add up beyond the bound), or None."""
    if (need := record_need_ms(scenarios)) > MAX_RECORD_TOTAL_MS:
        return (f"the scenarios' times add up to {need:.0f} ms, more than the {MAX_RECORD_TOTAL_MS} ms "
                "one record's proof may take (EDX205); run 'errdex validate'")
    return None
