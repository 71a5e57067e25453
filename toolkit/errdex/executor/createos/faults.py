"""Fault plans for the fake CreateOS server: plain, JSON-able rules that decide how a call misbehaves.

A plan is a list of rules, each ``{"on": CALL, "action": ACTION, ...}`` with
optional ``"nth": N`` (only the Nth occurrence of that call, counting from 1)
or ``"times": N`` (the first N occurrences this rule sees); without either the
rule applies every time. The first rule that applies wins; calls no rule
applies to behave normally.

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

__all__ = ["ACTIONS", "CALLS", "FaultPlan", "FaultRule"]

CALLS = (
    "get-sandbox",
    "create-sandbox",
    "destroy-sandbox",
    "pause-sandbox",
    "resume-sandbox",
    "upload-file",
    "exec",
    "create-process",
    "close-stdin",
    "connect",
    "terminate",
)

# action -> (parameters it accepts, the only call it applies to or None)
ACTIONS: dict[str, tuple[frozenset[str], str | None]] = {
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
_RULE_KEYS = frozenset({"on", "action", "nth", "times"})


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
        """Validate one rule given as plain data; ValueError names what is wrong."""
        if not isinstance(data, Mapping):
            raise ValueError("a fault rule must be an object")
        call, action = data.get("on"), data.get("action")
        if call not in CALLS:
            raise ValueError(f"unknown call in fault rule: {call!r} (one of {', '.join(CALLS)})")
        if action not in ACTIONS:
            raise ValueError(f"unknown fault action: {action!r} (one of {', '.join(ACTIONS)})")
        accepted, only_for = ACTIONS[action]
        if only_for is not None and call != only_for:
            raise ValueError(f"fault action {action!r} applies only to {only_for!r}, not {call!r}")
        unknown = set(data) - _RULE_KEYS - accepted
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
        return cls(call, action, nth, times, params)

    def to_data(self) -> dict[str, Any]:
        """The rule as plain data, as it was given."""
        data: dict[str, Any] = {"on": self.on, "action": self.action}
        if self.nth is not None:
            data["nth"] = self.nth
        if self.times is not None:
            data["times"] = self.times
        return data | copy.deepcopy(self.params)

    def applies(self, occurrence: int) -> bool:
        if self.nth is not None:
            return occurrence == self.nth
        if self.times is not None:
            return self.fired < self.times
        return True


def _check_params(action: str, params: dict[str, Any]) -> None:
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


class FaultPlan:
    """The rules of a plan and how often each call has been seen; safe to use from many threads."""

    def __init__(self, rules: Iterable[Mapping[str, Any]] | None = None) -> None:
        self.rules = [FaultRule.from_data(rule) for rule in (rules or [])]
        self._seen = dict.fromkeys(CALLS, 0)
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
        return [rule.to_data() for rule in self.rules]
