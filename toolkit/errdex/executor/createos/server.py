"""A fake CreateOS API on 127.0.0.1: real HTTP/1.1 on a real socket, stateful, with planned faults.

Every fault happens on the wire (a dropped connection, a TCP reset, a stalled
answer, a stream cut short), so the client is tested as it would meet them.
See :mod:`~errdex.executor.createos.faults` for the plan vocabulary,
:mod:`~errdex.executor.createos.state` for process programs and
:mod:`~errdex.executor.createos.ledger` for what is recorded; the wire itself (routes, the request handler,
how each fault happens) is in :mod:`~errdex.executor.createos.routes` and
:mod:`~errdex.executor.createos.handler`.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from errdex._serving import RequestDeadlines
from errdex.executor.createos.faults import FaultPlan
from errdex.executor.createos.handler import Handler, Server
from errdex.executor.createos.ledger import Ledger
from errdex.executor.createos.routes import route
from errdex.executor.createos.state import FakeState

__all__ = ["FakeCreateos", "route", "serve"]

#: How long a connection may take to send its request (line, headers, body) before it is closed.
REQUEST_TIMEOUT_S = 10.0
#: Connections served at once; one more is answered 503 at once and closed.
MAX_CONNECTIONS = 64
#: The largest request body read (an upload, a JSON document); a longer one is answered 413 unread.
MAX_BODY_BYTES = 16 * 1024 * 1024


class FakeCreateos:
    """A stateful fake CreateOS server; use as a context manager or with start()/stop().

    ``sandboxes`` maps ids to a status or ``{"status", "pause", "resume"}``
    (transitions: "immediate" or the statuses successive reads report);
    ``programs`` are given to created processes in order, then
    ``default_program``; ``listen=False`` gives a URL whose port refuses
    connections; ``api_key`` makes requests without that ``X-Api-Key`` fail
    with HTTP 401. A connection must send its request within
    ``request_timeout_s``; at most ``max_connections`` are served at once
    (more get 503); a body over ``max_body_bytes`` gets 413 unread; a request
    that cannot be parsed gets 400. The server never prints a traceback.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        plan: Iterable[Mapping[str, Any]] | None = None,
        sandboxes: Mapping[str, str | Mapping[str, Any]] | None = None,
        programs: Iterable[Mapping[str, Any]] | None = None,
        default_program: Mapping[str, Any] | None = None,
        api_key: str | None = None,
        listen: bool = True,
        heartbeat_ms: int = 100,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        if not request_timeout_s > 0 or max_connections < 1 or max_body_bytes < 0:
            raise ValueError("request_timeout_s and max_connections must be positive, max_body_bytes not negative")
        self.host, self.port = host, port
        self.plan = FaultPlan(plan)
        self.ledger = Ledger()
        self.state = FakeState(sandboxes=sandboxes, programs=programs, default_program=default_program,
                               ledger=self.ledger)
        self.api_key = api_key
        self.listen = listen
        self.heartbeat_ms = heartbeat_ms
        self.request_timeout_s = request_timeout_s
        self.max_connections = max_connections
        self.max_body_bytes = max_body_bytes
        self.stopping = threading.Event()
        self.url = ""
        self._httpd: Server | None = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"FakeCreateos(url={self.url!r})"

    def start(self) -> FakeCreateos:
        """Bind and serve in a daemon thread; ``url`` is set afterwards."""
        if not self.listen:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.bind((self.host, self.port))
                port = probe.getsockname()[1]
            self.url = f"http://{self.host}:{port}"
            return self
        self._httpd = Server((self.host, self.port), Handler)
        self._httpd.fake = self
        self._httpd.slots = threading.BoundedSemaphore(self.max_connections)
        self._httpd.deadlines = RequestDeadlines()
        self.url = f"http://{self.host}:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; stalled requests and open streams end promptly."""
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeCreateos:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def facts(self) -> dict[str, Any]:
        """The ledger's facts (see :meth:`Ledger.facts`)."""
        return self.ledger.facts()


def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    plan: Iterable[Mapping[str, Any]] | None = None,
    sandboxes: Mapping[str, str | Mapping[str, Any]] | None = None,
    *,
    programs: Iterable[Mapping[str, Any]] | None = None,
    api_key: str | None = None,
    out: TextIO | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Run a fake CreateOS server until interrupted (Ctrl-C) or ``stop`` is set, printing its URL first."""
    fake = FakeCreateos(host=host, port=port, plan=plan, sandboxes=sandboxes, programs=programs, api_key=api_key)
    stop = stop or threading.Event()
    with fake:
        print(fake.url, file=out or sys.stdout, flush=True)
        try:
            while not stop.wait(0.2):
                pass
        except KeyboardInterrupt:
            pass
