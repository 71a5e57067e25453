"""Builders for frames, programs and plans used by the executor tests."""

from __future__ import annotations

import base64
from typing import Any

KEY = "sk-live-SECRET-7f3a9c"
SANDBOX = "sbx-1"
RUNNING: dict[str, Any] = {"output": [], "exit": None}


def b64(payload: bytes | str) -> str:
    raw = payload.encode("utf-8") if isinstance(payload, str) else payload
    return base64.b64encode(raw).decode("ascii")


def data(seq: int, payload: bytes | str, stream: str = "stdout") -> dict[str, Any]:
    """A data frame as the server would send it."""
    return {"type": "data", "seq": seq, "stream": stream, "data_base64": b64(payload)}


def output(payload: bytes | str, stream: str = "stdout", at_ms: int = 0) -> dict[str, Any]:
    """One item of a process program's output."""
    return {"stream": stream, "base64": b64(payload), "atMs": at_ms}


def program(*items: dict[str, Any], exit: dict[str, Any] | None = None, running: bool = False) -> dict[str, Any]:
    return {"output": list(items), "exit": None if running else (exit or {"exit_code": 0})}


def stream(*frames: dict[str, Any], then: str = "end", **rule: Any) -> dict[str, Any]:
    """A connect rule that answers with these frames."""
    return {"on": "connect", "action": "stream", "frames": list(frames), "then": then, **rule}
