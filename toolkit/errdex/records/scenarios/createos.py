"""The CreateOS scenario vocabulary: calls, fault actions, sandbox states and time bounds, as data.

A scenario for the CreateOS reference executor names one *operation* of the executor and a fake server: its
sandboxes, the *programs* its processes run and a *fault plan*. A fault rule is ``{"on": CALL, "action":
ACTION, ...}`` with optional ``"nth": N`` or ``"times": N`` and the action's parameters; :data:`ACTIONS` says
which parameters each action takes and the one call it applies to, if any (see
:mod:`errdex.executor.createos.faults` for what each action does).

The validators here read plain data and raise ``ValueError`` naming what is wrong; the executor builds its
live objects from what they return, and EDX203 reports their messages. The time bounds are those EDX205 and
``errdex prove`` enforce: every time a scenario names (a stall's ``ms``, a program's ``atMs`` and
``exitAtMs``, the call's ``timeoutMs``, ``cancelAfterMs`` and ``clientTimeoutMs``) is at most
:data:`MAX_SCENARIO_MS`, their upper estimate :func:`scenario_need_ms` at most :data:`MAX_SCENARIO_TOTAL_MS`,
and a record's scenarios together at most :data:`MAX_RECORD_TOTAL_MS`, so that a proof run always ends.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

__all__ = [
    "ACTIONS",
    "CALLS",
    "DEFAULT_CLIENT_TIMEOUT_MS",
    "DEFAULT_SANDBOXES",
    "MAX_RECORD_TOTAL_MS",
    "MAX_SCENARIO_MS",
    "MAX_SCENARIO_TOTAL_MS",
    "OPERATIONS",
    "PROGRAM_KEYS",
    "RULE_KEYS",
    "SANDBOX_STATES",
    "Action",
    "Call",
    "FaultSpec",
    "Operation",
    "SandboxSpec",
    "check_program",
    "check_server",
    "fault_spec",
    "is_ms",
    "record_need_ms",
    "sandbox_spec",
    "scenario_need_ms",
    "scenario_times",
]

#: The API calls of the fake server a fault rule can apply to.
Call = Literal[
    "get-sandbox", "create-sandbox", "destroy-sandbox", "pause-sandbox", "resume-sandbox",
    "upload-file", "exec", "create-process", "close-stdin", "connect", "terminate",
]
CALLS: tuple[Call, ...] = get_args(Call)

#: What the fake server may do instead of answering normally.
Action = Literal[
    "respond", "no-body", "drop", "drop-after-handling", "reset", "stall", "stream", "replay", "terminate-response",
]
#: action -> (parameters it accepts, the only call it applies to or None), in the order of :data:`Action`.
ACTIONS: Mapping[str, tuple[frozenset[str], str | None]] = {
    "respond": (frozenset({"status", "body", "bodyText", "headers", "handle"}), None),
    "no-body": (frozenset({"status", "handle"}), None),
    "drop": (frozenset(), None),
    "drop-after-handling": (frozenset(), None),
    "reset": (frozenset(), None),
    "stall": (frozenset({"ms", "handle"}), None),
    "stream": (frozenset({"frames", "then", "status"}), "connect"),
    "replay": (frozenset({"overlap"}), "connect"),
    "terminate-response": (frozenset({"data", "handle"}), "terminate"),
}
#: The keys of a fault rule besides its action's parameters.
RULE_KEYS = frozenset({"on", "action", "nth", "times"})

#: What a scenario's call does: run one command (``execute``) or one client call.
Operation = Literal[
    "execute", "get-sandbox", "create-sandbox", "destroy-sandbox", "pause-sandbox", "resume-sandbox",
    "upload-file", "exec",
]
OPERATIONS: tuple[Operation, ...] = get_args(Operation)

#: The statuses a sandbox of the fake server can report.
SANDBOX_STATES = ("creating", "running", "pausing", "paused", "resuming", "error", "destroyed")
#: The sandboxes the fake server holds when a scenario names none.
DEFAULT_SANDBOXES: Mapping[str, str] = {"sbx-1": "running"}
#: The keys of a program (what a created process writes and how it ends).
PROGRAM_KEYS = frozenset({"output", "exit", "exitAtMs"})

#: The largest time, in milliseconds, one value of a scenario may name.
MAX_SCENARIO_MS = 30_000
#: The largest :func:`scenario_need_ms` a scenario may have.
MAX_SCENARIO_TOTAL_MS = 60_000
#: The largest :func:`record_need_ms` a record may have: many scenarios, each within its bound, must not add up
#: to a proof run of hours.
MAX_RECORD_TOTAL_MS = 300_000
#: The client's timeout when a scenario's call names none.
DEFAULT_CLIENT_TIMEOUT_MS = 3000

_CALL_TIMES = ("timeoutMs", "cancelAfterMs", "clientTimeoutMs")


# -- fault rules ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FaultSpec:
    """A valid fault rule: the call, the action, when it applies and the action's parameters (defaults filled)."""

    on: str
    action: str
    nth: int | None
    times: int | None
    params: dict[str, Any]


