"""What errdex's local HTTP servers share: a deadline for a client to send its whole request.

A socket timeout bounds each read, not the request: a client that sends one
byte a second ("slowloris") never trips it and holds its connection, and a
server's thread, for as long as it likes. :class:`RequestDeadlines` closes
a connection for reading when its request has not arrived in time, which
ends the handler's blocked read at once. It needs no thread of its own: the
server's loop calls :meth:`RequestDeadlines.expire_due` (from
``service_actions``, run after every poll of ``serve_forever``).
"""

from __future__ import annotations

import socket
import threading
import time

__all__ = ["RequestDeadlines"]


class RequestDeadlines:
    """The connections still sending their request, and when each must be done."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._due: dict[int, tuple[float, socket.socket]] = {}

    def add(self, connection: socket.socket, seconds: float) -> None:
        with self._lock:
            self._due[id(connection)] = (time.monotonic() + seconds, connection)

    def met(self, connection: socket.socket) -> None:
        """The connection's request has been read (or the connection is done): no deadline any more."""
        with self._lock:
            self._due.pop(id(connection), None)

    def expire_due(self) -> None:
        """Shut down every connection whose request is late."""
        now = time.monotonic()
        with self._lock:
            late = [key for key, (when, _) in self._due.items() if when <= now]
            connections = [self._due.pop(key)[1] for key in late]
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
