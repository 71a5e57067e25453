"""``errdex site serve``: a built site over HTTP on 127.0.0.1 (modules and fetch need HTTP, not file://)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from errdex.errors import InputError

__all__ = ["SiteServer", "running_site", "serve_site"]


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript", ".json": "application/json",
                      ".wasm": "application/wasm", ".pf_meta": "application/octet-stream"}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (quiet: the command prints its address)
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code == 404 and page.is_file():
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        super().send_error(code, message, explain)


class SiteServer(ThreadingHTTPServer):
    """Serves one built site folder."""

    daemon_threads = True

    def __init__(self, folder: Path, port: int = 8000, host: str = "127.0.0.1") -> None:
        if not (folder / "index.html").is_file():
            raise InputError(f"{folder}: no built site here (run 'errdex site build --out {folder}')")
        super().__init__((host, port), functools.partial(_Handler, directory=str(folder)))

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"


def serve_site(folder: str | Path, *, port: int = 8000, host: str = "127.0.0.1") -> SiteServer:
    """A server for the folder, bound and ready; call ``serve_forever()`` on it."""
    try:
        return SiteServer(Path(folder), port, host)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port}: {(exc.strerror or str(exc)).lower()}") from exc


@contextmanager
def running_site(folder: str | Path, *, port: int = 0) -> Iterator[SiteServer]:
    """The folder served from a background thread for as long as the block runs (port 0: any free port)."""
    server = serve_site(folder, port=port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
