"""Reading CreateOS answers: the JSON envelope (C3-C5), identifiers (C6) and C1's operation label."""

from __future__ import annotations

import json
import re
from typing import Any, TypeGuard

from errdex.executor.createos.errors import CreateosError

__all__ = ["is_resource_id", "operation_for", "parse_envelope", "require_object", "require_resource_id"]

_RESOURCE_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


def operation_for(path: str) -> str:
    """C1's operation label for an API path (without ``/v1``): the first rule that applies."""
    if "/files?" in path:
        return "file transfer"
    if "/stdin/close" in path:
        return "stdin close"
    if "/connect?" in path:
        return "output connection"
    if path.endswith("/processes"):
        return "process creation"
    if "/processes/" in path:
        return "process cleanup"
    if path.endswith("/exec"):
        return "workspace command"
    return "sandbox lifecycle"


def is_resource_id(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a sandbox or process identifier: ``^[A-Za-z0-9_-]{1,200}$``."""
    return isinstance(value, str) and _RESOURCE_ID.fullmatch(value) is not None


def require_resource_id(value: object) -> str:
    """``value`` if it is an identifier, else C6."""
    if not is_resource_id(value):
        raise CreateosError("CreateOS returned an invalid resource ID.")
    return value


def require_object(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else C5."""
    if not isinstance(value, dict):
        raise CreateosError("CreateOS returned an invalid response.")
    return value


def parse_envelope(body: bytes) -> dict[str, Any]:
    """The ``data`` object of a ``{"status": "success", "data": {...}}`` answer (C3, C4, C5)."""
    envelope = _json_object(body)
    if envelope is None:
        raise CreateosError("CreateOS returned invalid JSON.")
    if envelope.get("status") != "success":
        raise CreateosError("CreateOS returned an unsuccessful response.")
    return require_object(envelope.get("data"))


def _json_object(body: bytes) -> dict[str, Any] | None:
    # Like fetch's response.json(): UTF-8 with replacement, a leading BOM dropped, strict JSON. Nesting deeper than
    # Python's parser recurses (a hostile answer of 100,000 brackets) counts as invalid JSON rather than a crash.
    try:
        value = json.loads(body.decode("utf-8-sig", errors="replace"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
