"""One sshd scenario run: the server it needs, the client's call, and the log lines of that connection.

:class:`SshdSession` owns what a proof run needs: the test user (created on entry, removed on exit) and one
sshd at a time, reused while scenarios ask for an equal ``server`` block. Both are written in the session's
lease (:mod:`errdex.executor.sshd.lease`); entering a session first removes what killed runs left
(:func:`~errdex.executor.sshd.lease.remove_leftovers`), and while it is open SIGTERM, SIGHUP and SIGINT unwind
the run so that its exit removes the server, the account and the folders. :meth:`SshdSession.run` validates a
scenario with the vocabulary, makes its call, waits until sshd is done with the connection (the connection's
children have exited and its last line is written: a condition, not a fixed sleep) and returns a
:class:`RunResult` with those lines and the placeholder values to compare captures against.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from errdex._stopping import critical
from errdex.executor.sshd.client import HOST, ClientResult, Credential, connect, login
from errdex.executor.sshd.lease import Lease, Leftovers, remove_leftovers
from errdex.executor.sshd.server import SshdServer, require_sshd
from errdex.executor.sshd.users import TestUser, invalid_name
from errdex.records.scenarios.sshd import CallSpec, check_scenario

__all__ = ["RunResult", "SshdSession", "substitute"]

#: How long sshd may take, after the client is done, to finish the connection's lines.
SETTLE_TIMEOUT_S = 5.0


@dataclass
class RunResult:
    """What one scenario's run produced: the connection's log lines, the placeholder values, what the client saw,
    and whether sshd finished the connection in time."""

    lines: list[str]
    values: dict[str, str]
    client: ClientResult
    settled: bool = True
    all_lines: list[str] = field(default_factory=list)


def substitute(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each placeholder (``$user``, ``$port``...) replaced; longest names first."""
    for name in sorted(values, key=len, reverse=True):
        text = text.replace(name, values[name])
    return text


def _mentions_other_port(line: str, port: int, server_port: int) -> bool:
    """Whether the line names another connection of 127.0.0.1 (sshd's own port, in "on HOST port N", is none)."""
    marker = f"{HOST} port "
    at = line.find(marker)
    while at != -1:
        digits = line[at + len(marker):].split(" ", 1)[0].rstrip(":.,")
        if digits.isdigit() and int(digits) not in (port, server_port):
            return True
        at = line.find(marker, at + 1)
    return False


class SshdSession:
    """Test user and servers of one proof run; ``with SshdSession() as session: session.run(scenario)``."""

    def __init__(self) -> None:
        self.lease = Lease()
        self.user = TestUser(self.lease)
        self.invalid = invalid_name()
        self.leftovers = Leftovers()  # what killed runs left, removed on entry
        self.server: SshdServer | None = None
        self._server_key: tuple[tuple[str, str], ...] | None = None
        self.folders: list[Path] = []  # every server's own folder, in start order (what it owned)

    def __enter__(self) -> SshdSession:
        require_sshd()  # before anything is made: not root, or no sshd, is said as such
        try:
            self.leftovers = remove_leftovers()
            self.lease.open()
            self.user.create()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server, remove the test user and let go of the lease. Safe to call twice."""
        with critical():
            try:
                if self.server is not None:
                    self.server.stop()
                    self.server = None
            finally:
                try:
                    self.user.remove()
                finally:
                    self.lease.close()

    def values(self) -> dict[str, str]:
        """The placeholders known before a connection: user, invalid name, host, password."""
        return {"$user": self.user.name, "$invalid": self.invalid, "$host": HOST, "$password": self.user.password}

    def server_for(self, config: Mapping[str, str]) -> SshdServer:
        """The running sshd for this configuration: the current one when equal, else a fresh one."""
        key = tuple(sorted(config.items()))
        if self.server is not None and self._server_key == key and self.server.process is not None:
            return self.server
        if self.server is not None:
            self.server.stop()
            self.server = None
        self.server = SshdServer(config, authorized_keys=self.user.authorized_keys, lease=self.lease)
        self.server.start()
        if self.server.folder is not None:
            self.folders.append(self.server.folder)
        self._server_key = key
        return self.server

    def _call(self, server: SshdServer, call: CallSpec, values: Mapping[str, str]) -> ClientResult:
        send = substitute(call.send, values) if call.send is not None else None
        if call.operation == "connect":
            return connect(server.port, send=send, wait_ms=call.wait_ms, close=call.close)
        if call.operation == "idle":
            return connect(server.port, send=send, wait_ms=call.wait_ms, close="close")
        user = substitute(call.user or "", values)
        steps = []
        for step in call.auth:
            if step.method == "password":
                steps.append(Credential("password", password=substitute(step.password or "", values)))
            elif step.method == "publickey":
                key = self.user.key_path if step.key == "authorized" else self.user.unknown_key_path
                steps.append(Credential("publickey", key=key))
            else:
                steps.append(Credential("none"))
        return login(server.port, user, steps, client=call.client, then=call.then)

    def run(self, scenario: Mapping[str, Any]) -> RunResult:
        """Run one scenario (``ValueError`` when the vocabulary refuses it) and collect its connection's lines."""
        server_spec, call, _ = check_scenario(scenario)
        values = self.values()
        config = {keyword: substitute(value, values) for keyword, value in server_spec.config}
        server = self.server_for(config)
        offset = server.log_size()
        client = self._call(server, call, values)
        values["$port"] = str(client.port)
        settled = self._settle(server, offset, client.port)
        lines, _ = server.read_log(offset)
        own = [line for line in lines if not _mentions_other_port(line, client.port, server.port)]
        return RunResult(own, values, client, settled, lines)

    @staticmethod
    def _settle(server: SshdServer, offset: int, port: int) -> bool:
        """Wait until sshd has logged the connection and no child of it is left (every line is written then)."""
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        mark = f"port {port}"
        while time.monotonic() < deadline:
            lines, _ = server.read_log(offset)
            if any(mark in line for line in lines) and not server.children():
                return True
            time.sleep(0.01)  # a poll interval: the condition is the log and the process table above
        return False
