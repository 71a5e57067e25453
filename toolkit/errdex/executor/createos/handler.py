"""The fake CreateOS server on the wire: the HTTP server, its request handler and how each planned fault happens.

:class:`~errdex.executor.createos.server.FakeCreateos` owns the state, the plan and the ledger; the handler
here reads a request, finds its call (:mod:`~errdex.executor.createos.routes`), carries out the fault the
plan gives it or acts on the state, and answers: JSON, an NDJSON stream, or a dropped or reset connection.
"""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from errdex._serving import RequestDeadlines
from errdex.executor.createos.faults import FaultPlan, FaultRule
from errdex.executor.createos.ledger import Ledger
from errdex.executor.createos.routes import route
from errdex.executor.createos.state import FakeProcess, FakeState, Reply


class ServedFake(Protocol):
    """What a handler reads of the fake it serves (:class:`~errdex.executor.createos.server.FakeCreateos`,
    which imports this module: the handler names the shape, not the class)."""

    api_key: str | None
    heartbeat_ms: int
    ledger: Ledger
    max_body_bytes: int
    plan: FaultPlan
    request_timeout_s: float
    state: FakeState
    stopping: threading.Event

__all__ = ["Handler", "ServedFake", "Server"]

_STREAM_TICK_SECONDS = 0.01


@dataclass(frozen=True)
class _Feed:
    """A normal answer to connect: stream ``process`` from sequence number ``after``."""

    process: FakeProcess
    after: int


_Act = Callable[[], "Reply | _Feed"]


_BUSY = json.dumps({"status": "error", "error": {"message": "too many connections"}}).encode()


