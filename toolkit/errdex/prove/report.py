"""The shapes of a proof run: one scenario's outcome, a record's scenarios, the record x scenario matrix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ProofReport", "RecordProof", "ScenarioProof"]


@dataclass
class ScenarioProof:
    """The outcome of running one scenario."""

    id: str
    passed: bool
    observed: dict[str, Any]
    failures: list[str] = field(default_factory=list)
    ledger: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "passed": self.passed,
            "observed": self.observed,
            "failures": self.failures,
            "ledger": self.ledger,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class RecordProof:
    """Every scenario of one record."""

    id: str
    slug: str
    path: str
    scenarios: list[ScenarioProof] = field(default_factory=list)
    problem: str | None = None

    @property
    def passed(self) -> bool:
        return self.problem is None and bool(self.scenarios) and all(s.passed for s in self.scenarios)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "slug": self.slug,
            "path": self.path,
            "passed": self.passed,
            "problem": self.problem,
            "scenarios": [s.as_dict() for s in self.scenarios],
        }


@dataclass
class ProofReport:
    """The record x scenario matrix of one proof run."""

    records: list[RecordProof] = field(default_factory=list)
    seconds: float = 0.0
    #: What killed runs had left and this run removed first (not part of the matrix: not in :meth:`as_dict`).
    leftovers: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(record.passed for record in self.records)

    def summary(self) -> dict[str, Any]:
        scenarios = [s for r in self.records for s in r.scenarios]
        return {
            "records": len(self.records),
            "recordsPassed": sum(r.passed for r in self.records),
            "recordsWithoutScenarios": sum(not r.scenarios for r in self.records),
            "scenarios": len(scenarios),
            "scenariosPassed": sum(s.passed for s in scenarios),
            "scenariosFailed": sum(not s.passed for s in scenarios),
            "seconds": round(self.seconds, 3),
            "passed": self.passed,
        }

    def as_dict(self) -> dict[str, Any]:
        return {"records": [r.as_dict() for r in self.records], "summary": self.summary()}