def fault_spec(data: Mapping[str, Any]) -> FaultSpec:
    """Validate one fault rule given as plain data; ``ValueError`` names what is wrong."""
    if not isinstance(data, Mapping):
        raise ValueError("a fault rule must be an object")
    call, action = data.get("on"), data.get("action")
    if call not in CALLS:
        raise ValueError(f"unknown call in fault rule: {call!r} (one of {', '.join(CALLS)})")
    if action not in ACTIONS:
        raise ValueError(f"unknown fault action: {action!r} (one of {', '.join(ACTIONS)})")
    call, action = cast(str, call), cast(str, action)  # both are members of a tuple of strings, checked above
    accepted, only_for = ACTIONS[action]
    if only_for is not None and call != only_for:
        raise ValueError(f"fault action {action!r} applies only to {only_for!r}, not {call!r}")
    unknown = set(data) - RULE_KEYS - accepted
    if unknown:
        raise ValueError(f"unknown parameters for {action!r}: {', '.join(sorted(unknown))}")
    nth, times = data.get("nth"), data.get("times")
    for name, value in (("nth", nth), ("times", times)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ValueError(f"{name!r} must be a whole number from 1")
    if nth is not None and times is not None:
        raise ValueError("a fault rule takes 'nth' or 'times', not both")
    params = {key: copy.deepcopy(value) for key, value in data.items() if key in accepted}
    _check_params(action, params)
    return FaultSpec(call, action, nth, times, params)


def _check_params(action: str, params: dict[str, Any]) -> None:
    """Check an action's parameters, filling the defaults of ``then`` and ``overlap`` in place."""
    status = params.get("status")
    if status is not None and (not isinstance(status, int) or not 100 <= status <= 599):
        raise ValueError("'status' must be an HTTP status code")
    if "body" in params and "bodyText" in params:
        raise ValueError("'respond' takes 'body' or 'bodyText', not both")
    if "bodyText" in params and not isinstance(params["bodyText"], str):
        raise ValueError("'bodyText' must be a string")
    if "headers" in params and not (
        isinstance(params["headers"], dict) and all(isinstance(v, str) for v in params["headers"].values())
    ):
        raise ValueError("'headers' must be an object of strings")
    if action == "stall" and not (isinstance(params.get("ms"), (int, float)) and params["ms"] >= 0):
        raise ValueError("'stall' needs 'ms', a number of milliseconds")
    if action == "stream":
        if not isinstance(params.get("frames"), list):
            raise ValueError("'stream' needs 'frames', a list")
        if params.setdefault("then", "end") not in ("end", "reset"):
            raise ValueError("'then' must be 'end' or 'reset'")
    if action == "replay" and not (isinstance(params.setdefault("overlap", 1), int) and params["overlap"] >= 0):
        raise ValueError("'overlap' must be a whole number")
    if action == "terminate-response" and not isinstance(params.get("data"), dict):
        raise ValueError("'terminate-response' needs 'data', an object")


# -- the server's set-up -----------------------------------------------------------------------------------------


def is_ms(value: Any) -> bool:
    """Whether ``value`` is a finite number of milliseconds, 0 or more."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")


def check_program(program: Any) -> None:
    """Check one program (``{output, exit, exitAtMs}``); ``ValueError`` when it is malformed."""
    if not isinstance(program, Mapping) or set(program) - PROGRAM_KEYS:
        raise ValueError("a program is an object with 'output', 'exit' and 'exitAtMs'")
    if not isinstance(program.get("exit", {}), (dict, type(None))):
        raise ValueError("a program's 'exit' is an object or null")
    items = program.get("output", [])
    if not isinstance(items, list) or not all(
        isinstance(item, dict) and ("text" in item) != ("base64" in item) for item in items
    ):
        raise ValueError("a program's 'output' lists objects with 'text' or 'base64'")
    for item in items:
        if not is_ms(item.get("atMs", 0)):
            raise ValueError("a program output's 'atMs' is a number of milliseconds, 0 or more")
        text = item.get("text", item.get("base64"))
        if not isinstance(item.get("stream", "stdout"), str) or not isinstance(text, str):
            raise ValueError("a program output's 'stream' and 'text' or 'base64' are strings")
    if "exitAtMs" in program and not is_ms(program["exitAtMs"]):
        raise ValueError("a program's 'exitAtMs' is a number of milliseconds, 0 or more")


@dataclass(frozen=True)
class SandboxSpec:
    """A valid sandbox: its status and the statuses successive reads report after a pause or resume (None: at once)."""

    status: str
    pause: list[str] | None
    resume: list[str] | None


def sandbox_spec(sandbox_id: str, spec: Any) -> SandboxSpec:
    """Check one sandbox, given as a status or ``{status, pause, resume}``; ``ValueError`` when it is malformed."""
    if isinstance(spec, str):
        spec = {"status": spec}
    if not isinstance(spec, Mapping):
        raise ValueError(f"sandbox {sandbox_id!r} is a status or an object {{status, pause, resume}}")
    transitions: dict[str, list[str] | None] = {}
    for action in ("pause", "resume"):
        statuses = spec.get(action)
        if statuses in (None, "immediate"):
            transitions[action] = None
        elif isinstance(statuses, list) and statuses:
            transitions[action] = list(statuses)
        else:
            raise ValueError(f"a {action!r} transition is 'immediate' or a non-empty list of statuses")
    status = spec.get("status", "running")
    for name in [status, *(transitions["pause"] or []), *(transitions["resume"] or [])]:
        if name not in SANDBOX_STATES:
            raise ValueError(f"unknown sandbox status: {name!r} (one of {', '.join(SANDBOX_STATES)})")
    return SandboxSpec(status, transitions["pause"], transitions["resume"])


def check_server(sandboxes: Any, programs: Any) -> None:
    """Check a scenario server's programs, then its sandboxes (None: :data:`DEFAULT_SANDBOXES`), in the order the
    fake server reads them; ``ValueError`` (or the ``TypeError``/``AttributeError`` of a value of the wrong kind)
    when one is malformed."""
    for program in list(programs or []):
        check_program(program)
    for sandbox_id, spec in (sandboxes if sandboxes is not None else DEFAULT_SANDBOXES).items():
        sandbox_spec(sandbox_id, spec)


# -- time bounds -------------------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)


def scenario_times(scenario: Mapping[str, Any]) -> Iterator[tuple[str, float]]:
    """Each time the scenario names: (its place as a path below the scenario, milliseconds).

    It reads the scenario as plain data, so it can judge one that is not valid yet.
    """
    call = scenario.get("call")
    if isinstance(call, Mapping):
        for name in _CALL_TIMES:
            if (ms := _number(call.get(name))) is not None:
                yield f"call/{name}", ms
    server = scenario.get("server")
    if not isinstance(server, Mapping):
        return
    faults = server.get("faults")
    for number, rule in enumerate(faults if isinstance(faults, list) else ()):
        if isinstance(rule, Mapping) and rule.get("action") == "stall" and (ms := _number(rule.get("ms"))) is not None:
            yield f"server/faults/{number}/ms", ms
    programs = server.get("programs")
    for number, program in enumerate(programs if isinstance(programs, list) else ()):
        if isinstance(program, Mapping):
            yield from _program_times(number, program)


def _program_times(number: int, program: Mapping[str, Any]) -> Iterator[tuple[str, float]]:
    if (ms := _number(program.get("exitAtMs"))) is not None:
        yield f"server/programs/{number}/exitAtMs", ms
    output = program.get("output")
    for item_number, item in enumerate(output if isinstance(output, list) else ()):
        if isinstance(item, Mapping) and (ms := _number(item.get("atMs"))) is not None:
            yield f"server/programs/{number}/output/{item_number}/atMs", ms


def scenario_need_ms(scenario: Mapping[str, Any]) -> float:
    """A generous upper estimate of how long the scenario runs, in milliseconds: the times it names added up
    (the client's timeout twice: the call's own deadline and the fresh cleanup deadline)."""
    times = dict(scenario_times(scenario))
    client = times.get("call/clientTimeoutMs", DEFAULT_CLIENT_TIMEOUT_MS)
    stalls = sum(ms for place, ms in times.items() if place.startswith("server/faults/"))
    program = max((ms for place, ms in times.items() if place.startswith("server/programs/")), default=0.0)
    return 2 * client + times.get("call/timeoutMs", 0.0) + times.get("call/cancelAfterMs", 0.0) + stalls + program


def record_need_ms(scenarios: object) -> float:
    """What a record's scenarios need together (each at most the bound a proof lets it run)."""
    items: Iterable[object] = scenarios if isinstance(scenarios, list) else []
    return sum(min(scenario_need_ms(s), MAX_SCENARIO_TOTAL_MS) for s in items if isinstance(s, Mapping))
