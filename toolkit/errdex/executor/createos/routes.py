"""The routes of the fake CreateOS API: which call a request's method and path make."""

from __future__ import annotations

import re

__all__ = ["ROUTES", "route"]

_ID = r"(?P<sandbox>[^/]+)"
_PID = r"(?P<process>[^/]+)"
#: (method, path pattern, call name), one per call of the vocabulary.
ROUTES = [
    ("POST", re.compile(r"/v1/sandboxes"), "create-sandbox"),
    ("GET", re.compile(rf"/v1/sandboxes/{_ID}"), "get-sandbox"),
    ("DELETE", re.compile(rf"/v1/sandboxes/{_ID}"), "destroy-sandbox"),
    ("POST", re.compile(rf"/v1/sandboxes/{_ID}/pause"), "pause-sandbox"),
    ("POST", re.compile(rf"/v1/sandboxes/{_ID}/resume"), "resume-sandbox"),
    ("PUT", re.compile(rf"/v1/sandboxes/{_ID}/files"), "upload-file"),
    ("POST", re.compile(rf"/v1/sandboxes/{_ID}/exec"), "exec"),
    ("POST", re.compile(rf"/v1/sandboxes/{_ID}/processes"), "create-process"),
    ("POST", re.compile(rf"/v1/sandboxes/{_ID}/processes/{_PID}/stdin/close"), "close-stdin"),
    ("GET", re.compile(rf"/v1/sandboxes/{_ID}/processes/{_PID}/connect"), "connect"),
    ("DELETE", re.compile(rf"/v1/sandboxes/{_ID}/processes/{_PID}"), "terminate"),
]


def route(method: str, path: str) -> tuple[str | None, dict[str, str]]:
    """The call name and identifiers of a request path (without query); (None, {}) when unknown."""
    for route_method, pattern, call in ROUTES:
        if method == route_method and (found := pattern.fullmatch(path)):
            return call, found.groupdict()
    return None, {}
