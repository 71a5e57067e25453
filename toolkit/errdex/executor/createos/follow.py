"""Following a process's output until its exit frame (step 6 of execute: E4, E5, E9-E15)."""

from __future__ import annotations

import base64
import binascii
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from errdex.executor.createos.client import CreateosClient
from errdex.executor.createos.deadline import Deadline
from errdex.executor.createos.errors import (
    CreateosApiError,
    CreateosConnectionError,
    CreateosError,
)
from errdex.executor.createos.frames import iter_frames
from errdex.executor.createos.output import OutputTail

__all__ = ["MAX_RECONNECTS", "FrameReader", "ProcessExit", "follow_output"]

MAX_RECONNECTS = 3
_SIGNAL = re.compile(r"SIG[A-Z0-9]+")
_CANONICAL_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")

LogCallback = Callable[[str, str], None]


@dataclass(frozen=True)
class ProcessExit:
    """How the process ended: an exit code, a signal name, or (rarely) both."""

    exit_code: int | None
    signal: str | None


class FrameReader:
    """Applies frames in order: the cursor, replay skipping, decoding into the outputs, the log callback."""

    def __init__(self, outputs: dict[str, OutputTail], on_log: LogCallback | None = None) -> None:
        self.outputs = outputs
        self.on_log = on_log
        self.cursor = 0

    def accept(self, frame: dict[str, Any]) -> ProcessExit | None:
        """Apply one frame; the exit status when it is the exit frame."""
        kind = frame.get("type")
        if kind == "heartbeat":
            return None
        if kind == "data":
            self._accept_data(frame)
            return None
        if kind == "exit":
            return _exit_status(frame)
        if kind == "error":
            if frame.get("error") == "output_offset_expired":
                raise CreateosError("CreateOS process output was evicted before it could be read.")
            raise CreateosError("CreateOS process stream reported an error.")
        raise CreateosError("CreateOS returned an unknown process event.")

    def _accept_data(self, frame: dict[str, Any]) -> None:
        seq = frame.get("seq")
        if not _is_integer(seq) or seq < 1:
            raise CreateosError("CreateOS process sequence is invalid.")
        if seq <= self.cursor:
            return  # replayed after a reconnect
        if seq != self.cursor + 1:
            raise CreateosError("CreateOS process output has a sequence gap.")
        stream, encoded = frame.get("stream"), frame.get("data_base64")
        if not (isinstance(stream, str) and stream in self.outputs and isinstance(encoded, str)
                and _is_canonical_base64(encoded)):
            raise CreateosError("CreateOS process output is invalid.")
        self.cursor = int(seq)
        text = self.outputs[stream].feed(base64.b64decode(encoded))
        if text and self.on_log is not None:
            self.on_log(stream, text)


def follow_output(
    client: CreateosClient,
    sandbox_id: str,
    process_id: str,
    reader: FrameReader,
    *,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
) -> ProcessExit:
    """Read the output stream until the exit frame, reconnecting from the cursor at most three times in all."""
    reconnects = 0
    while True:
        output = None
        try:
            output = client.connect_process(
                sandbox_id, process_id, after=reader.cursor, deadline=deadline, cancel=cancel
            )
        except CreateosApiError as error:
            if error.status == 410:
                raise CreateosError("CreateOS process output was evicted before it could be read.") from error
            if error.status < 500 and error.status != 429:
                raise
        except CreateosConnectionError:
            pass
        if output is None:
            reconnects += 1
            if reconnects > MAX_RECONNECTS:
                raise CreateosError("CreateOS process output connection failed.")
        else:
            with output:
                try:
                    for frame in iter_frames(output):
                        if (status := reader.accept(frame)) is not None:
                            return status
                except CreateosConnectionError:
                    pass  # reset or premature close: not fatal, reconnect from the cursor
            reconnects += 1  # the stream ended without an exit frame
            if reconnects > MAX_RECONNECTS:
                raise CreateosError("CreateOS process stream ended without an exit status.")
        Deadline(deadline, cancel).sleep(client.reconnect_delay_ms / 1000)


def _exit_status(frame: dict[str, Any]) -> ProcessExit:
    code, signal = frame.get("exit_code"), frame.get("signal")
    exit_code = int(code) if _is_integer(code) else None
    signal_name = signal if isinstance(signal, str) and _SIGNAL.fullmatch(signal) else None
    if exit_code is None and signal_name is None:
        raise CreateosError("CreateOS process exit status is missing.")
    return ProcessExit(exit_code, signal_name)


def _is_integer(value: object) -> TypeGuard[int | float]:
    """Like JavaScript's Number.isInteger for a parsed JSON value (1.0 counts, true does not)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_canonical_base64(text: str) -> bool:
    if not _CANONICAL_BASE64.fullmatch(text):
        return False
    try:
        return base64.b64encode(base64.b64decode(text)).decode("ascii") == text
    except (binascii.Error, ValueError):
        return False
