"""Debian's real redis-server on 127.0.0.1, made to write the log lines operators see.

:func:`run_redis_workload` starts ``/usr/bin/redis-server CONFIG`` (``logfile`` and ``dir`` in a temporary folder,
a free port, ``loglevel verbose``) several times. First a server whose file limit is below its ``maxclients``,
which then sees a protocol error, an HTTP request (``POST / HTTP/1.1``: the SECURITY ATTACK line), a client over
its output buffer limit, a replica of a port that refuses, a ``SAVE`` whose temporary file cannot be made (a
folder has its name) and a ``SHUTDOWN SAVE``; started again, it loads what it saved and stops on SIGTERM. Then
servers that stop at start: a bad directive (``FATAL CONFIG FILE ERROR``, on standard error), a module that does
not exist, an RDB file and an AOF that are corrupt, an AOF manifest that is no manifest.
Every process and file it made is gone when it returns.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.redislogs
"""

from __future__ import annotations

import re
import resource
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from tests.processes import wait_until

__all__ = ["REDIS", "run_redis_workload"]

REDIS = "/usr/bin/redis-server"
#: How long any one step may take; it only stops a hang.
STEP_S = 10.0
_READY = "Ready to accept connections"
#: A logged line with nothing after its prefix ("PID:M DATE # "): the first line of a message that begins with a
#: line break; its words are on the next line.
_EMPTY = re.compile(r"\d+:[CMSX] \d+ \w+ \d+ [\d:.]+ [#*.-] ?")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Reader:
    """Replies of the Redis protocol read from a socket (enough of RESP2 for these commands)."""

    def __init__(self, sock: socket.socket) -> None:
        self.file = sock.makefile("rb")

    def reply(self) -> object:
        line = self.file.readline()
        if not line:
            raise ConnectionError("redis closed the connection")
        kind, rest = line[:1], line[1:].rstrip(b"\r\n")
        if kind == b"$":
            size = int(rest)
            return None if size < 0 else self.file.read(size + 2)[:-2]
        if kind == b"*":
            return [self.reply() for _ in range(max(int(rest), 0))]
        return rest


def _encode(*args: str | bytes) -> bytes:
    parts = [arg.encode() if isinstance(arg, str) else arg for arg in args]
    return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(part), part) for part in parts)


def _command(port: int, *args: str | bytes) -> object:
    with socket.create_connection(("127.0.0.1", port), timeout=STEP_S) as sock:
        sock.sendall(_encode(*args))
        return _Reader(sock).reply()


