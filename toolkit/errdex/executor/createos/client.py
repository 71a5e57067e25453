"""The CreateOS HTTP client: one method per API call, errors C1-C8."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import quote

from errdex.errors import UsageError
from errdex.executor.createos.deadline import Deadline
from errdex.executor.createos.errors import (
    CreateosApiError,
    CreateosConnectionError,
    CreateosError,
)
from errdex.executor.createos.pacing import wait_for_turn
from errdex.executor.createos.responses import (
    operation_for,
    parse_envelope,
    require_resource_id,
)
from errdex.executor.createos.wire import Endpoint, Response, TransportFailure, send

__all__ = ["CreateosClient", "ProcessOutput"]

_T = TypeVar("_T")
_TRANSITIONAL_STATES = frozenset({"creating", "pausing", "resuming"})
_USER_AGENT = "errdex-createos-executor"


class _Secret:
    """A value that never shows itself in a repr."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<hidden>"


def _transport(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """Call ``function``; a transport failure becomes C2 with no cause attached."""
    try:
        return function(*args, **kwargs)
    except TransportFailure:
        pass
    raise CreateosConnectionError()


class ProcessOutput:
    """The answer to ``connect``: the NDJSON output stream of a process, read as bytes."""

    def __init__(self, response: Response) -> None:
        self._response = response
        self.status = response.status
        self.has_body = response.has_body

    def chunks(self) -> Iterator[bytes]:
        """The stream's bytes as they arrive; a reset or premature close raises C2."""
        iterator = self._response.chunks()
        while True:
            try:
                chunk = next(iterator)
            except StopIteration:
                return
            except TransportFailure:
                break
            yield chunk
        raise CreateosConnectionError()

    def close(self) -> None:
        self._response.close()

    def __enter__(self) -> ProcessOutput:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class CreateosClient:
    """A client for the CreateOS API at ``api_url`` (default ``$CREATEOS_API_URL``).

    The key (default ``$CREATEOS_API_KEY``) is sent as ``X-Api-Key`` and never
    shown. Every method takes keyword-only ``deadline`` (a ``time.monotonic()``
    instant; default: ``timeout_ms`` from the start of the request) and
    ``cancel`` (a :class:`threading.Event` that abandons the request).
    """

    def __init__(
        self,
        api_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout_ms: int = 300_000,
        pace_ms: int = 300,
        poll_interval_ms: int = 250,
        reconnect_delay_ms: int = 250,
    ) -> None:
        url = api_url if api_url is not None else os.environ.get("CREATEOS_API_URL", "")
        key = api_key if api_key is not None else os.environ.get("CREATEOS_API_KEY", "")
        if not url:
            raise UsageError("The CreateOS API URL is not configured: pass api_url or set CREATEOS_API_URL.")
        if not key:
            raise UsageError("The CreateOS API key is not configured: pass api_key or set CREATEOS_API_KEY.")
        if any(character in key for character in "\r\n\0"):
            raise UsageError("The CreateOS API key contains a line break or NUL.")
        if timeout_ms <= 0 or min(pace_ms, poll_interval_ms, reconnect_delay_ms) < 0:
            raise UsageError("CreateOS client intervals must be positive (timeout) or zero or more.")
        self.api_url = url.rstrip("/")
        try:
            self._endpoint = Endpoint.parse(self.api_url)
        except ValueError as error:
            raise UsageError(str(error)) from None
        self._api_key = _Secret(key)
        self.timeout_ms = timeout_ms
        self.pace_ms = pace_ms
        self.poll_interval_ms = poll_interval_ms
        self.reconnect_delay_ms = reconnect_delay_ms

    def __repr__(self) -> str:
        return f"CreateosClient(api_url={self.api_url!r}, timeout_ms={self.timeout_ms}, pace_ms={self.pace_ms})"

    # -- sandboxes -----------------------------------------------------------

    def get_sandbox(
        self, sandbox_id: str, *, deadline: float | None = None, cancel: threading.Event | None = None
    ) -> dict[str, Any]:
        """The sandbox's data (``id``, ``status``, ...); C7 when it names another id or has no string status."""
        sandbox_id = require_resource_id(sandbox_id)
        data = self._call("GET", f"/sandboxes/{sandbox_id}", deadline=self._deadline(deadline, cancel))
        if data.get("id") != sandbox_id or not isinstance(data.get("status"), str):
            raise CreateosError("CreateOS sandbox identity or state is invalid.")
        return data

    def create_sandbox(
        self, *, deadline: float | None = None, cancel: threading.Event | None = None, **fields: Any
    ) -> dict[str, Any]:
        """Create a sandbox from ``fields``; its data, with a valid ``id``."""
        data = self._call("POST", "/sandboxes", json_body=fields, deadline=self._deadline(deadline, cancel))
        require_resource_id(data.get("id"))
        return data

    def destroy_sandbox(
        self, sandbox_id: str, *, deadline: float | None = None, cancel: threading.Event | None = None
    ) -> None:
        """Destroy the sandbox; one that is already gone (HTTP 404) is fine."""
        sandbox_id = require_resource_id(sandbox_id)
        self._call("DELETE", f"/sandboxes/{sandbox_id}", deadline=self._deadline(deadline, cancel), tolerate={404})

    def pause_sandbox(
        self, sandbox_id: str, *, deadline: float | None = None, cancel: threading.Event | None = None
    ) -> dict[str, Any]:
        """Pause the sandbox and wait until it reads ``paused`` (C8 otherwise); its data."""
        return self._reach(sandbox_id, "paused", "pause", {"running"}, self._deadline(deadline, cancel))

    def resume_sandbox(
        self, sandbox_id: str, *, deadline: float | None = None, cancel: threading.Event | None = None
    ) -> dict[str, Any]:
        """Resume the sandbox and wait until it reads ``running`` (C8 otherwise); its data."""
        return self._reach(sandbox_id, "running", "resume", {"paused", "error"}, self._deadline(deadline, cancel))

    def _reach(
        self, sandbox_id: str, wanted: str, action: str, submit_from: set[str], deadline: Deadline
    ) -> dict[str, Any]:
        sandbox_id = require_resource_id(sandbox_id)
        submitted = False
        while True:
            sandbox = self.get_sandbox(sandbox_id, deadline=deadline.at, cancel=deadline.cancel)
            status = sandbox["status"]
            if status == wanted:
                return sandbox
            if not submitted and status in submit_from:
                # 409: a transition is already under way; the next read reconciles it.
                self._call("POST", f"/sandboxes/{sandbox_id}/{action}", json_body=None, deadline=deadline,
                           tolerate={409})
                submitted = True
            elif status not in _TRANSITIONAL_STATES:
                raise CreateosError(f"CreateOS sandbox did not reach {wanted}.")
            deadline.sleep(self.poll_interval_ms / 1000)

    # -- files and one-shot commands ---------------------------------------

    def upload_file(
        self,
        sandbox_id: str,
        path: str,
        data: bytes,
        *,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """Write ``data`` to ``path`` in the sandbox; any 2xx answer is success."""
        sandbox_id = require_resource_id(sandbox_id)
        target = f"/sandboxes/{sandbox_id}/files?path={quote(path, safe='')}"
        response = self._send(
            "PUT", target, body=bytes(data), content_type="application/octet-stream",
            deadline=self._deadline(deadline, cancel),
        )
        if response is not None:
            response.close()

    def exec(
        self,
        sandbox_id: str,
        cmd: str,
        args: Sequence[str] = (),
        *,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> Any:
        """Run a one-shot command; the answer's ``data.result``."""
        sandbox_id = require_resource_id(sandbox_id)
        body = {"cmd": cmd, "args": list(args)}
        data = self._call("POST", f"/sandboxes/{sandbox_id}/exec", json_body=body,
                          deadline=self._deadline(deadline, cancel))
        return data.get("result")

    # -- managed processes ---------------------------------------------------

    def create_process(
        self,
        sandbox_id: str,
        *,
        cmd: str,
        args: Sequence[str],
        cwd: str | None = None,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> str:
        """Start a managed process; its id (C6 when the answer's id is not an identifier)."""
        sandbox_id = require_resource_id(sandbox_id)
        body: dict[str, Any] = {"cmd": cmd, "args": list(args)}
        if cwd is not None:
            body["cwd"] = cwd
        data = self._call(
            "POST", f"/sandboxes/{sandbox_id}/processes", json_body=body, deadline=self._deadline(deadline, cancel)
        )
        return require_resource_id(data.get("process_id"))

    def close_stdin(
        self,
        sandbox_id: str,
        process_id: str,
        *,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """Close the process's input; already closed (HTTP 409) is fine."""
        path = f"{self._process_path(sandbox_id, process_id)}/stdin/close"
        self._call("POST", path, json_body=None, deadline=self._deadline(deadline, cancel), tolerate={409})

    def connect_process(
        self,
        sandbox_id: str,
        process_id: str,
        *,
        after: int = 0,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> ProcessOutput:
        """Open the process's output stream from sequence number ``after``; close it when done."""
        path = f"{self._process_path(sandbox_id, process_id)}/connect?after={int(after)}"
        response = self._send("GET", path, accept="application/x-ndjson", deadline=self._deadline(deadline, cancel))
        assert response is not None
        return ProcessOutput(response)

    def terminate_process(
        self,
        sandbox_id: str,
        process_id: str,
        *,
        grace_ms: int = 1000,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        """Terminate the process tree; the answer's data (``tree_exited``)."""
        path = f"{self._process_path(sandbox_id, process_id)}?grace_ms={int(grace_ms)}"
        return self._call("DELETE", path, deadline=self._deadline(deadline, cancel))

    # -- plumbing ------------------------------------------------------------

    @staticmethod
    def _process_path(sandbox_id: str, process_id: str) -> str:
        return f"/sandboxes/{require_resource_id(sandbox_id)}/processes/{require_resource_id(process_id)}"

    def _deadline(self, deadline: float | None, cancel: threading.Event | None) -> Deadline:
        return Deadline(time.monotonic() + self.timeout_ms / 1000 if deadline is None else deadline, cancel)

    def _call(
        self,
        method: str,
        path: str,
        *,
        deadline: Deadline,
        json_body: Any = ...,
        tolerate: set[int] | frozenset[int] = frozenset(),
    ) -> Any:
        """Send a request and return its envelope's data (None for a tolerated status).

        ``json_body``: ``...`` sends no body, None an empty one, anything else as JSON.
        """
        if json_body is ...:
            body, content_type = None, None
        elif json_body is None:
            body, content_type = b"", None
        else:
            body, content_type = json.dumps(json_body).encode("utf-8"), "application/json"
        response = self._send(method, path, body=body, content_type=content_type, deadline=deadline, tolerate=tolerate)
        if response is None:
            return None
        with response:
            raw = _transport(response.read)
        return parse_envelope(raw)

    def _send(
        self,
        method: str,
        path: str,
        *,
        deadline: Deadline,
        body: bytes | None = None,
        content_type: str | None = None,
        accept: str = "application/json",
        tolerate: set[int] | frozenset[int] = frozenset(),
    ) -> Response | None:
        """Send one paced request to ``{api_url}/v1{path}``; None for a tolerated status, C1 for another non-2xx."""
        wait_for_turn(self.api_url, self.pace_ms, deadline)
        headers = {"X-Api-Key": self._api_key.value, "Accept": accept, "User-Agent": _USER_AGENT}
        if content_type is not None:
            headers["Content-Type"] = content_type
        target = f"{self._endpoint.base_path}/v1{path}"
        response = _transport(send, self._endpoint, method, target, headers=headers, body=body, deadline=deadline)
        if response.status in tolerate:
            response.close()
            return None
        if not 200 <= response.status < 300:
            response.close()
            raise CreateosApiError(response.status, operation_for(path))
        return response
