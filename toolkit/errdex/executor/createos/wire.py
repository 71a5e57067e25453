"""HTTP/1.1 on a raw socket, with the deadline enforced on every socket operation.

One request per connection (``Connection: close``). Connecting, sending and
every read wait at most until the deadline, and at most 50 ms at a time when a
cancellation event can interrupt them. Transport problems (refused, reset,
premature close, malformed answer, redirect) raise :class:`TransportFailure`,
which on purpose carries no detail and no chained cause: the client reports
them as C2 without anything that could contain the URL.
"""

from __future__ import annotations

import errno
import selectors
import socket
import ssl
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from errdex.executor.createos.deadline import Deadline

__all__ = ["Endpoint", "Response", "TransportFailure", "send"]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_BODYLESS_STATUSES = frozenset({204, 205, 304})
_MAX_HEAD_BYTES = 65_536
_RECV_BYTES = 65_536


class TransportFailure(Exception):
    """The request failed below HTTP. Deliberately without details."""


@dataclass(frozen=True)
class Endpoint:
    """Where requests go: scheme, host, port and the base path of the API URL."""

    scheme: str
    host: str
    port: int
    base_path: str

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        """Split an ``http://`` or ``https://`` URL; raise ValueError for anything else."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise ValueError("The CreateOS API URL must be an http:// or https:// URL without query.")
        if parts.username or parts.password:
            raise ValueError("The CreateOS API URL must not contain credentials.")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return cls(parts.scheme, parts.hostname, port, parts.path.rstrip("/"))

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


class _Connection:
    """A connected socket whose every operation respects the deadline."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buffer = bytearray()

    def close(self) -> None:
        self.sock.close()

    def send_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            self.sock.settimeout(self.deadline.slice())
            failed = False
            try:
                sent = self.sock.send(view)
            except (TimeoutError, ssl.SSLWantWriteError, ssl.SSLWantReadError):
                continue
            except OSError:
                failed = True
            if failed:
                raise TransportFailure()
            view = view[sent:]

    def receive(self) -> bytes:
        """The next bytes from the socket; ``b""`` at a clean end of stream."""
        while True:
            self.sock.settimeout(self.deadline.slice())
            failed = False
            try:
                return self.sock.recv(_RECV_BYTES)
            except (TimeoutError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                continue
            except OSError:
                failed = True
            if failed:
                raise TransportFailure()

    def fill(self) -> None:
        """Read more into the buffer; a close here is premature."""
        data = self.receive()
        if not data:
            raise TransportFailure()
        self.buffer += data

    def read_line(self, limit: int = _MAX_HEAD_BYTES) -> bytes:
        while (end := self.buffer.find(b"\r\n")) < 0:
            if len(self.buffer) > limit:
                raise TransportFailure()
            self.fill()
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 2]
        return line

    def take(self, most: int) -> bytes:
        """Up to ``most`` bytes (at least one), from the buffer or the socket."""
        if not self.buffer:
            self.fill()
        piece = bytes(self.buffer[:most])
        del self.buffer[:most]
        return piece


class Response:
    """An HTTP answer whose body is read on demand; close it when done."""

    def __init__(self, connection: _Connection, status: int, headers: dict[str, str], has_body: bool) -> None:
        self._connection = connection
        self.status = status
        self.headers = headers
        self.has_body = has_body

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Response:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def read(self) -> bytes:
        """The whole body."""
        return b"".join(self.chunks())

    def chunks(self) -> Iterator[bytes]:
        """The body as it arrives. Raises TransportFailure when it is cut short."""
        if not self.has_body:
            return
        encoding = self.headers.get("transfer-encoding", "").lower()
        if encoding:
            if encoding.split(",")[-1].strip() != "chunked":
                raise TransportFailure()
            yield from self._chunked()
        elif "content-length" in self.headers:
            yield from self._sized(_content_length(self.headers["content-length"]))
        else:
            yield from self._until_close()

    def _sized(self, length: int) -> Iterator[bytes]:
        while length > 0:
            piece = self._connection.take(length)
            length -= len(piece)
            yield piece

    def _chunked(self) -> Iterator[bytes]:
        connection = self._connection
        while True:
            size_text = connection.read_line().split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                size = -1
            if size < 0:
                raise TransportFailure()
            if size == 0:
                while connection.read_line():  # trailer fields, up to the empty line
                    pass
                return
            yield from self._sized(size)
            if connection.read_line() != b"":
                raise TransportFailure()

    def _until_close(self) -> Iterator[bytes]:
        connection = self._connection
        if connection.buffer:
            yield bytes(connection.buffer)
            connection.buffer.clear()
        while data := connection.receive():
            yield data