class Server(ThreadingHTTPServer):
    """A threading HTTP server with a bound on connections and a deadline on each request."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # connections beyond the bound are answered 503, not left to time out in the backlog
    fake: ServedFake
    slots: threading.BoundedSemaphore
    deadlines: RequestDeadlines

    def service_actions(self) -> None:
        """After every poll: close the connections whose request is late (see :mod:`errdex._serving`)."""
        super().service_actions()
        self.deadlines.expire_due()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection in its own thread while a slot is free; else answer 503 and close it."""
        if not self.slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(_BUSY), _BUSY))
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that broke the handler is closed without a traceback (it was answered 500 when it could be)."""


class Handler(BaseHTTPRequestHandler):
    """One connection: one request, answered as planned (see the module's docstring)."""

    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.1"  # a request line that cannot be parsed still gets a status line (400)
    server: Server

    def setup(self) -> None:
        # applies to every read and write of this connection
        self.timeout = self.server.fake.request_timeout_s  # type: ignore[misc]  # typeshed: a ClassVar; read per instance
        self.answered = False
        # ... and to the whole request, however slowly it trickles in
        self.server.deadlines.add(self.request, self.timeout)
        super().setup()

    def finish(self) -> None:
        self.server.deadlines.met(self.request)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:  # `format`: the base class's name
        pass

    def send_response(self, code: int, message: str | None = None) -> None:
        self.answered = True
        super().send_response(code, message)

    def do_GET(self) -> None:
        self.close_connection = True
        try:
            self._handle()
        except OSError:
            pass  # the client went away or was too slow
        except Exception:  # a bug must not take the server down or print a traceback
            if not self.answered:
                try:
                    self._send_json(Reply.fail(500, "the fake server could not handle the request"))
                except OSError:
                    pass

    do_POST = do_PUT = do_DELETE = do_GET

    # -- dispatch ------------------------------------------------------------

    def _handle(self) -> None:
        fake = self.server.fake
        split = urlsplit(self.path)
        call, ids = route(self.command, split.path)
        lengths = {value.strip() for value in self.headers.get_all("Content-Length") or ["0"]}
        if len(lengths) > 1 or "Transfer-Encoding" in self.headers:  # which is the body? (RFC 9112 6.3): refuse
            self._send_json(Reply.fail(400, "one Content-Length and no Transfer-Encoding, please"))
            return
        length = lengths.pop()
        if not (length.isascii() and length.isdigit()):
            self._send_json(Reply.fail(400, "Content-Length must be a whole number of bytes"))
            return
        if len(length) > 18 or int(length) > fake.max_body_bytes:
            self._send_json(Reply.fail(413, f"the body is larger than {fake.max_body_bytes} bytes"))
            return
        body = self.rfile.read(int(length))
        if len(body) < int(length):
            return  # the client closed (or was too slow) before sending the body it announced
        self.server.deadlines.met(self.request)
        matched = fake.plan.match(call) if call is not None else None
        index = fake.ledger.request(method=self.command, path=self.path, call=call, rule=matched and matched[0])

        def act() -> Reply | _Feed:
            return self._act(call, ids, parse_qs(split.query), body)

        if matched is None:
            self._answer(index, act())
        else:
            self._fault(index, matched[1], act)

    def _fault(self, index: int, rule: FaultRule, act: _Act) -> None:
        """Carry out a planned fault; every action settles the ledger entry before touching the wire."""
        getattr(self, "_fault_" + rule.action.replace("-", "_"))(index, rule.params, act)

    def _fault_respond(self, index: int, params: dict[str, Any], act: _Act) -> None:
        if params.get("handle"):
            act()
        status, headers = params.get("status", 200), params.get("headers", {})
        self.server.fake.ledger.settle(index, "answered", status=status)
        if "bodyText" in params:
            self._send(status, params["bodyText"].encode("utf-8"), "text/plain", headers)
        elif "body" in params:
            self._send(status, json.dumps(params["body"]).encode("utf-8"), "application/json", headers)
        else:
            self._send(status, b"", None, headers)

    def _fault_no_body(self, index: int, params: dict[str, Any], act: _Act) -> None:
        if params.get("handle"):
            act()
        self.server.fake.ledger.settle(index, "answered", status=params.get("status", 204))
        self._send(params.get("status", 204), None, None, {})

    def _fault_terminate_response(self, index: int, params: dict[str, Any], act: _Act) -> None:
        if params.get("handle"):
            act()
        self.server.fake.ledger.settle(index, "answered", status=200)
        self._send_json(Reply.ok(params["data"]))

    def _fault_drop(self, index: int, params: dict[str, Any], act: _Act) -> None:
        self.server.fake.ledger.settle(index, "dropped", handled=False)
        self._drop()

    def _fault_drop_after_handling(self, index: int, params: dict[str, Any], act: _Act) -> None:
        act()
        self.server.fake.ledger.settle(index, "dropped", handled=True)
        self._drop()

    def _fault_reset(self, index: int, params: dict[str, Any], act: _Act) -> None:
        self.server.fake.ledger.settle(index, "reset")
        self._reset()

    def _fault_stall(self, index: int, params: dict[str, Any], act: _Act) -> None:
        fake = self.server.fake
        stopped = fake.stopping.wait(min(params["ms"] / 1000, threading.TIMEOUT_MAX))
        handled = bool(params.get("handle")) and not stopped
        fake.ledger.settle(index, "stalled", handled=handled)
        if handled:
            self._answer(None, act())
        else:
            self._drop()

    def _fault_stream(self, index: int, params: dict[str, Any], act: _Act) -> None:
        self._start_stream(params.get("status", 200))
        for frame in params["frames"]:
            self._chunk(_frame_bytes(frame))
        self.server.fake.ledger.settle(index, "streamed", ended=params["then"])
        if params["then"] == "reset":
            self._reset()
        else:
            self._end_stream()

    def _fault_replay(self, index: int, params: dict[str, Any], act: _Act) -> None:
        outcome = act()
        if isinstance(outcome, _Feed):
            outcome = _Feed(outcome.process, max(0, outcome.after - params["overlap"]))
        self._answer(index, outcome)

    def _answer(self, index: int | None, outcome: Reply | _Feed) -> None:
        """Answer as a normal server would; ``index`` None when the ledger entry is already settled."""
        ledger = self.server.fake.ledger
        if isinstance(outcome, Reply):
            if index is not None:
                ledger.settle(index, "answered", status=outcome.status)
            self._send_json(outcome)
            return
        self._follow(outcome, index)

    def _act(self, call: str | None, ids: dict[str, str], query: dict[str, list[str]], body: bytes) -> Reply | _Feed:
        """What the request does to the state, and the normal answer."""
        fake = self.server.fake
        state = fake.state
        if call is None:
            return Reply.fail(404, "no such endpoint")
        if fake.api_key is not None and self.headers.get("X-Api-Key") != fake.api_key:
            return Reply.fail(401, "invalid API key")
        sandbox_id, process_id = ids.get("sandbox", ""), ids.get("process", "")
        if call in ("create-sandbox", "exec", "create-process"):
            try:
                document = json.loads(body) if body else None
            except (ValueError, RecursionError):
                return Reply.fail(400, "invalid JSON")
            if call == "create-sandbox":
                return state.create_sandbox(document)
            if call == "exec":
                return state.exec(sandbox_id, document)
            return state.create_process(sandbox_id, document)
        if call == "get-sandbox":
            return state.get_sandbox(sandbox_id)
        if call == "destroy-sandbox":
            return state.destroy_sandbox(sandbox_id)
        if call in ("pause-sandbox", "resume-sandbox"):
            return state.change_sandbox(sandbox_id, call.split("-")[0])
        if call == "upload-file":
            return state.upload_file(sandbox_id, next(iter(query.get("path") or ()), None), body)
        if call == "close-stdin":
            return state.close_stdin(sandbox_id, process_id)
        if call == "terminate":
            return state.terminate(sandbox_id, process_id)
        after = (query.get("after") or ["0"])[0]
        if not after.isdigit():
            return Reply.fail(400, "after must be a whole number")
        process = state.find_process(sandbox_id, process_id)
        if process is None:
            return Reply.fail(404, "process not found")
        return _Feed(process, int(after))

    # -- answers on the wire -------------------------------------------------

    def _send(self, status: int, payload: bytes | None, content_type: str | None, headers: Mapping[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        given = {name.lower() for name in headers}
        if payload is not None:
            if content_type is not None and "content-type" not in given:
                self.send_header("Content-Type", content_type)
            if "content-length" not in given:  # a planned Content-Length may promise more than is sent
                self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    def _send_json(self, reply: Reply) -> None:
        self._send(reply.status, json.dumps(reply.body).encode("utf-8"), "application/json", {})

    def _start_stream(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def _follow(self, feed: _Feed, index: int | None) -> None:
        """Stream a process's frames until its exit frame, its termination or the server's stop."""
        fake = self.server.fake

        def settle(ended: str) -> None:
            if index is not None:
                fake.ledger.settle(index, "streamed", ended=ended)

        settle("open")
        try:
            self._stream_feed(feed, settle)
        except OSError:
            settle("client-gone")
            raise

    def _stream_feed(self, feed: _Feed, settle: Any) -> None:
        fake = self.server.fake
        self._start_stream(200)
        sent, last_beat = feed.after, time.monotonic()
        while True:
            frames, exit_frame, terminated = fake.state.snapshot(feed.process, sent)
            for frame in frames:
                self._chunk(_frame_bytes(frame))
                sent = frame["seq"]
            if exit_frame is not None or terminated:
                settle("exit" if exit_frame is not None else "terminated")
                if exit_frame is not None:
                    self._chunk(_frame_bytes(exit_frame))
                self._end_stream()
                return
            if time.monotonic() - last_beat >= fake.heartbeat_ms / 1000:
                self._chunk(_frame_bytes({"type": "heartbeat"}))
                last_beat = time.monotonic()
            if fake.stopping.wait(_STREAM_TICK_SECONDS):
                settle("server-stopped")
                return

    def _drop(self) -> None:
        """Close the connection without an answer (FIN)."""
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _reset(self) -> None:
        """Abort the connection (RST), after a moment for the client to read what was sent."""
        time.sleep(0.02)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # the last reference besides the socket itself: the close below is real
        self.connection.close()


def _frame_bytes(frame: Mapping[str, Any]) -> bytes:
    """A frame as sent: JSON and a newline, or ``raw`` text / ``rawBytes64`` bytes verbatim."""
    if set(frame) == {"raw"}:
        return str(frame["raw"]).encode("utf-8")
    if set(frame) == {"rawBytes64"}:
        return base64.b64decode(frame["rawBytes64"])
    return json.dumps(frame).encode("utf-8") + b"\n"
