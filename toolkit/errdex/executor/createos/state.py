"""The state behind the fake CreateOS server: sandboxes, processes, staged files.

Processes run a *program* given as plain data instead of the script::

    {"output": [{"stream": "stdout", "text": "hi\\n", "atMs": 0},
                {"stream": "stderr", "base64": "..."}],
     "exit": {"exit_code": 0} | {"signal": "SIGKILL"} | null,   # null: keeps running
     "exitAtMs": 0}                                           # default: the last output's atMs

Output becomes data frames numbered from 1, visible from ``atMs`` after the
process was created. A process that keeps running does so until terminated.
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from errdex.executor.createos.ledger import Ledger
from errdex.records.scenarios.createos import (
    DEFAULT_SANDBOXES,
    SANDBOX_STATES,
    check_program,
    sandbox_spec,
)

__all__ = ["SANDBOX_STATES", "FakeProcess", "FakeSandbox", "FakeState", "Reply"]

_DEFAULT_PROGRAM: dict[str, Any] = {"output": [], "exit": {"exit_code": 0}}
_PROCESS_KEYS = frozenset({"cmd", "args", "cwd"})  # what a create-process request may hold


@dataclass(frozen=True)
class Reply:
    """A JSON answer: status and envelope."""

    status: int
    body: Any

    @classmethod
    def ok(cls, data: Any) -> Reply:
        return cls(200, {"status": "success", "data": data})

    @classmethod
    def fail(cls, status: int, message: str) -> Reply:
        return cls(status, {"status": "error", "error": {"message": message}})


@dataclass
class FakeSandbox:
    """A sandbox; ``pause``/``resume`` list the statuses successive reads report after that call (None: at once)."""

    id: str
    status: str
    pause: list[str] | None = None
    resume: list[str] | None = None
    upcoming: deque[str] = field(default_factory=deque)

    def read_status(self) -> str:
        return self.upcoming.popleft() if self.upcoming else self.status

    def transition(self, statuses: list[str]) -> None:
        self.status = statuses[-1]
        self.upcoming = deque(statuses)


@dataclass
class FakeProcess:
    """A managed process: its request, its frames (offset in seconds, frame) and its fate."""

    id: str
    sandbox_id: str
    cmd: str
    args: list[str]
    cwd: str | None
    created_at: float
    frames: list[tuple[float, dict[str, Any]]]
    exit_frame: dict[str, Any] | None
    exit_after: float
    stdin_closed: bool = False
    terminated_at: float | None = None

    @property
    def script(self) -> str | None:
        """The bash script, for ``/bin/bash -lc SCRIPT``."""
        return self.args[1] if len(self.args) >= 2 and self.args[0] == "-lc" else None

    def exited(self, now: float) -> bool:
        if self.exit_frame is None:
            return False
        exits_at = self.created_at + self.exit_after
        return now >= exits_at and (self.terminated_at is None or self.terminated_at >= exits_at)

    def running(self, now: float) -> bool:
        return self.terminated_at is None and not self.exited(now)

    def visible_frames(self, after: int, now: float) -> list[dict[str, Any]]:
        """Data frames with seq > ``after`` that the process has written by ``now``."""
        horizon = now if self.terminated_at is None else min(now, self.terminated_at)
        return [frame for offset, frame in self.frames[after:] if self.created_at + offset <= horizon]


def _program_frames(
    program: Mapping[str, Any],
) -> tuple[list[tuple[float, dict[str, Any]]], dict[str, Any] | None, float]:
    """The frames, exit frame and exit offset of a program; ValueError when it is malformed."""
    check_program(program)
    items = program.get("output", [])
    frames = []
    for seq, item in enumerate(items, start=1):
        if "base64" in item:
            encoded = item["base64"]
        else:
            encoded = base64.b64encode(str(item.get("text", "")).encode("utf-8")).decode("ascii")
        frame = {"type": "data", "seq": seq, "stream": item.get("stream", "stdout"), "data_base64": encoded}
        frames.append((item.get("atMs", 0) / 1000, frame))
    exit_status = program.get("exit", {"exit_code": 0})
    exit_frame = None if exit_status is None else {"type": "exit", **exit_status}
    last_output = max((offset for offset, _ in frames), default=0.0)
    exit_after = program["exitAtMs"] / 1000 if "exitAtMs" in program else last_output
    return frames, exit_frame, exit_after


class FakeState:
    """Everything the fake server knows, behind one lock; every change is written to the ledger."""

    def __init__(
        self,
        *,
        sandboxes: Mapping[str, str | Mapping[str, Any]] | None = None,
        programs: Iterable[Mapping[str, Any]] | None = None,
        default_program: Mapping[str, Any] | None = None,
        ledger: Ledger,
    ) -> None:
        self.lock = threading.Lock()
        self.ledger = ledger
        self.sandboxes: dict[str, FakeSandbox] = {}
        self.processes: dict[str, FakeProcess] = {}
        self.files: dict[str, bytes] = {}
        self.programs = deque(json.loads(json.dumps(list(programs or []))))
        self.default_program = dict(default_program or _DEFAULT_PROGRAM)
        for program in [*self.programs, self.default_program]:
            _program_frames(program)
        self._ids = itertools.count(1)
        for sandbox_id, spec in (sandboxes if sandboxes is not None else DEFAULT_SANDBOXES).items():
            self.sandboxes[sandbox_id] = _sandbox_from(sandbox_id, spec)

    # -- sandboxes -----------------------------------------------------------

    def get_sandbox(self, sandbox_id: str) -> Reply:
        with self.lock:
            sandbox = self.sandboxes.get(sandbox_id)
            if sandbox is None:
                return Reply.fail(404, "sandbox not found")
            return Reply.ok({"id": sandbox.id, "status": sandbox.read_status()})

    def create_sandbox(self, body: Any) -> Reply:
        if not isinstance(body, dict):
            return Reply.fail(400, "expected a JSON object")
        with self.lock:
            sandbox = FakeSandbox(f"sbx-new-{next(self._ids)}", "running")
            self.sandboxes[sandbox.id] = sandbox
            return Reply.ok({"id": sandbox.id, "status": sandbox.status})

    def destroy_sandbox(self, sandbox_id: str) -> Reply:
        with self.lock:
            sandbox = self.sandboxes.get(sandbox_id)
            if sandbox is None or sandbox.status == "destroyed":
                return Reply.fail(404, "sandbox not found")
            sandbox.status, sandbox.upcoming = "destroyed", deque()
            return Reply.ok({"id": sandbox_id, "status": "destroyed"})

    def change_sandbox(self, sandbox_id: str, action: str) -> Reply:
        """``pause`` (from running) or ``resume`` (from paused or error); 409 from any other state."""
        allowed, final = ({"running"}, "paused") if action == "pause" else ({"paused", "error"}, "running")
        with self.lock:
            sandbox = self.sandboxes.get(sandbox_id)
            if sandbox is None:
                return Reply.fail(404, "sandbox not found")
            if sandbox.status not in allowed:
                return Reply.fail(409, f"cannot {action} a sandbox that is {sandbox.status}")
            statuses = getattr(sandbox, action)
            if statuses:
                sandbox.transition(statuses)
            else:
                sandbox.status, sandbox.upcoming = final, deque()
            return Reply.ok({"id": sandbox_id, "status": sandbox.status})

    # -- files and one-shot commands ---------------------------------------

    def upload_file(self, sandbox_id: str, path: str | None, data: bytes) -> Reply:
        if not path:
            return Reply.fail(400, "path is required")
        with self.lock:
            if sandbox_id not in self.sandboxes:
                return Reply.fail(404, "sandbox not found")
            self.files[path] = data
            self.ledger.event("file-written", path=path, size=len(data))
            return Reply.ok({"path": path, "size": len(data)})

    def exec(self, sandbox_id: str, body: Any) -> Reply:
        if not (isinstance(body, dict) and isinstance(body.get("cmd"), str) and _strings(body.get("args", []))):
            return Reply.fail(400, "expected {cmd, args}")
        with self.lock:
            if sandbox_id not in self.sandboxes:
                return Reply.fail(404, "sandbox not found")
            args = body.get("args", [])
            if body["cmd"] == "/bin/rm" and args[:1] == ["-f"] and "--" in args:
                for path in args[args.index("--") + 1 :]:
                    if self.files.pop(path, None) is not None:
                        self.ledger.event("file-removed", path=path)
            return Reply.ok({"result": {"exit_code": 0, "stdout": "", "stderr": ""}})

    # -- managed processes ---------------------------------------------------

    def create_process(self, sandbox_id: str, body: Any) -> Reply:
        valid = (
            isinstance(body, dict)
            and set(body) <= _PROCESS_KEYS
            and isinstance(body.get("cmd"), str)
            and _strings(body.get("args", []))
            and isinstance(body.get("cwd", ""), str)
        )
        if not valid:
            return Reply.fail(400, "expected only cmd, args and cwd")
        with self.lock:
            if sandbox_id not in self.sandboxes:
                return Reply.fail(404, "sandbox not found")
            program = self.programs.popleft() if self.programs else self.default_program
            frames, exit_frame, exit_after = _program_frames(program)
            process = FakeProcess(
                id=f"proc-{next(self._ids)}",
                sandbox_id=sandbox_id,
                cmd=body["cmd"],
                args=list(body.get("args", [])),
                cwd=body.get("cwd"),
                created_at=time.monotonic(),
                frames=frames,
                exit_frame=exit_frame,
                exit_after=exit_after,
            )
            self.processes[process.id] = process
            self.ledger.process_created(process)
            return Reply.ok({"process_id": process.id})

    def find_process(self, sandbox_id: str, process_id: str) -> FakeProcess | None:
        with self.lock:
            process = self.processes.get(process_id)
            return process if process is not None and process.sandbox_id == sandbox_id else None

    def close_stdin(self, sandbox_id: str, process_id: str) -> Reply:
        process = self.find_process(sandbox_id, process_id)
        if process is None:
            return Reply.fail(404, "process not found")
        with self.lock:
            if process.stdin_closed:
                return Reply.fail(409, "stdin already closed")
            process.stdin_closed = True
            self.ledger.event("stdin-closed", processId=process_id)
            return Reply.ok({})

    def terminate(self, sandbox_id: str, process_id: str) -> Reply:
        process = self.find_process(sandbox_id, process_id)
        if process is None:
            return Reply.fail(404, "process not found")
        with self.lock:
            if process.terminated_at is None:
                process.terminated_at = time.monotonic()
                self.ledger.event("process-terminated", processId=process_id)
            return Reply.ok({"tree_exited": True})

    def snapshot(self, process: FakeProcess, after: int) -> tuple[list[dict[str, Any]], dict[str, Any] | None, bool]:
        """For a connected stream: new data frames, the exit frame if it has exited, whether it was terminated."""
        with self.lock:
            now = time.monotonic()
            frames = process.visible_frames(after, now)
            exited = process.exited(now)
            return frames, process.exit_frame if exited else None, process.terminated_at is not None and not exited


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _sandbox_from(sandbox_id: str, spec: str | Mapping[str, Any]) -> FakeSandbox:
    checked = sandbox_spec(sandbox_id, spec)
    return FakeSandbox(sandbox_id, checked.status, pause=checked.pause, resume=checked.resume)
