"""Running one command in a CreateOS sandbox as a managed process (E16, E17, E18 and steps 1-8)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from errdex.executor.createos.client import CreateosClient
from errdex.executor.createos.errors import (
    CreateosApiError,
    CreateosCancelledError,
    CreateosCleanupError,
    CreateosError,
    CreateosTimeoutError,
)
from errdex.executor.createos.follow import (
    FrameReader,
    LogCallback,
    ProcessExit,
    follow_output,
)
from errdex.executor.createos.output import OutputTail
from errdex.executor.createos.responses import require_resource_id
from errdex.executor.createos.script import build_script

__all__ = ["STDIN_PATH_PREFIX", "ExecuteResult", "SandboxLease", "execute"]

STDIN_PATH_PREFIX = "/tmp/paperclip-stdin-"
TERMINATE_GRACE_MS = 1000


class SandboxLease(Protocol):
    """Anything that names the sandbox a command runs in."""

    sandbox_id: str


@dataclass(frozen=True)
class ExecuteResult:
    """What a command produced: its exit status (None on timeout), its output and the process id."""

    exit_code: int | None
    signal: str | None
    timed_out: bool
    stdout: str
    stderr: str
    process_id: str | None
    output_truncated: bool


def execute(
    client: CreateosClient,
    lease: str | SandboxLease,
    command: str,
    *,
    args: Sequence[str] = (),
    cwd: str | None = None,
    env: Mapping[str, object] | None = None,  # a scenario's JSON: build_script refuses a value that is not text
    stdin: str | bytes | None = None,
    timeout_ms: int | None = None,
    cancel: threading.Event | None = None,
    on_log: LogCallback | None = None,
) -> ExecuteResult:
    """Run ``command`` with ``args`` in the lease's sandbox and wait for it, as the upstream provider does.

    A timeout returns the partial output with ``timed_out=True``; every other
    failure raises. Whatever happens, a process that may still run is
    terminated afterwards with a deadline of its own.
    """
    sandbox_id = require_resource_id(lease if isinstance(lease, str) else lease.sandbox_id)
    stdin_path = f"{STDIN_PATH_PREFIX}{uuid.uuid4()}" if stdin is not None else None
    script = build_script(command, tuple(args), cwd=cwd, env=env, stdin_path=stdin_path)
    stdin_data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
    run = _Run(client, sandbox_id, deadline=deadline, cancel=cancel, on_log=on_log)
    return run.run(script, cwd=cwd or None, stdin_data=stdin_data, stdin_path=stdin_path)


class _Run:
    """The state of one execute() call, as steps 2-8 update it."""

    def __init__(
        self,
        client: CreateosClient,
        sandbox_id: str,
        *,
        deadline: float | None,
        cancel: threading.Event | None,
        on_log: LogCallback | None,
    ) -> None:
        self.client = client
        self.sandbox_id = sandbox_id
        self.deadline = deadline
        self.cancel = cancel
        self.on_log = on_log
        self.outputs = {"stdout": OutputTail(), "stderr": OutputTail()}
        self.creation_may_have_succeeded = False
        self.process_id: str | None = None
        self.exit_seen = False
        self.staged_path: str | None = None

    def run(self, script: str, *, cwd: str | None, stdin_data: bytes | None, stdin_path: str | None) -> ExecuteResult:
        result: ExecuteResult | None = None
        failure: BaseException | None = None
        try:
            result = self._perform(script, cwd, stdin_data, stdin_path)
        except Exception as error:  # step 7 decides what each failure becomes
            result, failure = self._settle(error)
        except BaseException:  # an interrupt: still clean up, then let it through
            self._clean_up()
            raise
        cleanup_failure = self._clean_up()
        if cleanup_failure is not None:
            raise cleanup_failure
        if failure is not None:
            raise failure
        assert result is not None
        return result

    def _perform(self, script: str, cwd: str | None, stdin_data: bytes | None, stdin_path: str | None) -> ExecuteResult:
        client, sandbox_id = self.client, self.sandbox_id
        if stdin_path is not None and stdin_data is not None:
            self.staged_path = stdin_path
            client.upload_file(sandbox_id, stdin_path, stdin_data, deadline=self.deadline, cancel=self.cancel)
        self.creation_may_have_succeeded = True
        try:
            process_id = client.create_process(
                sandbox_id, cmd="/bin/bash", args=["-lc", script], cwd=cwd, deadline=self.deadline, cancel=self.cancel
            )
        except CreateosApiError as error:
            if error.status < 500:  # the server definitely refused
                self.creation_may_have_succeeded = False
            raise
        self.process_id = process_id
        client.close_stdin(sandbox_id, process_id, deadline=self.deadline, cancel=self.cancel)
        reader = FrameReader(self.outputs, self.on_log)
        status = follow_output(client, sandbox_id, process_id, reader, deadline=self.deadline, cancel=self.cancel)
        self.exit_seen = True
        return self._result(status, timed_out=False)

    def _settle(self, error: Exception) -> tuple[ExecuteResult | None, BaseException | None]:
        """Step 7: the result or error that a failure becomes."""
        if self.creation_may_have_succeeded and self.process_id is None:
            unconfirmed = CreateosCleanupError(
                "CreateOS process creation could not be confirmed; destroy the lease before reusing it."
            )
            unconfirmed.__cause__ = error
            return None, unconfirmed
        if isinstance(error, CreateosTimeoutError):
            return self._result(ProcessExit(None, None), timed_out=True), None
        if isinstance(error, CreateosCancelledError) or (self.cancel is not None and self.cancel.is_set()):
            cancelled = CreateosError("CreateOS command was cancelled.")
            cancelled.__cause__ = error
            return None, cancelled
        return None, error

    def _clean_up(self) -> CreateosCleanupError | None:
        """Step 8, with a fresh deadline: terminate a process that may still run, remove staged stdin."""
        deadline = time.monotonic() + self.client.timeout_ms / 1000
        failure = None
        if self.process_id is not None and not self.exit_seen:
            confirmed = False
            cause: BaseException | None = None  # what left the termination unconfirmed
            try:
                answer = self.client.terminate_process(
                    self.sandbox_id, self.process_id, grace_ms=TERMINATE_GRACE_MS, deadline=deadline
                )
                confirmed = answer.get("tree_exited") is True
            except CreateosApiError as error:
                confirmed, cause = error.status == 404, error
            except Exception as error:
                cause = error
            if not confirmed:
                failure = CreateosCleanupError("CreateOS command cleanup failed; process termination is unconfirmed.")
                failure.__cause__ = cause
        if self.staged_path is not None:
            try:
                self.client.exec(self.sandbox_id, "/bin/rm", ["-f", "--", self.staged_path], deadline=deadline)
            except Exception:
                pass  # a stale stdin file is harmless; the upstream ignores this failure too
        return failure

    def _result(self, status: ProcessExit, *, timed_out: bool) -> ExecuteResult:
        for stream, output in self.outputs.items():
            tail = output.flush()
            if tail and self.on_log is not None:
                self.on_log(stream, tail)
        stdout, stderr = self.outputs["stdout"], self.outputs["stderr"]
        return ExecuteResult(
            exit_code=status.exit_code,
            signal=status.signal,
            timed_out=timed_out,
            stdout=stdout.text,
            stderr=stderr.text,
            process_id=self.process_id,
            output_truncated=stdout.truncated or stderr.truncated,
        )
