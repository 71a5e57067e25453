"""Debian's real nginx on 127.0.0.1, made to write the error-log lines operators see.

:func:`run_nginx_workload` starts ``/usr/sbin/nginx -p PREFIX -c CONF -e LOG -g 'daemon off;'`` in a temporary
folder on free ports (an HTTP port, an HTTPS port with a self-signed certificate), with small Python upstreams on
127.0.0.1 (one that never answers, one that answers with a header too big, one that closes at once), and asks
for what fails: an upstream that refuses, times out or closes, a body too large, ``limit_req`` and
``limit_conn``, a missing file, a folder with no index, ``deny all``, a rewrite cycle, a plain request to the TLS
port, a request line of garbage; then reloads (SIGHUP), kills a worker (SIGKILL) and stops (SIGQUIT). ``nginx -t``
reads broken configurations (an unknown directive, an invalid number, a bind to a port in use when started).
The error log is at ``info`` (no debug lines); the lines ``nginx -t`` prints on its standard error are taken too.
Every process, socket and file it made is gone when it returns.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.nginxlogs
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from errdex.executor.sshd.procs import children_of
from tests.processes import wait_until

__all__ = ["NGINX", "run_nginx_workload"]

NGINX = "/usr/sbin/nginx"
#: How long any one step may take (nginx answers in milliseconds on 127.0.0.1); it only stops a hang.
STEP_S = 10.0

CONFIG = """\
user root;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    limit_req_zone $binary_remote_addr zone=perip:1m rate=1r/m;
    limit_conn_zone $binary_remote_addr zone=addr:1m;
    server {{
        listen 127.0.0.1:{http};
        listen 127.0.0.1:{https} ssl;
        server_name localhost;
        ssl_certificate {prefix}/cert.pem;
        ssl_certificate_key {prefix}/key.pem;
        root {prefix}/html;
        client_max_body_size 10;
        location /refused {{ proxy_pass http://127.0.0.1:{dead}; }}
        location /slow {{ proxy_pass http://127.0.0.1:{silent}; proxy_read_timeout 300ms; }}
        location /held {{ limit_conn addr 1; proxy_pass http://127.0.0.1:{silent}; proxy_read_timeout 5s; }}
        location /big {{ proxy_pass http://127.0.0.1:{big}; proxy_buffer_size 1k; }}
        location /closes {{ proxy_pass http://127.0.0.1:{closes}; }}
        location /limited {{ limit_req zone=perip nodelay; }}
        location /denied {{ deny all; }}
        location /cycle {{ rewrite ^ /cycle last; }}
    }}
}}
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Upstream:
    """A server on 127.0.0.1 that does one thing with every connection: hold it open unanswered (``silent``),
    answer with a header bigger than nginx's buffer (``big``), or close it at once (``closes``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.held: list[socket.socket] = []
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:  # closed: the workload is over
                return
            self.accepted += 1
            if self.kind == "silent":
                self.held.append(conn)
                continue
            conn.settimeout(STEP_S)
            try:
                conn.recv(65536)
                if self.kind == "big":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 8000 + b"\r\n\r\n")
            except OSError:
                pass
            conn.close()

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.thread.join(STEP_S)
        for conn in self.held:
            conn.close()


def _request(port: int, data: bytes, *, close: bool = False) -> bytes:
    """Send ``data`` and read the answer until nginx closes; ``close``: close at once without reading."""
    with socket.create_connection(("127.0.0.1", port), timeout=STEP_S) as sock:
        if data:
            sock.sendall(data)
        if close:
            return b""
        answer = bytearray()
        while chunk := sock.recv(65536):
            answer += chunk
        return bytes(answer)


def _get(port: int, path: str, extra: str = "", body: bytes = b"") -> bytes:
    head = f"{'POST' if body else 'GET'} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{extra}"
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    return _request(port, head.encode() + b"\r\n" + body)


def _certificate(prefix: Path) -> None:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-keyout", str(prefix / "key.pem"), "-out", str(prefix / "cert.pem")],
                   check=True, capture_output=True, timeout=STEP_S)


class _Log:
    def __init__(self, path: Path) -> None:
        self.path = path

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8", errors="replace") if self.path.exists() else ""

    def count(self, words: str) -> int:
        return self.text().count(words)


@contextmanager
def _nginx(prefix: Path, config: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """nginx in the foreground (its master; SIGQUIT at the end, SIGKILL for it and its workers if it hangs)."""
    process = subprocess.Popen([NGINX, "-p", f"{prefix}/", "-c", str(config), "-e", str(log), "-g", "daemon off;"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        yield process
    finally:
        workers = children_of(process.pid) if process.poll() is None else []
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT)
            try:
                process.wait(STEP_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _test_config(prefix: Path, name: str, text: str) -> list[str]:
    """``nginx -t`` on a configuration: the lines it prints on its standard error."""
    path = prefix / name
    path.write_text(text)
    done = subprocess.run([NGINX, "-t", "-p", f"{prefix}/", "-c", str(path), "-e", str(prefix / f"{name}.log")],
                          capture_output=True, text=True, errors="replace", timeout=STEP_S, check=False)
    return done.stderr.splitlines()


def _serve_and_fail(prefix: Path, config: Path, log: _Log, ports: dict[str, int],
                    upstreams: dict[str, _Upstream]) -> None:
    http = ports["http"]
    with _nginx(prefix, config, log.path) as master:
        wait_until(lambda: log.count("start worker process ") >= 1 or master.poll() is not None,
                   what="nginx's first worker", timeout=STEP_S)
        assert master.poll() is None, f"nginx did not start: {log.text()[-500:]}"
        _get(http, "/refused")
        _get(http, "/slow")
        _get(http, "/big")
        _get(http, "/closes")
        _get(http, "/upload", body=b"x" * 100)
        _get(http, "/limited")
        _get(http, "/limited")
        _get(http, "/missing.html")
        _get(http, "/dir/")
        _get(http, "/denied")
        _get(http, "/cycle")
        _request(http, b"\x16\x03\x01garbage that is no request line\r\n\r\n")
        _request(http, b"", close=True)
        _request(ports["https"], b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        _request(ports["https"], b"\x16\x03\x01\x00\x05hello, not a handshake\r\n")  # bad TLS record
        # limit_conn: a second request while the first is held by the upstream that never answers
        before = upstreams["silent"].accepted
        with socket.create_connection(("127.0.0.1", http), timeout=STEP_S) as held:
            held.sendall(b"GET /held HTTP/1.1\r\nHost: localhost\r\n\r\n")
            wait_until(lambda: upstreams["silent"].accepted > before, what="nginx to reach the upstream",
                       timeout=STEP_S)
            _get(http, "/held")
        # reload: a new worker replaces the old one
        started = log.count("start worker process ")
        master.send_signal(signal.SIGHUP)
        wait_until(lambda: log.count("start worker process ") > started and log.count(" exited with code ") >= 1,
                   what="nginx's reload", timeout=STEP_S)
        # a worker killed: the master logs it and starts another
        workers = children_of(master.pid)
        started = log.count("start worker process ")
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        wait_until(lambda: log.count("start worker process ") > started, what="nginx's new worker", timeout=STEP_S)
        master.send_signal(signal.SIGQUIT)
        master.wait(STEP_S)


def _bind_in_use(prefix: Path, ports: dict[str, int]) -> str:
    """A configuration whose port another program holds: started for real, nginx tries five times, then stops."""
    path = prefix / "busy.conf"
    path.write_text(f"pid {prefix}/busy.pid;\nevents {{}}\nhttp {{ access_log off; server {{ listen "
                    f"127.0.0.1:{ports['busy']}; }} }}\n")
    return str(path)


def run_nginx_workload(binary: str = NGINX) -> list[str]:
    """Run the workload; the lines nginx wrote (its error logs, then what ``nginx -t`` printed)."""
    prefix = Path(tempfile.mkdtemp(prefix="errdex-nginx-"))
    lines: list[str] = []
    try:
        with ExitStack() as stack:
            upstreams = {kind: _Upstream(kind) for kind in ("silent", "big", "closes")}
            for upstream in upstreams.values():
                stack.callback(upstream.close)
            busy = stack.enter_context(socket.create_server(("127.0.0.1", 0)))
            ports = {"http": _free_port(), "https": _free_port(), "dead": _free_port(),
                     "busy": int(busy.getsockname()[1]), **{k: u.port for k, u in upstreams.items()}}
            (prefix / "html" / "dir").mkdir(parents=True)
            (prefix / "html" / "index.html").write_text("hello\n")
            _certificate(prefix)
            config = prefix / "nginx.conf"
            config.write_text(CONFIG.format(prefix=prefix, http=ports["http"], https=ports["https"],
                                            dead=ports["dead"], **{k: u.port for k, u in upstreams.items()}))
            log = _Log(prefix / "error.log")
            _serve_and_fail(prefix, config, log, ports, upstreams)
            busy_log = prefix / "busy.log"
            subprocess.run([binary, "-p", f"{prefix}/", "-c", _bind_in_use(prefix, ports), "-e", str(busy_log),
                            "-g", "daemon off;"], stdin=subprocess.DEVNULL, capture_output=True, timeout=STEP_S,
                           check=False, start_new_session=True)
            lines += log.text().splitlines() + _Log(busy_log).text().splitlines()
        lines += _test_config(prefix, "good.conf", "events {}\nhttp { access_log off; }\n")
        lines += _test_config(prefix, "unknown.conf", "events {}\nhttp { bogus_directive on; }\n")
        lines += _test_config(prefix, "number.conf", "worker_processes many;\nevents {}\n")
        lines += _test_config(prefix, "keepalive.conf", "events {}\nhttp { keepalive_requests some; }\n")
        lines += _test_config(prefix, "size.conf", "events {}\nhttp { client_max_body_size lots; }\n")
        lines += _test_config(prefix, "brace.conf", "events {\n")
        lines += _test_config(prefix, "twice.conf", "events {}\nevents {}\n")
        lines += _test_config(prefix, "nofile.conf", "include missing.conf;\nevents {}\n")
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
    return lines


def main() -> None:
    for line in run_nginx_workload():
        print(line)


if __name__ == "__main__":
    main()
