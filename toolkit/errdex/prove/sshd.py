"""Proving sshd records: every scenario is run against Debian's real sshd and judged on the lines it writes.

A ``logged`` scenario passes when, among the log lines sshd wrote for the scenario's connection, one is
matched by the record's ``messagePattern`` with the expected captures (placeholders such as ``$user`` and
``$port`` replaced by the run's values; a ``null`` capture is not compared), errdex's matcher over the whole
family ranks this record first for that line, and no line is matched by a record named in ``notLogged``. A
``not-logged`` scenario passes when no line is matched by the record. Matching is errdex's own
(:class:`errdex.match.KnowledgeBase`), as ``errdex match`` does it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from errdex.errors import DataError, RecordNotFound
from errdex.executor.sshd import RunResult, SshdError, SshdSession, substitute
from errdex.match import KnowledgeBase, Match
from errdex.prove.report import ScenarioProof
from errdex.records.scenarios.sshd import (
    MAX_RECORD_TOTAL_MS,
    MAX_SCENARIO_TOTAL_MS,
    MAX_WAIT_MS,
    ExpectSpec,
    check_scenario,
    record_need_ms,
    scenario_need_ms,
    scenario_times,
)

__all__ = ["prove_scenario", "record_problem"]


def record_problem(scenarios: list[Any]) -> str | None:
    """Why an sshd record's scenarios are not run at all (their times add up beyond the bound), or None."""
    if (need := record_need_ms(scenarios)) > MAX_RECORD_TOTAL_MS:
        return (f"the scenarios' times add up to {need:.0f} ms, more than the {MAX_RECORD_TOTAL_MS} ms "
                "one sshd record's proof may take (EDX205); run 'errdex validate'")
    return None


def _refusal(raw: Mapping[str, Any]) -> str | None:
    """Why the scenario is not run: beyond the bounds or outside the vocabulary; None when it can run."""
    for place, ms in scenario_times(raw):
        if not 0 <= ms <= MAX_WAIT_MS:
            return f"not run: {place} is {ms:.0f} ms, outside 0-{MAX_WAIT_MS} ms (EDX205; run 'errdex validate')"
    if (need := scenario_need_ms(raw)) > MAX_SCENARIO_TOTAL_MS:
        return (f"not run: the scenario needs about {need:.0f} ms, more than {MAX_SCENARIO_TOTAL_MS} ms "
                "(EDX205; run 'errdex validate')")
    try:
        check_scenario(raw)
    except ValueError as exc:
        return f"invalid scenario: {exc} (EDX203; run 'errdex validate')"
    return None


def _ranked(family: KnowledgeBase, lines: Sequence[str]) -> list[tuple[str, list[Match]]]:
    return [(line, family.match(line)) for line in lines]


def _of(matches: list[Match], record_id: str) -> Match | None:
    return next((m for m in matches if m.view["id"] == record_id), None)


def _captures_agree(groups: Sequence[str | None], wanted: Sequence[str | None]) -> bool:
    return len(groups) == len(wanted) and all(w is None or g == w for g, w in zip(groups, wanted, strict=True))


def _judge(record: Mapping[str, Any], expect: ExpectSpec, ranked: list[tuple[str, list[Match]]],
           values: Mapping[str, str]) -> tuple[str | None, list[str]]:
    """The line that proves the record (or None) and the failures."""
    record_id = record["id"]
    hits = [(line, m, matches) for line, matches in ranked if (m := _of(matches, record_id)) is not None]
    failures: list[str] = []
    if expect.outcome == "not-logged":
        if hits:
            failures.append(f"sshd wrote a line the record's messagePattern matches, but must not: {hits[0][0]!r}")
        return (hits[0][0] if hits else None), failures
    if not hits:
        written = [line for line, _ in ranked] or ["nothing"]
        failures.append(f"no line sshd wrote is matched by the record's messagePattern; it wrote: {written}")
        return None, failures
    wanted = None if expect.captures is None else [None if c is None else substitute(c, values)
                                                   for c in expect.captures]
    agreeing = [hit for hit in hits if wanted is None or _captures_agree(hit[1].groups, wanted)]
    if not agreeing:
        failures.append(f"captured {list(hits[0][1].groups)} from {hits[0][0]!r}, expected {wanted}")
        return hits[0][0], failures
    line, _, matches = next((hit for hit in agreeing if hit[2][0].view["id"] == record_id), agreeing[0])
    if matches[0].view["id"] != record_id:
        failures.append(f"errdex match ranks {matches[0].view['slug']} ({matches[0].view['id']}) first for "
                        f"{line!r}, not this record")
    for other in expect.not_logged:
        silent = [seen for seen, found in ranked if _of(found, other) is not None]
        if silent:
            failures.append(f"sshd wrote a line of record {other} (notLogged): {silent[0]!r}")
    return line, failures


def prove_scenario(record: Mapping[str, Any], raw: Mapping[str, Any], *, session: SshdSession,
                   family: KnowledgeBase) -> ScenarioProof:
    """Run one scenario of an sshd record in ``session`` and judge sshd's lines against ``family``."""
    started = time.monotonic()
    scenario_id = str(raw["id"]) if isinstance(raw.get("id"), str) else "?"
    if (refused := _refusal(raw)) is not None:
        return ScenarioProof(scenario_id, False, {}, [refused])
    unknown = [other for other in check_scenario(raw)[2].not_logged if not _known(family, other)]
    if unknown:
        return ScenarioProof(scenario_id, False, {}, [f"notLogged names no record of the family: {unknown[0]}"])
    try:
        result: RunResult = session.run(raw)
    except SshdError as exc:
        return ScenarioProof(scenario_id, False, {}, [f"the sshd executor failed: {exc}"],
                             seconds=time.monotonic() - started)
    expect = check_scenario(raw)[2]
    line, failures = _judge(record, expect, _ranked(family, result.lines), result.values)
    observed = {
        "outcome": "logged" if line is not None else "not-logged",
        "line": line,
        "lines": result.lines,
        "port": result.client.port,
        "client": {"steps": result.client.steps, "error": result.client.error},
    }
    if not result.settled:
        observed["unsettled"] = "sshd had not finished the connection within the wait; the lines may be partial"
    return ScenarioProof(scenario_id, not failures, observed, failures, seconds=time.monotonic() - started)


def _known(family: KnowledgeBase, record_id: str) -> bool:
    try:
        family.position(record_id)
    except (RecordNotFound, DataError):  # absent, or a slug several records hold
        return False
    return True
