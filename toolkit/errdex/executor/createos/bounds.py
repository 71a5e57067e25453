"""How long a proof lets a CreateOS scenario run.

The bounds a scenario's times keep to (:data:`MAX_SCENARIO_MS`, :data:`MAX_SCENARIO_TOTAL_MS`,
:data:`MAX_RECORD_TOTAL_MS`) and the estimate :func:`scenario_need_ms` are record data, kept in
:mod:`errdex.records.scenarios.createos` and re-exported here; this module adds what only a proof run needs:
the slack beyond a scenario's own numbers and the resulting time limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from errdex.records.scenarios.createos import (
    DEFAULT_CLIENT_TIMEOUT_MS,
    MAX_RECORD_TOTAL_MS,
    MAX_SCENARIO_MS,
    MAX_SCENARIO_TOTAL_MS,
    record_need_ms,
    scenario_need_ms,
    scenario_times,
)

__all__ = ["DEFAULT_CLIENT_TIMEOUT_MS", "MAX_RECORD_TOTAL_MS", "MAX_SCENARIO_MS", "MAX_SCENARIO_TOTAL_MS", "SLACK_S",
           "record_need_ms", "scenario_limit_s", "scenario_need_ms", "scenario_times"]

#: What a proof gives a scenario beyond its own numbers: start-up, sockets, the server's teardown.
SLACK_S = 5.0


def scenario_limit_s(scenario: Mapping[str, Any]) -> float:
    """How long a proof lets the scenario run: what it needs (at most the bound) and :data:`SLACK_S` more."""
    return min(scenario_need_ms(scenario), MAX_SCENARIO_TOTAL_MS) / 1000 + SLACK_S
