"""Scenario vocabularies: what a record's trigger scenarios may say, one module per executor family.

A scenario names a call of an executor and how a fake server misbehaves. The words it may use (calls, fault
actions and their parameters, sandbox states, the time bounds a proof keeps to) are record data, so they live
here, in the record layer: the schema models, the checks (EDX203, EDX205) and the executor itself import them
from one place, and the checks need nothing from :mod:`errdex.executor`.

Each family is a module beside :mod:`~errdex.records.scenarios.createos` that holds its names as data and the
pure validation of the plain-data parts a scenario gives (no sockets, no threads, no clocks).
"""

from __future__ import annotations

__all__: list[str] = []
