"""Debian's real sshd, run in the foreground on 127.0.0.1 with a folder it owns.

:class:`SshdServer` writes a fresh ed25519 host key and a configuration (the base of
:data:`BASE_CONFIG` plus a scenario's keywords) into a temporary folder, starts ``sshd -D -E LOG -f CONFIG``
on a free port and waits until the log says ``Server listening``. :meth:`SshdServer.stop` kills the
per-connection children first (sshd puts each in a session of its own, so they do not die with the listener),
then the listener, reaps them and removes the folder; an ``atexit`` hook stops what a crashed run left.

The folder and the process are written in the run's lease (:mod:`errdex.executor.sshd.lease`) before they are
made, so the next run removes what a killed one left; and sshd is started with a parent-death signal
(``setpriv --pdeathsig TERM``, when started from the main thread), so it stops at once when errdex is killed.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from errdex._stopping import critical
from errdex.executor.sshd.errors import SshdStartError, SshdUnavailable
from errdex.executor.sshd.lease import Lease
from errdex.executor.sshd.procs import children_of, kill_all

__all__ = ["BASE_CONFIG", "SSHD", "SshdServer", "children_of", "require_sshd"]

#: The binary Debian's openssh-server installs.
SSHD = "/usr/sbin/sshd"
#: What every executor sshd is configured with, before a scenario's own keywords (which win: they are written
#: first, and sshd takes the first value of a keyword).
BASE_CONFIG: Mapping[str, str] = {
    "LogLevel": "VERBOSE",
    "PidFile": "none",
    "UsePAM": "no",
    "PasswordAuthentication": "yes",
    "KbdInteractiveAuthentication": "no",
    "StrictModes": "no",
    "MaxStartups": "100",
    "PermitRootLogin": "prohibit-password",
}
#: Where sshd's privilege separation wants to chroot.
PRIVSEP_DIR = Path("/run/sshd")
#: How long sshd may take to say it listens.
START_TIMEOUT_S = 5.0
_LISTENING = "Server listening on 127.0.0.1 port"
_LIVE: set[SshdServer] = set()


def require_sshd(binary: str = SSHD) -> None:
    """Raise :class:`SshdUnavailable` unless sshd can be run here (the binary exists and errdex is root)."""
    if not os.access(binary, os.X_OK):
        raise SshdUnavailable(f"{binary} is not installed (Debian's openssh-server package; .ci/setup installs it)")
    if os.geteuid() != 0:
        raise SshdUnavailable("sshd scenarios need root: sshd's privilege separation and test users need it")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _pdeathsig() -> list[str]:
    """The prefix that makes sshd receive SIGTERM when errdex's thread that starts it ends (setpriv execs sshd in
    its own place); none outside the main thread (a worker thread's end would stop a server still in use)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None or threading.current_thread() is not threading.main_thread():
        return []
    return [setpriv, "--pdeathsig", "TERM", "--"]


class SshdServer:
    """One sshd on 127.0.0.1; a context manager (``with SshdServer(config) as server:``).

    ``config``: extra sshd_config keywords (placeholders already replaced); ``authorized_keys``: a folder with
    one file per user (``AuthorizedKeysFile FOLDER/%u``), default one in the server's own folder; ``lease``: the
    run's lease (default: one of its own, opened on :meth:`start`, closed on :meth:`stop`).
    """

    def __init__(self, config: Mapping[str, str] | None = None, *, authorized_keys: Path | None = None,
                 binary: str = SSHD, lease: Lease | None = None) -> None:
        self.lease = lease or Lease()
        self._own_lease = lease is None
        self.config = dict(config or {})
        self.binary = binary
        self.folder: Path | None = None
        self.authorized_keys = authorized_keys
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None

    def __enter__(self) -> SshdServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def _write_config(self, folder: Path) -> Path:
        keys = self.authorized_keys or folder / "authorized_keys"
        keys.mkdir(exist_ok=True)
        lines = [f"{keyword} {value}" for keyword, value in self.config.items()]
        base = {**BASE_CONFIG, "AuthorizedKeysFile": f"{keys}/%u"}
        lines += [f"{keyword} {value}" for keyword, value in base.items() if keyword not in self.config]
        lines += ["ListenAddress 127.0.0.1", f"Port {self.port}", f"HostKey {folder / 'host_ed25519'}"]
        path = folder / "sshd_config"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self) -> None:
        """Start sshd and wait until it listens; :class:`SshdStartError` with its last log line when it does not."""
        require_sshd(self.binary)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        PRIVSEP_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
        if self._own_lease:
            self.lease.open()
        _LIVE.add(self)
        self.folder = self.lease.folder("errdex-sshd-")
        self.lease.add_server(self.folder, self.binary)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.folder / "host_ed25519")],
                       check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        for _ in range(3):  # another program may take the free port between the probe and sshd's bind
            self.port = _free_port()
            config = self._write_config(self.folder)
            self.log_path = self.folder / "sshd.log"
            self.log_path.write_bytes(b"")
            self.process = subprocess.Popen(
                [*_pdeathsig(), self.binary, "-D", "-E", str(self.log_path), "-f", str(config)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
            )
            self.lease.add_server(self.folder, self.binary, self.process.pid)
            if self._wait_listening():
                return
            self._stop_process()
        raise SshdStartError(f"sshd did not start: {self._last_words()}")

    def _wait_listening(self) -> bool:
        assert self.process is not None and self.log_path is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if _LISTENING in self.log_path.read_text(errors="replace"):
                return True
            if self.process.poll() is not None:
                return False
            time.sleep(0.01)  # a poll interval: the condition is the log line above
        return False

    def _last_words(self) -> str:
        text = self.log_path.read_text(errors="replace").strip() if self.log_path and self.log_path.exists() else ""
        lines = text.splitlines()
        return lines[-1] if lines else "no log line"

    def read_log(self, offset: int = 0) -> tuple[list[str], int]:
        """The complete log lines written from byte ``offset`` on, and the offset after them."""
        if self.log_path is None:
            return [], offset
        with self.log_path.open("rb") as log:
            log.seek(offset)
            data = log.read()
        end = data.rfind(b"\n") + 1
        lines = [line.rstrip("\r") for line in data[:end].decode("utf-8", "replace").split("\n")[:-1]]
        return lines, offset + end

    def log_size(self) -> int:
        """How many bytes the log holds."""
        return self.log_path.stat().st_size if self.log_path is not None else 0

    def children(self) -> list[int]:
        """The living processes sshd forked (one or more per open connection)."""
        if self.process is None or self.process.poll() is not None:
            return []
        return children_of(self.process.pid)

    def _stop_process(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        kill_all(children_of(process.pid) if process.poll() is None else [])
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stderr is not None:
            process.stderr.close()

    def stop(self) -> None:
        """Kill the connection children and the listener, reap them, remove the folder. Safe to call twice."""
        with critical():
            try:
                self._stop_process()
            finally:
                if self.folder is not None:
                    shutil.rmtree(self.folder, ignore_errors=True)
                    if self.lease.is_open:
                        self.lease.forget_server(self.folder)
                        self.lease.forget_folder(self.folder)
                    self.folder = None
                _LIVE.discard(self)
                if self._own_lease:
                    self.lease.close()


@atexit.register
def _stop_all() -> None:
    for server in list(_LIVE):
        server.stop()
