"""``errdex site serve``: a built site over HTTP on 127.0.0.1 (modules and fetch need HTTP, not file://).

The server holds up to :data:`MAX_CONNECTIONS` connections at once, one
thread each; a connection beyond that is answered 503 at once. A client that
sends nothing for :data:`TIMEOUT` seconds, or has not sent its whole request
within :data:`TIMEOUT` seconds however it trickles it, is dropped. A request path that is
not clean (bad percent-encoding, not UTF-8, a NUL or other control
character, a ``..`` segment) is answered 400, an overlong one 414, one that
leads out of the folder (through a symbolic link) or to a hidden file (a
segment starting with ``.``: ``.git``, ``.env``, the build's marker) 404;
none prints more than nothing at all. No folder is listed (one is served by
its ``index.html``, else 404), only regular files are served (a FIFO is 404,
never waited on), and any method but GET and HEAD is answered 405. A request naming another host than
the loopback one it listens on (``Host: evil.example``, as a web page that
rebinds its name to 127.0.0.1 sends) is answered 421: a page on the web
cannot read the site, or the folder it is served from, through the
visitor's browser.
"""

from __future__ import annotations

import functools
import os
import re
import socket
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from errdex._serving import RequestDeadlines
from errdex.errors import InputError, from_oserror

__all__ = ["MAX_CONNECTIONS", "MAX_PATH", "TIMEOUT", "SiteServer", "running_site", "serve_site"]

