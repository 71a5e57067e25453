"""Debian's real sshd on 127.0.0.1, made to write the log lines operators see.

:func:`run_sshd_workload` uses the sshd executor's session (:class:`errdex.executor.sshd.run.SshdSession`: a test
account with a password and keys, written in its lease; ``sshd -D -E LOG -f CONFIG`` on a free port at
``LogLevel VERBOSE``, ``MaxAuthTries 2``) and its client, and makes the connections that fail: a connection
closed before any banner, an HTTP request and an SSH-1 banner, a wrong password for the account and for a user
that does not exist, too many wrong passwords, a key nobody authorized, no common key exchange, a reset; and
those that succeed: a password and a key accepted, then a disconnect. The listener stops on SIGTERM. Every
process, account and folder it made is gone when it returns.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.sshdlogs
"""

from __future__ import annotations

from errdex.executor.sshd.client import ClientResult, Credential, connect, login, negotiate
from errdex.executor.sshd.run import SshdSession
from errdex.executor.sshd.server import SshdServer
from tests.processes import wait_until

__all__ = ["SSHD", "run_sshd_workload"]

SSHD = "/usr/sbin/sshd"
#: How long sshd may take to finish a connection's lines; it only stops a hang.
STEP_S = 10.0


def _settled(server: SshdServer, result: ClientResult) -> None:
    """Wait until sshd has logged the connection and no child of it is left (its lines are all written then)."""
    mark = f"port {result.port}"
    wait_until(lambda: any(mark in line for line in server.read_log(0)[0]) and not server.children(),
               what=f"sshd to finish the connection from port {result.port}", timeout=STEP_S)


def run_sshd_workload() -> list[str]:
    """Run the workload; the lines sshd wrote to its log."""
    with SshdSession() as session:
        server = session.server_for({"MaxAuthTries": "2"})
        user, password = session.user.name, session.user.password
        wrong = Credential("password", password="not the password")
        port = server.port
        for result in [
            connect(port, wait_ms=300),  # closed before the banner
            connect(port, send="GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
            connect(port, send="SSH-1.5-errdex\r\n"),
            login(port, user, [wrong]),
            login(port, session.invalid, [wrong]),
            login(port, user, [wrong, wrong, wrong]),
            login(port, user, [Credential("publickey", key=session.user.unknown_key_path)]),
            negotiate(port, {"kex": ["diffie-hellman-group1-sha1"]}),
            login(port, user, [wrong], then="reset"),
            login(port, user, [Credential("password", password=password)], then="disconnect"),
            login(port, user, [Credential("publickey", key=session.user.key_path)], then="disconnect"),
        ]:
            _settled(server, result)
        process = server.process
        assert process is not None
        process.terminate()
        process.wait(STEP_S)
        lines, _ = server.read_log(0)
    return lines


def main() -> None:
    for line in run_sshd_workload():
        print(line)


if __name__ == "__main__":
    main()
