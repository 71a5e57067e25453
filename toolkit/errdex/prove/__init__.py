"""Proving records: every trigger scenario is run by the executor of the record's family and judged.

The family is the record's repository: sshd records (``openssh/openssh-portable``) are run against Debian's
real sshd (:mod:`errdex.prove.sshd`), every other record against a fresh fake CreateOS server
(:mod:`errdex.prove.createos`). :func:`prove` runs them all and returns the record x scenario matrix.
:func:`cleanup` removes what a killed run left (an sshd, the test account, folders); :func:`prove` does it first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import re2

from errdex._stopping import stop_on_signals
from errdex.errors import RecordNotFound, UsageError
from errdex.executor.sshd import Leftovers, SshdError, SshdSession, remove_leftovers
from errdex.match import KnowledgeBase
from errdex.patterns import PatternSyntaxError, to_re2
from errdex.patterns.re2_options import re2_options
from errdex.prove import createos, sshd
from errdex.prove.report import ProofReport, RecordProof, ScenarioProof
from errdex.records.loader import LoadedRecord, load_records
from errdex.records.scenarios.sshd import is_family

__all__ = ["Leftovers", "ProofReport", "RecordProof", "ScenarioProof", "cleanup", "pattern_problem", "prove",
           "prove_scenario"]


def cleanup() -> Leftovers:
    """Remove what killed proof runs left: each sshd, test account and folder a run's lease names and that can
    be proved that run's, once the run's process is gone; a run still going is left alone. Needs root (only root
    can have run the sshd proofs): :class:`~errdex.executor.sshd.SshdUnavailable` otherwise."""
    return remove_leftovers()


def pattern_problem(pattern: str) -> str | None:
    """Why the record's messagePattern cannot judge what was observed, or None when it can."""
    try:
        re2.compile(to_re2(pattern), re2_options())
    except (PatternSyntaxError, ValueError, re2.error) as exc:
        return f"messagePattern cannot be compiled ({exc}); run 'errdex validate'"
    return None


def prove_scenario(record: dict[str, Any], raw: dict[str, Any], *, timeout: float | None = None,
                   session: SshdSession | None = None, family: Sequence[dict[str, Any]] | None = None
                   ) -> ScenarioProof:
    """Run one scenario of a record with its family's executor and judge what was observed.

    CreateOS: against a fresh fake server; a scenario still running after ``timeout`` seconds (default: what
    its own times need) has failed. sshd: in ``session`` (default: a session of its own, stopped after), judged
    against ``family``, the records the matcher ranks among (default: the record alone).
    """
    if not is_family(record):
        return createos.prove_scenario(record, raw, timeout=timeout)
    knowledge = KnowledgeBase(list(family) if family is not None else [record])
    if session is not None:
        return sshd.prove_scenario(record, raw, session=session, family=knowledge)
    try:
        with SshdSession() as own:
            return sshd.prove_scenario(record, raw, session=own, family=knowledge)
    except SshdError as exc:
        scenario_id = str(raw["id"]) if isinstance(raw.get("id"), str) else "?"
        return ScenarioProof(scenario_id, False, {}, [f"not run: {exc}"])


class _SshdRun:
    """The sshd side of one proof run: the family's knowledge base and one session, opened when first needed."""

    def __init__(self, records: list[LoadedRecord]) -> None:
        self.family = [item.record for item in records if is_family(item.record)]
        self.knowledge: KnowledgeBase | None = None
        self.session: SshdSession | None = None
        self.unavailable: str | None = None

    def open(self) -> SshdSession | None:
        if self.session is None and self.unavailable is None:
            session = SshdSession()
            try:
                session.__enter__()
            except SshdError as exc:
                session.close()
                self.unavailable = f"not run: {exc}"
                return None
            self.session = session
            self.knowledge = KnowledgeBase(self.family)
        return self.session

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


def _prove_record(record: dict[str, Any], proof: RecordProof, timeout: float | None, run: _SshdRun) -> None:
    scenarios = record.get("scenarios")
    family = sshd if is_family(record) else createos
    if (problem := pattern_problem(record["messagePattern"])) is not None:
        proof.problem = problem
    elif not isinstance(scenarios, list) or not scenarios:
        proof.problem = "the record has no scenarios"
    elif (problem := family.record_problem(scenarios)) is not None:
        proof.problem = problem
    elif family is createos:
        proof.scenarios = [
            createos.prove_scenario(record, raw, timeout=timeout) if isinstance(raw, dict)
            else ScenarioProof("?", False, {}, ["not an object"])
            for raw in scenarios
        ]
    elif (session := run.open()) is None:
        proof.problem = run.unavailable
    else:
        assert run.knowledge is not None  # opened with the session
        proof.scenarios = [
            sshd.prove_scenario(record, raw, session=session, family=run.knowledge) if isinstance(raw, dict)
            else ScenarioProof("?", False, {}, ["not an object"])
            for raw in scenarios
        ]


def prove(paths: Sequence[str | Path] | None = None, *, only: Sequence[str] | None = None,
          timeout: float | None = None) -> ProofReport:
    """Prove every scenario of every record (``only``: record ids or slugs to keep).

    ``timeout``: seconds each CreateOS scenario may run (default: what its own times need and a few seconds
    more); sshd scenarios are bounded by their own waits.
    """
    if timeout is not None and not 0 < timeout < float("inf"):
        raise UsageError(f"timeout must be a positive number of seconds, not {timeout!r}")
    started = time.monotonic()
    report = ProofReport()
    with stop_on_signals():  # SIGTERM, SIGHUP: an exception, so that the run's servers and account are removed
        if os.geteuid() == 0:  # only root can have made an sshd and an account; anyone else has nothing to remove
            report.leftovers = cleanup().removed
        wanted = set(only or ())
        loaded = list(load_records(paths))  # the loader every command uses: what validate refuses, prove refuses
        run = _SshdRun(loaded)
        try:
            for item in loaded:
                record = item.record
                record_id, slug = record["id"], record["slug"]
                if wanted and record_id not in wanted and slug not in wanted:
                    continue
                proof = RecordProof(record_id, slug, item.path)
                _prove_record(record, proof, timeout, run)
                report.records.append(proof)
        finally:
            run.close()
    if wanted:
        found = {r.id for r in report.records} | {r.slug for r in report.records}
        missing = sorted(wanted - found)
        if missing:
            raise RecordNotFound(f"no record with id or slug {missing[0]!r}")
    report.seconds = time.monotonic() - started
    return report
