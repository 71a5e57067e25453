"""How long a scenario may make the executor and the fake server wait.

Every time a scenario names (a stall's ``ms``, a program's ``atMs`` and
``exitAtMs``, the call's ``timeoutMs``, ``cancelAfterMs`` and
``clientTimeoutMs``) is at most :data:`MAX_SCENARIO_MS`, and together at most
:data:`MAX_SCENARIO_TOTAL_MS`, so that a proof run always ends; a record's scenarios together need at most
:data:`MAX_RECORD_TOTAL_MS`. :func:`scenario_need_ms` is a generous upper estimate of how long
a scenario runs: the times it names, added up (the client's timeout twice: the
call's own deadline and the fresh cleanup deadline). Both read the scenario as
plain data, so they can judge one that is not valid yet.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["DEFAULT_CLIENT_TIMEOUT_MS", "MAX_RECORD_TOTAL_MS", "MAX_SCENARIO_MS", "MAX_SCENARIO_TOTAL_MS", "SLACK_S",
           "record_need_ms", "scenario_limit_s", "scenario_need_ms", "scenario_times"]

#: The largest time, in milliseconds, one value of a scenario may name.
MAX_SCENARIO_MS = 30_000
#: The largest :func:`scenario_need_ms` a scenario may have.
MAX_SCENARIO_TOTAL_MS = 60_000
#: The largest :func:`record_need_ms` a record may have: many scenarios, each within its bound, must not add up
#: to a proof run of hours.
MAX_RECORD_TOTAL_MS = 300_000
#: The client's timeout when a scenario's call names none.
DEFAULT_CLIENT_TIMEOUT_MS = 3000
#: What a proof gives a scenario beyond its own numbers: start-up, sockets, the server's teardown.
SLACK_S = 5.0

_CALL_TIMES = ("timeoutMs", "cancelAfterMs", "clientTimeoutMs")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)


def scenario_times(scenario: Mapping[str, Any]) -> Iterator[tuple[str, float]]:
    """Each time the scenario names: (its place as a path below the scenario, milliseconds)."""
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
        if not isinstance(program, Mapping):
            continue
        if (ms := _number(program.get("exitAtMs"))) is not None:
            yield f"server/programs/{number}/exitAtMs", ms
        output = program.get("output")
        for item_number, item in enumerate(output if isinstance(output, list) else ()):
            if isinstance(item, Mapping) and (ms := _number(item.get("atMs"))) is not None:
                yield f"server/programs/{number}/output/{item_number}/atMs", ms


def scenario_need_ms(scenario: Mapping[str, Any]) -> float:
    """An upper estimate of how long the scenario runs, in milliseconds (see the module's docstring)."""
    times = dict(scenario_times(scenario))
    client = times.get("call/clientTimeoutMs", DEFAULT_CLIENT_TIMEOUT_MS)
    stalls = sum(ms for place, ms in times.items() if place.startswith("server/faults/"))
    program = max((ms for place, ms in times.items() if place.startswith("server/programs/")), default=0.0)
    return 2 * client + times.get("call/timeoutMs", 0.0) + times.get("call/cancelAfterMs", 0.0) + stalls + program


def record_need_ms(scenarios: object) -> float:
    """What a record's scenarios need together (each at most the bound a proof lets it run)."""
    items = scenarios if isinstance(scenarios, list) else []
    return sum(min(scenario_need_ms(s), MAX_SCENARIO_TOTAL_MS) for s in items if isinstance(s, Mapping))


def scenario_limit_s(scenario: Mapping[str, Any]) -> float:
    """How long a proof lets the scenario run: what it needs (at most the bound) and :data:`SLACK_S` more."""
    return min(scenario_need_ms(scenario), MAX_SCENARIO_TOTAL_MS) / 1000 + SLACK_S
