"""Fault plans for the fake CreateOS server: plain, JSON-able rules that decide how a call misbehaves.

A plan is a list of rules, each ``{"on": CALL, "action": ACTION, ...}`` with
optional ``"nth": N`` (only the Nth occurrence of that call, counting from 1)
or ``"times": N`` (the first N occurrences this rule sees); without either the
rule applies every time. The first rule that applies wins; calls no rule
applies to behave normally. The calls, actions and their parameters are record
data, kept in :mod:`errdex.records.scenarios.createos`; this module adds the
live plan (how often each call was seen, which rule fired).

Actions and their parameters (``handle``: act on the request as a normal
server would, default false):

- ``respond``: ``status`` (default 200), ``body`` (JSON value) or ``bodyText``
  (raw text), ``headers`` (object; a ``Content-Length`` given here replaces
  the real one, to promise more than is sent), ``handle``.
- ``no-body``: ``status`` (default 204), ``handle``: status line and headers only.
- ``drop``: read the request, close the connection without an answer.
- ``drop-after-handling``: act on the request, then close without an answer.
- ``reset``: read the request, abort the connection (TCP reset) without an answer.
- ``stall``: ``ms`` (required), ``handle``: hold the request ``ms``
  milliseconds, then answer normally (``handle``) or close without an answer.
- ``stream`` (connect only): ``frames`` (list of frame objects sent as NDJSON
  lines, ``{"raw": text}`` or ``{"rawBytes64": base64}`` sent verbatim),
  ``then``: ``"end"`` (default) or ``"reset"``, ``status`` (default 200).
- ``replay`` (connect only): ``overlap`` (default 1): answer normally but
  start ``overlap`` frames before the client's cursor, as a server replaying.
- ``terminate-response`` (terminate only): ``data`` (object, required),
  ``handle``: answer success with that data.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from errdex.records.scenarios.createos import ACTIONS, CALLS, fault_spec

__all__ = ["ACTIONS", "CALLS", "FaultPlan", "FaultRule"]


@dataclass
class FaultRule:
    """One rule of a plan; ``params`` holds the action's parameters."""

    on: str
    action: str
    nth: int | None = None
    times: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    fired: int = 0

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> FaultRule:
        """Validate one rule given as plain data (the vocabulary's :func:`fault_spec`); ValueError names what is
        wrong."""
        spec = fault_spec(data)
        return cls(spec.on, spec.action, spec.nth, spec.times, spec.params)

    def to_data(self) -> dict[str, Any]:
        """The rule as plain data, as it was given."""
        data: dict[str, Any] = {"on": self.on, "action": self.action}
        if self.nth is not None:
            data["nth"] = self.nth
        if self.times is not None:
            data["times"] = self.times
        return data | copy.deepcopy(self.params)

    def applies(self, occurrence: int) -> bool:
        """Whether the rule applies to the ``occurrence``-th call it is asked about (counting from 1)."""
        if self.nth is not None:
            return occurrence == self.nth
        if self.times is not None:
            return self.fired < self.times
        return True


class FaultPlan:
    """The rules of a plan and how often each call has been seen; safe to use from many threads."""

    def __init__(self, rules: Iterable[Mapping[str, Any]] | None = None) -> None:
        self.rules = [FaultRule.from_data(rule) for rule in (rules or [])]
        self._seen: dict[str, int] = dict.fromkeys(CALLS, 0)
        self._lock = threading.Lock()

    def match(self, call: str) -> tuple[int, FaultRule] | None:
        """Count one occurrence of ``call``; the (index, rule) that applies to it, if any."""
        with self._lock:
            self._seen[call] += 1
            for index, rule in enumerate(self.rules):
                if rule.on == call and rule.applies(self._seen[call]):
                    rule.fired += 1
                    return index, rule
        return None

    def to_data(self) -> list[dict[str, Any]]:
        """The plan as plain data, as it was given."""
        return [rule.to_data() for rule in self.rules]
