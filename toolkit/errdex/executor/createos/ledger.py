"""What the fake CreateOS server saw and did, for tests and proofs to state as facts.

Each request is recorded with its call name and outcome: ``answered`` (with
``status``), ``dropped`` (closed without an answer), ``reset`` (aborted with
a TCP reset), ``stalled`` (held, then answered or closed: see ``handled``) or
``streamed`` (an output stream, with how it ``ended``). Events record what
changed: ``process-created``, ``process-terminated``, ``stdin-closed``,
``file-written``, ``file-removed``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from errdex.records.scenarios.createos import CALLS

__all__ = ["Ledger"]


class _Process(Protocol):
    id: str
    sandbox_id: str
    cmd: str
    args: list[str]
    cwd: str | None
    stdin_closed: bool
    terminated_at: float | None

    @property
    def script(self) -> str | None: ...

    def exited(self, now: float) -> bool: ...

    def running(self, now: float) -> bool: ...


class Ledger:
    """A thread-safe record of requests, processes and staged files."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._events: list[dict[str, Any]] = []
        self._processes: list[_Process] = []
        self._files: dict[str, bool] = {}  # path -> still present

    # -- recording -----------------------------------------------------------

    def request(self, *, method: str, path: str, call: str | None, rule: int | None) -> int:
        """Record an incoming request; its index, for :meth:`settle`."""
        entry = {"method": method, "path": path, "call": call, "rule": rule, "outcome": None, "at": time.monotonic()}
        with self._lock:
            self._requests.append(entry)
            return len(self._requests) - 1

    def settle(self, index: int, outcome: str, **details: Any) -> None:
        """Record what happened to request ``index`` (outcome and e.g. ``status``, ``handled``, ``ended``)."""
        with self._lock:
            self._requests[index].update(outcome=outcome, **details)

    def event(self, kind: str, **details: Any) -> None:
        with self._lock:
            self._events.append({"event": kind, **details})
            if kind == "file-written":
                self._files[details["path"]] = True
            elif kind == "file-removed":
                self._files[details["path"]] = False

    def process_created(self, process: _Process) -> None:
        with self._lock:
            self._processes.append(process)
            self._events.append({"event": "process-created", "processId": process.id, "sandboxId": process.sandbox_id})

    # -- reading -------------------------------------------------------------

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request so far, oldest first (copies)."""
        with self._lock:
            return [dict(entry) for entry in self._requests]

    @property
    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(entry) for entry in self._events]

    def calls(self, call: str) -> list[dict[str, Any]]:
        """The requests of one call name, oldest first."""
        return [entry for entry in self.requests if entry["call"] == call]

    def processes(self) -> list[dict[str, Any]]:
        """Every process created, with the request that created it and its fate now."""
        now = time.monotonic()
        with self._lock:
            return [
                {
                    "id": process.id,
                    "sandboxId": process.sandbox_id,
                    "cmd": process.cmd,
                    "args": list(process.args),
                    "cwd": process.cwd,
                    "script": process.script,
                    "stdinClosed": process.stdin_closed,
                    "terminated": process.terminated_at is not None,
                    "exited": process.exited(now),
                    "running": process.running(now),
                }
                for process in self._processes
            ]

    def staged_files(self) -> dict[str, bool]:
        """Every path written with PUT files, and whether it is still there."""
        with self._lock:
            return dict(self._files)

    def facts(self) -> dict[str, Any]:
        """Counts a test or proof can state, as plain JSON-able data."""
        requests = self.requests
        processes = self.processes()
        counts: dict[str, int] = dict.fromkeys(CALLS, 0)
        outcomes = dict.fromkeys(("answered", "dropped", "reset", "stalled", "streamed"), 0)
        for entry in requests:
            key = entry["call"] or "unknown"
            counts[key] = counts.get(key, 0) + 1
            if entry["outcome"] is not None:
                outcomes[entry["outcome"]] += 1
        files = self.staged_files()
        events = self.events
        return {
            "requests": counts,
            "outcomes": outcomes,
            "processesCreated": len(processes),
            "processesTerminated": sum(process["terminated"] for process in processes),
            "processesExited": sum(process["exited"] for process in processes),
            "processesRunning": sum(process["running"] for process in processes),
            "stdinClosed": sum(process["stdinClosed"] for process in processes),
            "stagedFilesWritten": sum(event["event"] == "file-written" for event in events),
            "stagedFilesRemoved": sum(event["event"] == "file-removed" for event in events),
            "stagedFilesLeft": sum(files.values()),
        }
