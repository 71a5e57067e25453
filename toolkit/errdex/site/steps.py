"""Trigger scenarios as steps a person reads: what is called, what the server does, what must be seen."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["scenario_steps"]

_CALL_FIELDS = ("command", "args", "cwd", "env", "stdin", "path", "text", "timeoutMs", "cancelAfterMs")


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)[1:-1].join('""')


def _call(call: dict[str, Any]) -> str:
    parts = [f"{name} {_value(call[name])}" for name in _CALL_FIELDS if call.get(name) not in (None, [], {}, "")]
    where = f" on sandbox {_value(call.get('sandbox', 'sbx-1'))}"
    return f"Call {call['operation']}{where}" + (f" with {', '.join(parts)}" if parts else "") + "."


def _fault(fault: dict[str, Any]) -> str:
    details = [f"{name} {_value(value)}" for name, value in fault.items() if name not in ("on", "action")]
    return f"On {fault.get('on', 'any request')}, the server will {fault.get('action', 'respond')}" + (
        f" ({', '.join(details)})" if details else "") + "."


def _expect(expect: dict[str, Any]) -> list[str]:
    steps = []
    if expect.get("outcome") == "raises":
        what = f"The call raises {expect.get('errorClass') or 'an error'}"
        if expect.get("matchesRecord", True):
            what += " whose message this record's pattern matches"
            if expect.get("groups"):
                what += f", capturing {', '.join(_value(g) for g in expect['groups'])}"
        else:
            what += " whose message this record's pattern does not match (a different error)"
        steps.append(what + ".")
    else:
        result = ", ".join(f"{name} {_value(value)}" for name, value in expect.get("result", {}).items())
        steps.append("The call returns" + (f" with {result}" if result else "") + ".")
    for fact, count in expect.get("ledger", {}).items():
        steps.append(f"The server's ledger shows {fact} = {count}.")
    return steps


def scenario_steps(scenario: dict[str, Any]) -> list[str]:
    """The scenario as numbered-list steps, in plain words."""
    server = scenario.get("server", {})
    steps = []
    if server.get("listen") is False:
        steps.append("The CreateOS API address refuses connections.")
    sandboxes = server.get("sandboxes")
    if sandboxes and sandboxes != {"sbx-1": "running"}:
        steps.append(f"The server holds sandboxes {_value(sandboxes)}.")
    for number, program in enumerate(server.get("programs", []), start=1):
        steps.append(f"Process {number} on the server behaves as {_value(program)}.")
    steps.extend(_fault(fault) for fault in server.get("faults", []))
    steps.append(_call(scenario["call"]))
    steps.extend(_expect(scenario.get("expect", {})))
    return steps
