"""Checks of a record's trigger scenarios (format version 3).

What a scenario may say is the vocabulary of the record's family: :mod:`errdex.records.scenarios.sshd` for the
sshd records (``openssh/openssh-portable``), :mod:`errdex.records.scenarios.createos` for every other; these
checks use them and import nothing from the executors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from errdex.checks.base import Check, Problem, RecordContext, register
from errdex.records.clauses import CLAUSE_FIELDS, clauses
from errdex.records.scenarios import sshd
from errdex.records.scenarios.createos import (
    MAX_RECORD_TOTAL_MS,
    MAX_SCENARIO_MS,
    MAX_SCENARIO_TOTAL_MS,
    check_server,
    fault_spec,
    record_need_ms,
    scenario_need_ms,
    scenario_times,
)


def _scenarios(ctx: RecordContext) -> list[tuple[int, dict[str, Any]]]:
    return [(i, s) for i, s in enumerate(ctx.items("scenarios") or ()) if isinstance(s, dict)]


def _is_sshd(ctx: RecordContext) -> bool:
    return ctx.text("repo") == sshd.FAMILY_REPO


def _sshd_vocabulary(ctx: RecordContext) -> Iterable[Problem]:
    for index, scenario in _scenarios(ctx):
        try:
            sshd.check_scenario(scenario)
        except ValueError as exc:
            yield Problem(f"scenarios/{index}", f"sshd scenario is not valid: {exc}")


def _sshd_bounds(ctx: RecordContext) -> Iterable[Problem]:
    for index, scenario in _scenarios(ctx):
        over = [(place, ms) for place, ms in sshd.scenario_times(scenario) if not 0 <= ms <= sshd.MAX_WAIT_MS]
        for place, ms in over:
            yield Problem(f"scenarios/{index}/{place}",
                          f"{ms:.0f} ms is outside 0-{sshd.MAX_WAIT_MS} ms, the longest an sshd scenario may wait")
        need = sshd.scenario_need_ms(scenario)
        if not over and need > sshd.MAX_SCENARIO_TOTAL_MS:
            yield Problem(f"scenarios/{index}", f"the scenario needs about {need:.0f} ms (start-up and each "
                                                f"authentication step counted), more than {sshd.MAX_SCENARIO_TOTAL_MS} "
                                                "ms; shorten its waits or steps")
    total = sshd.record_need_ms(ctx.items("scenarios"))
    if total > sshd.MAX_RECORD_TOTAL_MS:
        yield Problem("scenarios", f"the scenarios need about {total:.0f} ms together, more than the "
                                   f"{sshd.MAX_RECORD_TOTAL_MS} ms one sshd record's proof may take; use fewer")


@register
class ScenariosPresent(Check):
    code, name, severity = "EDX201", "scenarios-present", "warning"
    rule = "a version-3 record has scenarios (warning; error with `--strict`)"
    summary = "A version-3 record has trigger scenarios that prove it (a warning; an error with --strict)."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        version = ctx.integer("schemaVersion")
        if version is not None and version >= 3 and not ctx.items("scenarios"):
            yield Problem("scenarios",
                          "the record has no trigger scenarios; add at least one that errdex prove can run")


@register
class ScenarioIdUnique(Check):
    code, name = "EDX202", "scenario-id-unique"
    rule = "scenario ids are unique within the record"
    summary = "Scenario ids are unique within the record."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        seen: set[str] = set()
        for index, scenario in _scenarios(ctx):
            scenario_id = scenario.get("id")
            if isinstance(scenario_id, str):
                if scenario_id in seen:
                    yield Problem(f"scenarios/{index}/id", f"scenario id {scenario_id!r} is used twice; rename one")
                seen.add(scenario_id)


@register
class ScenarioVocabulary(Check):
    code, name = "EDX203", "scenario-vocabulary"
    rule = "faults, programs and sandboxes are valid for the reference executor"
    summary = "Scenario faults, programs and sandboxes are valid in the reference executor's vocabulary."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        if _is_sshd(ctx):
            yield from _sshd_vocabulary(ctx)
            return
        for index, scenario in _scenarios(ctx):
            server = scenario.get("server", {})
            if not isinstance(server, dict):
                continue
            for number, rule in enumerate(server.get("faults") or ()):
                if not isinstance(rule, dict):
                    continue
                try:
                    fault_spec(rule)
                except (ValueError, TypeError, KeyError) as exc:
                    yield Problem(f"scenarios/{index}/server/faults/{number}", f"fault rule is not valid: {exc}")
            try:
                check_server(server.get("sandboxes"), server.get("programs") or ())
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                yield Problem(f"scenarios/{index}/server", f"server set-up is not valid: {exc}")
            expect = scenario.get("expect")
            if isinstance(expect, dict) and expect.get("outcome") == "raises" and not expect.get("errorClass"):
                yield Problem(f"scenarios/{index}/expect", "a scenario that raises must name the errorClass it expects")


@register
class ScenarioCoverage(Check):
    code, name = "EDX204", "scenario-coverage"
    rule = "every clause of `triggerScenarios` and `commonSituations` is covered"
    summary = ("Every clause of triggerScenarios and commonSituations is covered by a scenario, "
               "and covers name real clauses.")

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        scenarios = _scenarios(ctx)
        if not scenarios:
            return
        counts = {name: len(clauses(ctx.text(name) or "")) for name in CLAUSE_FIELDS}
        covered: set[str] = set()
        for index, scenario in scenarios:
            for number, ref in enumerate(scenario.get("covers") or ()):
                if not isinstance(ref, str) or ":" not in ref:
                    continue
                name, _, position = ref.partition(":")
                if name in counts and position.isdigit() and not 1 <= int(position) <= counts[name]:
                    yield Problem(
                        f"scenarios/{index}/covers/{number}",
                        f"{ref} names no clause: {name} has {counts[name]} clause(s)",
                    )
                covered.add(ref)
        for name, count in counts.items():
            for number in range(1, count + 1):
                if f"{name}:{number}" not in covered:
                    clause = clauses(ctx.text(name) or "")[number - 1]
                    yield Problem(name,
                                  f"clause {number} of {name} ({clause[:60]!r}) is proved by no scenario; add one")


@register
class ScenarioBounds(Check):
    code, name = "EDX205", "scenario-bounds"
    rule = ("every time a scenario names (stall `ms`, `atMs`, `exitAtMs`, `timeoutMs`, `cancelAfterMs`, "
            "`clientTimeoutMs`) is at most 30,000 ms, together at most 60,000 ms, and a record's scenarios "
            "together at most 300,000 ms (`prove` refuses a record over it without running it)")
    summary = ("Every time a scenario names (stall ms, atMs, exitAtMs, timeouts) is within the executor's bound, "
               "and a record's scenarios together within the record's.")

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        if _is_sshd(ctx):
            yield from _sshd_bounds(ctx)
            return
        for index, scenario in _scenarios(ctx):
            over = [(place, ms) for place, ms in scenario_times(scenario) if not 0 <= ms <= MAX_SCENARIO_MS]
            for place, ms in over:
                yield Problem(f"scenarios/{index}/{place}",
                              f"{ms:.0f} ms is outside 0-{MAX_SCENARIO_MS} ms, the longest a scenario may wait; "
                              "a proof must end in seconds")
            need = scenario_need_ms(scenario)
            if not over and need > MAX_SCENARIO_TOTAL_MS:
                yield Problem(f"scenarios/{index}",
                              f"the scenario's times add up to {need:.0f} ms (the client's timeout counted twice, for "
                              f"the cleanup), more than {MAX_SCENARIO_TOTAL_MS} ms; shorten them")
        total = record_need_ms(ctx.items("scenarios"))
        if total > MAX_RECORD_TOTAL_MS:
            yield Problem("scenarios", f"the scenarios' times add up to {total:.0f} ms, more than the "
                                       f"{MAX_RECORD_TOTAL_MS} ms one record's proof may take; "
                                       "use fewer or shorter ones")
