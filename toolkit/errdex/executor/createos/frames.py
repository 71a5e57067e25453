"""NDJSON frames of a process output stream (E6, E7, E8)."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import Any

from errdex.executor.createos.client import ProcessOutput
from errdex.executor.createos.errors import CreateosError

__all__ = ["MAX_FRAME_CHARS", "iter_frames"]

MAX_FRAME_CHARS = 1_048_576


def iter_frames(output: ProcessOutput) -> Iterator[dict[str, Any]]:
    """The JSON objects of the stream, one per non-blank line, in order.

    A transport failure while reading raises C2 from :meth:`ProcessOutput.chunks`.
    """
    if not output.has_body:
        raise CreateosError("CreateOS returned an empty process stream.")
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending: list[str] = []
    pending_size = 0
    for chunk in output.chunks():
        *complete, rest = decoder.decode(chunk).split("\n")
        for piece in complete:
            line = "".join(pending) + piece
            pending, pending_size = [], 0
            if len(line) > MAX_FRAME_CHARS:
                raise CreateosError("CreateOS process frame is too large.")
            if frame := _parse(line):
                yield frame
        if rest:
            pending.append(rest)
            pending_size += len(rest)
            if pending_size > MAX_FRAME_CHARS:  # an unfinished line that is already too long
                raise CreateosError("CreateOS process frame is too large.")
    line = "".join(pending) + decoder.decode(b"", final=True)
    if len(line) > MAX_FRAME_CHARS:
        raise CreateosError("CreateOS process frame is too large.")
    if frame := _parse(line):
        yield frame


def _parse(line: str) -> dict[str, Any] | None:
    """The frame on ``line``; None for a blank line; E8 for anything but a JSON object."""
    if not line.strip():
        return None
    try:
        frame = json.loads(line, parse_constant=_reject_constant)
    except ValueError:
        frame = None
    if not isinstance(frame, dict):
        raise CreateosError("CreateOS returned an invalid process frame.")
    return frame


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