#: Connections served at once (one thread each).
MAX_CONNECTIONS = 64
#: Seconds a connection may stay silent before it is dropped.
TIMEOUT = 10.0
#: The longest request path served (the site's own are far shorter).
MAX_PATH = 2048
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: The largest 404.html sent as the answer to a missing path (a larger one is not the site's own).
_MAX_ERROR_PAGE = 1 << 20
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: The host names a request may give (with any port): the loopback the server listens on.
_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
_BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain\r\n"
         b"Content-Length: 19\r\nConnection: close\r\n\r\nServer too busy.\r\n\r\n")


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012  (the base class declares a plain attribute: a ClassVar may not override it)
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".json": "application/json",
        ".wasm": "application/wasm",
        ".pf_meta": "application/octet-stream",
    }

    server: SiteServer

    def setup(self) -> None:
        # for every read and write of this connection, and for the whole request however slowly it trickles in
        self.timeout = self.server.timeout_seconds  # type: ignore[misc]  # typeshed: a ClassVar; read per instance
        self.server.deadlines.add(self.request, self.timeout)
        super().setup()

    def finish(self) -> None:
        self.server.deadlines.met(self.request)
        super().finish()

    def version_string(self) -> str:
        return "errdex"  # not Python's version: nothing a client needs

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the command prints its address
        pass

    def _refusal(self) -> tuple[HTTPStatus, str | None] | None:
        """Why the request path is not served, or None when it is clean."""
        raw = urlsplit(self.path).path if self.path.startswith("/") else None
        if raw is None:
            return HTTPStatus.BAD_REQUEST, "the path must start with /"
        if len(raw) > MAX_PATH:
            return HTTPStatus.REQUEST_URI_TOO_LONG, f"paths are at most {MAX_PATH} characters"
        if _BAD_ESCAPE.search(raw):
            return HTTPStatus.BAD_REQUEST, "bad percent-encoding"
        try:
            path = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            return HTTPStatus.BAD_REQUEST, "the path is not UTF-8"
        if _CONTROL.search(path):
            return HTTPStatus.BAD_REQUEST, "control character in the path"
        segments = path.replace("\\", "/").split("/")
        if ".." in segments:
            return HTTPStatus.BAD_REQUEST, "'..' in the path"
        host = self.headers.get("Host")
        if host is not None and _host_name(host) not in _LOCAL_HOSTS:
            return HTTPStatus.MISDIRECTED_REQUEST, "this server answers for 127.0.0.1 and localhost only"
        if any(segment.startswith(".") for segment in segments):
            return HTTPStatus.NOT_FOUND, None
        root = os.path.realpath(self.directory)
        target = os.path.realpath(self.translate_path(self.path))
        if target != root and not target.startswith(root + os.sep):
            return HTTPStatus.NOT_FOUND, None
        return None

    def parse_request(self) -> bool:
        """The request line and headers; a method other than GET and HEAD is answered 405 here."""
        if not super().parse_request():
            return False
        if self.command in ("GET", "HEAD"):
            return True
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")  # a body it may have sent is never read
        self.end_headers()
        return False

    def send_head(self) -> Any:
        """The headers of the file the path names, and the file open for reading; None when answered already.

        A folder is served by its ``index.html`` (without the final ``/``: redirected to it, as relative links
        need), and is never listed: a folder without one is 404, as is anything but a regular file inside
        the site (a FIFO, a device, a link out of the folder). A Range header is ignored (the whole file, 200).
        """
        self.server.deadlines.met(self.request)  # the request line and headers are in
        refusal = self._refusal()
        if refusal is not None:
            self.send_error(refusal[0], refusal[1])
            return None
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
            if not urlsplit(self.path).path.endswith("/") and self._served(path) is not None:
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", urlsplit(self.path).path + "/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
        file = self._served(path) if not path.endswith("/") else None  # "/index.html/" names no file
        if file is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return None
        try:
            info = os.fstat(file.fileno())
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Length", str(info.st_size))
            self.send_header("Last-Modified", self.date_time_string(int(info.st_mtime)))
            self.send_header("Accept-Ranges", "none")
            self.end_headers()
        except BaseException:
            file.close()
            raise
        return file

    def _served(self, path: str) -> Any:
        """``path`` open for reading when it is a regular file inside the site folder, else None. It is opened
        without blocking (a FIFO with no writer held the thread for good) and without following a link in its
        last step (one put there after the check), then checked for what it is."""
        root = os.path.realpath(self.directory)
        real = os.path.realpath(path)
        if not real.startswith(root + os.sep):
            return None
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError:
            regular = False
        if not regular:
            os.close(fd)
            return None
        return os.fdopen(fd, "rb")

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        """Never: a folder's names (hidden ones, links) are not for the web."""
        self.send_error(HTTPStatus.NOT_FOUND)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = self._served(os.path.join(self.directory, "404.html")) if code == 404 else None
        if page is not None:
            with page:
                body = page.read(_MAX_ERROR_PAGE + 1)
            if len(body) <= _MAX_ERROR_PAGE:
                self.send_response(404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                return
        super().send_error(code, message, explain)


def _host_name(host: str) -> str:
    """The name in a Host header, without its port, lowercased."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if ":" in host else host


class SiteServer(ThreadingHTTPServer):
    """Serves one built site folder, to a bounded number of clients at a time."""

    daemon_threads = True
    request_queue_size = 256  # a burst of connections waits in the kernel to be answered (or refused), not dropped

    def __init__(self, folder: Path, port: int = 8000, host: str = "127.0.0.1", *,
                 max_connections: int = MAX_CONNECTIONS, timeout: float = TIMEOUT) -> None:
        if not folder.is_dir():
            raise InputError(f"{folder}: no such folder (build a site there with 'errdex site build --out {folder}')")
        if not (folder / "index.html").is_file():
            raise InputError(f"{folder}: no built site here (run 'errdex site build --out {folder}')")
        self.timeout_seconds = timeout
        self.deadlines = RequestDeadlines()
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__((host, port), functools.partial(_Handler, directory=str(folder)))

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host if isinstance(host, str) else host.decode()}:{port}/"

    def service_actions(self) -> None:
        super().service_actions()
        self.deadlines.expire_due()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self._busy(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread to be had: this connection only is lost
            self._slots.release()
            self.shutdown_request(request)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def _busy(self, request: socket.socket) -> None:
        try:
            request.setblocking(False)
            request.send(_BUSY)
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed unexpectedly: one line on stderr, no traceback; the server goes on."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        text = _CONTROL.sub("?", f"{type(error).__name__}: {error}")
        sys.stderr.write(f"errdex: error answering {client_address[0]}: {text}\n")


def serve_site(folder: str | Path, *, port: int = 8000, host: str = "127.0.0.1",
               max_connections: int = MAX_CONNECTIONS, timeout: float = TIMEOUT) -> SiteServer:
    """A server for the folder, bound and ready; call ``serve_forever()`` on it."""
    try:
        return SiteServer(Path(folder), port, host, max_connections=max_connections, timeout=timeout)
    except OSError as exc:
        raise from_oserror(exc, action=f"listen on {host}:{port}") from exc


@contextmanager
def running_site(folder: str | Path, *, port: int = 0, max_connections: int = MAX_CONNECTIONS,
                 timeout: float = TIMEOUT) -> Iterator[SiteServer]:
    """The folder served from a background thread for as long as the block runs (port 0: any free port)."""
    server = serve_site(folder, port=port, max_connections=max_connections, timeout=timeout)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