def _send_raw(port: int, data: bytes) -> None:
    """Send bytes and read until redis closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=STEP_S) as sock:
        sock.sendall(data)
        while sock.recv(65536):
            pass


def _config(folder: Path, port: int, *extra: str) -> Path:
    path = folder / f"redis-{port}.conf"
    path.write_text("\n".join([f"port {port}", "bind 127.0.0.1", "daemonize no", f"dir {folder}",
                               f"logfile {folder / 'redis.log'}", "loglevel verbose", "save \"\"",
                               "protected-mode yes", *extra]) + "\n")
    return path


def _low_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


class _Server:
    def __init__(self, folder: Path, *extra: str, low_limit: bool = False) -> None:
        self.folder = folder
        self.port = _free_port()
        self.log = folder / "redis.log"
        self.process = subprocess.Popen([REDIS, str(_config(folder, self.port, *extra))], cwd=folder,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        start_new_session=True, preexec_fn=_low_file_limit if low_limit else None)

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def wait_ready(self, before: int) -> None:
        wait_until(lambda: self.text().count(_READY) > before or self.process.poll() is not None,
                   what="redis-server to accept connections", timeout=STEP_S)
        assert self.process.poll() is None, f"redis-server stopped: {self.text()[-500:]}"

    def finish(self) -> str:
        """Wait for it to end (killing it after STEP_S); what it wrote on standard error."""
        try:
            _, err = self.process.communicate(timeout=STEP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err.decode("utf-8", "replace")


def _running_server(folder: Path, dead: int) -> None:
    server = _Server(folder, "maxclients 4064", low_limit=True)
    try:
        server.wait_ready(0)
        port = server.port
        _send_raw(port, b"*1\r\n$abc\r\n")  # a bulk length that is no number: a protocol error
        _send_raw(port, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _command(port, "CONFIG", "SET", "client-output-buffer-limit", "normal 1024 512 0")
        _command(port, "SET", "big", "x" * 100_000)
        try:
            _command(port, "GET", "big")
        except (ConnectionError, OSError):
            pass
        wait_until(lambda: "output buffer limits" in server.text(), what="redis to close the client",
                   timeout=STEP_S)
        _command(port, "REPLICAOF", "127.0.0.1", str(dead))
        wait_until(lambda: "Error condition on socket for SYNC" in server.text(), what="the refused sync",
                   timeout=STEP_S)
        _command(port, "REPLICAOF", "NO", "ONE")
        (folder / f"temp-{server.process.pid}.rdb").mkdir()  # SAVE's temporary file: a folder is there
        _command(port, "SAVE")
        (folder / f"temp-{server.process.pid}.rdb").rmdir()
        _command(port, "SET", "kept", "1")
        try:
            _command(port, "SHUTDOWN", "SAVE")
        except (ConnectionError, OSError):
            pass
    finally:
        if server.process.poll() is None:
            server.process.terminate()
        server.finish()
    # started again: it loads what it saved, then stops on SIGTERM
    again = _Server(folder)
    try:
        again.wait_ready(again.text().count(_READY))
        again.process.terminate()
    finally:
        again.finish()


def _failing_start(folder: Path, *extra: str) -> list[str]:
    """A server that stops at start (or, when it starts anyway, is stopped by SIGTERM): what it wrote on
    standard error and in its log."""
    server = _Server(folder, *extra)
    wait_until(lambda: server.process.poll() is not None or _READY in server.text(),
               what="redis-server to stop or start", timeout=STEP_S)
    if server.process.poll() is None:
        server.process.terminate()
    err = server.finish()
    return _lines(err) + _lines(server.text())


def _lines(text: str) -> list[str]:
    """The lines of a log (a message with line breaks, such as the AOF manifest's error, leaves empty ones)."""
    return [line for line in text.splitlines() if line.strip() and not _EMPTY.fullmatch(line)]


def run_redis_workload(binary: str = REDIS) -> list[str]:
    """Run the workload; the lines redis-server wrote (each run's log, and what it printed on standard error)."""
    root = Path(tempfile.mkdtemp(prefix="errdex-redis-"))
    lines: list[str] = []
    try:
        dead = _free_port()
        folder = root / "running"
        folder.mkdir()
        _running_server(folder, dead)
        lines += _lines((folder / "redis.log").read_text(encoding="utf-8", errors="replace"))
        for name, extra, files in [
            ("directive", ["bogus-directive yes"], {}),
            ("module", ["loadmodule /nonexistent/errdex-module.so"], {}),
            ("rdb-signature", ["dbfilename dump.rdb"], {"dump.rdb": b"NOTREDIS0009" + bytes(range(64))}),
            ("rdb-short", ["dbfilename dump.rdb"], {"dump.rdb": b"REDIS0009\xfa\x09redis-ver\x05"}),
            ("aof-bad", ["appendonly yes", "appenddirname aof"],
             {"aof/appendonly.aof.manifest": b"file appendonly.aof.1.incr.aof seq 1 type i\n",
              "aof/appendonly.aof.1.incr.aof": b"*2\r\n$3\r\nSET\r\nnot a command at all\r\n"}),
            ("aof-short", ["appendonly yes", "appenddirname aof"],
             {"aof/appendonly.aof.manifest": b"file appendonly.aof.1.incr.aof seq 1 type i\n",
              "aof/appendonly.aof.1.incr.aof": b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$5\r\nab"}),
            ("aof-manifest", ["appendonly yes", "appenddirname aof"],
             {"aof/appendonly.aof.manifest": b"this is no manifest line\n"}),
        ]:
            run = root / name
            run.mkdir()
            for relative, data in files.items():
                (run / relative).parent.mkdir(parents=True, exist_ok=True)
                (run / relative).write_bytes(data)
            lines += _failing_start(run, *extra)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return lines


def main() -> None:
    for line in run_redis_workload():
        print(line)


if __name__ == "__main__":
    main()