def send(
    endpoint: Endpoint,
    method: str,
    target: str,
    *,
    headers: Mapping[str, str],
    body: bytes | None,
    deadline: Deadline,
) -> Response:
    """Send one request and read the answer's status and headers. Redirects fail, they are not followed."""
    sock = _connect(endpoint, deadline)
    connection = _Connection(sock, deadline)
    try:
        connection.send_all(_request_head(endpoint, method, target, headers, body) + (body or b""))
        status, response_headers = _read_head(connection)
        if status in REDIRECT_STATUSES and "location" in response_headers:
            raise TransportFailure()
        has_body = method != "HEAD" and status not in _BODYLESS_STATUSES
        return Response(connection, status, response_headers, has_body)
    except BaseException:
        connection.close()
        raise


def _request_head(endpoint: Endpoint, method: str, target: str, headers: Mapping[str, str],
                  body: bytes | None) -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {endpoint.host_header}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _read_head(connection: _Connection) -> tuple[int, dict[str, str]]:
    while True:
        status_line = connection.read_line()
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit() or len(parts[1]) != 3:
            raise TransportFailure()
        status = int(parts[1])
        headers: dict[str, str] = {}
        size = len(status_line)
        while line := connection.read_line():
            size += len(line)
            if size > _MAX_HEAD_BYTES or b":" not in line:
                raise TransportFailure()
            name, value = line.split(b":", 1)
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
        if not 100 <= status < 200:  # skip informational answers
            return status, headers


def _content_length(value: str) -> int:
    if not value.isdigit():
        raise TransportFailure()
    return int(value)


def _connect(endpoint: Endpoint, deadline: Deadline) -> socket.socket:
    deadline.check()
    try:
        addresses = socket.getaddrinfo(endpoint.host, endpoint.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        addresses = []
    for family, kind, proto, _, address in addresses:
        sock = socket.socket(family, kind, proto)
        try:
            connected = _connect_one(sock, address, deadline)
        except BaseException:
            sock.close()
            raise
        if connected:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return _wrap_tls(sock, endpoint, deadline) if endpoint.scheme == "https" else sock
        sock.close()
    raise TransportFailure()


def _connect_one(sock: socket.socket, address: tuple[Any, ...], deadline: Deadline) -> bool:
    sock.setblocking(False)
    code = sock.connect_ex(address)
    if code == 0:
        return True
    if code not in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EAGAIN):
        return False
    with selectors.DefaultSelector() as selector:
        selector.register(sock, selectors.EVENT_WRITE)
        while not selector.select(deadline.slice()):
            pass
    return sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0


def _wrap_tls(sock: socket.socket, endpoint: Endpoint, deadline: Deadline) -> socket.socket:
    context = ssl.create_default_context()
    try:
        tls = context.wrap_socket(sock, server_hostname=endpoint.host, do_handshake_on_connect=False)
    except OSError:
        tls = None
    if tls is None:
        sock.close()
        raise TransportFailure()
    try:
        while True:
            tls.settimeout(deadline.slice())
            try:
                tls.do_handshake()
                return tls
            except (TimeoutError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                continue
            except OSError:
                break
    except BaseException:
        tls.close()
        raise
    tls.close()
    raise TransportFailure()
