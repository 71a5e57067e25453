"""The client side of a scenario: raw TCP (connect, send, close or reset) and SSH (paramiko) on 127.0.0.1.

:func:`connect` opens a TCP connection, sends given bytes or nothing, reads what sshd says for a while and
closes it with a FIN or a reset. :func:`login` speaks SSH as a user through paramiko, tries the
authentication steps in order and then closes, resets, disconnects (SSH_MSG_DISCONNECT, by application) or
runs ``true`` through an exec channel. A login that restricts the client's algorithms to names paramiko does
not know sends its own KEXINIT (:func:`negotiate`): only key exchange is needed to make sshd refuse it.
Each returns a :class:`ClientResult` with the connection's source port (the ``$port`` sshd logs).
"""

from __future__ import annotations

import logging
import os
import socket
import struct
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import paramiko
from paramiko.common import cMSG_DISCONNECT
from paramiko.message import Message

__all__ = [
    "DEFAULT_VERSION",
    "DISCONNECT_BY_APPLICATION",
    "ClientResult",
    "Credential",
    "connect",
    "kexinit_packet",
    "login",
    "negotiate",
]

HOST = "127.0.0.1"
#: The identification string the raw negotiation sends when the scenario names none.
DEFAULT_VERSION = "SSH-2.0-errdex"
#: SSH_DISCONNECT_BY_APPLICATION, the reason code ``then: disconnect`` sends.
DISCONNECT_BY_APPLICATION = 11
#: How long the client waits for sshd at any one step (sshd answers in milliseconds on 127.0.0.1).
STEP_TIMEOUT_S = 5.0
_DEFAULT_ALGORITHMS = {
    "kex": ["curve25519-sha256"], "hostKeys": ["ssh-ed25519"], "ciphers": ["aes128-ctr"], "macs": ["hmac-sha2-256"],
}
#: The scenario's client key -> paramiko's SecurityOptions attribute.
_OPTIONS = {"kex": "kex", "ciphers": "ciphers", "hostKeys": "key_types", "macs": "digests"}

# paramiko logs a refused negotiation from its transport thread with a traceback; the scenario's outcome is
# what sshd writes, so its log is not shown (a program using errdex can still attach handlers of its own)
logging.getLogger("paramiko").addHandler(logging.NullHandler())


@dataclass
class ClientResult:
    """What the client did and saw: its source port, the bytes sshd sent (raw calls), each step's outcome
    (``accepted``, ``failed``, ``refused``: method not allowed, ``disconnected``) and the error that ended it."""

    port: int
    received: bytes = b""
    steps: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class Credential:
    """One authentication step made concrete: the method and its password or private key file."""

    method: str
    password: str | None = None
    key: Path | None = None


def _open(port: int) -> tuple[socket.socket, int]:
    sock = socket.create_connection((HOST, port), timeout=STEP_TIMEOUT_S)
    return sock, int(sock.getsockname()[1])


def _finish(sock: socket.socket, how: str) -> None:
    """Close with a FIN (``close``) or a reset (``reset``: SO_LINGER 0 makes close send an RST)."""
    if how == "reset":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _read_for(sock: socket.socket, wait_ms: float) -> bytes:
    """Everything sshd sends within ``wait_ms``, or until it closes the connection."""
    received = bytearray()
    deadline = time.monotonic() + wait_ms / 1000
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except OSError:  # reset by sshd
            break
        if not chunk:
            break
        received += chunk
    return bytes(received)


def connect(port: int, *, send: str | None = None, wait_ms: float = 300, close: str = "close") -> ClientResult:
    """Open a TCP connection, send ``send`` (UTF-8) or nothing, read for at most ``wait_ms``, then close it."""
    sock, source = _open(port)
    try:
        if send:
            sock.sendall(send.encode())
        received = _read_for(sock, wait_ms)
    finally:
        _finish(sock, close)
    return ClientResult(source, received)


def _name_list(names: Sequence[str]) -> bytes:
    data = ",".join(names).encode()
    return struct.pack(">I", len(data)) + data


def kexinit_packet(algorithms: Mapping[str, Sequence[str]]) -> bytes:
    """An unencrypted SSH_MSG_KEXINIT packet offering ``algorithms`` (kex, hostKeys, ciphers, macs; defaults a
    9.2 sshd accepts for those not given)."""
    chosen = {**_DEFAULT_ALGORITHMS, **{k: list(v) for k, v in algorithms.items() if k in _DEFAULT_ALGORITHMS}}
    lists = [chosen["kex"], chosen["hostKeys"], chosen["ciphers"], chosen["ciphers"], chosen["macs"], chosen["macs"],
             ["none"], ["none"], [], []]
    payload = bytes([20]) + os.urandom(16) + b"".join(_name_list(names) for names in lists) + b"\0" + bytes(4)
    padding = 8 - (5 + len(payload)) % 8
    if padding < 4:
        padding += 8
    return struct.pack(">IB", 1 + len(payload) + padding, padding) + payload + os.urandom(padding)


def negotiate(port: int, client: Mapping[str, object], *, then: str = "close") -> ClientResult:
    """Exchange identification strings, send a KEXINIT offering only the client's algorithms, read until sshd
    closes (it does when nothing matches), then close or reset."""
    sock, source = _open(port)
    received = b""
    try:
        version = client.get("version")
        sock.sendall((version if isinstance(version, str) else DEFAULT_VERSION).encode() + b"\r\n")
        algorithms = {k: v for k, v in client.items() if isinstance(v, list)}
        sock.sendall(kexinit_packet(algorithms))
        received = _read_for(sock, STEP_TIMEOUT_S * 1000)
    finally:
        _finish(sock, "reset" if then == "reset" else "close")
    return ClientResult(source, received)


def _paramiko_knows(client: Mapping[str, object]) -> bool:
    supported = {
        "kex": paramiko.Transport._preferred_kex, "ciphers": paramiko.Transport._preferred_ciphers,
        "hostKeys": paramiko.Transport._preferred_keys, "macs": paramiko.Transport._preferred_macs,
    }
    return all(set(names) <= set(supported[key]) for key, names in client.items()
               if key in supported and isinstance(names, list))


def _configure(transport: paramiko.Transport, client: Mapping[str, object]) -> None:
    options = transport.get_security_options()
    for key, attribute in _OPTIONS.items():
        names = client.get(key)
        if isinstance(names, list):
            setattr(options, attribute, tuple(names))
    version = client.get("version")
    if isinstance(version, str):
        transport.local_version = version


def _attempt(transport: paramiko.Transport, user: str, step: Credential) -> str:
    """One authentication step's outcome."""
    try:
        if step.method == "password":
            transport.auth_password(user, step.password or "", fallback=False)
        elif step.method == "publickey":
            assert step.key is not None, "a publickey step needs a key file"
            transport.auth_publickey(user, paramiko.Ed25519Key.from_private_key_file(str(step.key)))
        else:
            transport.auth_none(user)
    except paramiko.BadAuthenticationType:
        return "refused" if transport.is_active() else "disconnected"
    except paramiko.AuthenticationException:
        return "failed" if transport.is_active() else "disconnected"
    except (paramiko.SSHException, EOFError, OSError):
        return "disconnected"
    return "accepted"


def _then(transport: paramiko.Transport, sock: socket.socket, then: str, accepted: bool) -> None:
    if then == "exec" and accepted:
        channel = transport.open_session(timeout=STEP_TIMEOUT_S)
        channel.exec_command("true")
        channel.recv_exit_status()
        channel.close()
    if then in ("disconnect", "exec") and transport.is_active():
        message = Message()
        message.add_byte(cMSG_DISCONNECT)
        message.add_int(DISCONNECT_BY_APPLICATION)
        message.add_string("disconnected by errdex")
        message.add_string("")
        transport.packetizer.send_message(message)  # paramiko's close sends no SSH_MSG_DISCONNECT of its own
        # sshd closes its side once it has read the message; closing ours first could reset the connection (data
        # sshd sent late, such as a channel close, unread) and make sshd log a reset instead of the disconnect
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while transport.is_active() and time.monotonic() < deadline:
            time.sleep(0.005)  # a poll interval: the condition is paramiko seeing sshd's end of the connection
    if then == "reset":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def login(port: int, user: str, steps: Sequence[Credential], *, client: Mapping[str, object] | None = None,
          then: str = "close") -> ClientResult:
    """Speak SSH as ``user``: try ``steps`` in order until one succeeds or sshd disconnects, then ``then``."""
    client = client or {}
    if not _paramiko_knows(client):
        return negotiate(port, client, then=then)
    sock, source = _open(port)
    result = ClientResult(source)
    transport = paramiko.Transport(sock)
    try:
        _configure(transport, client)
        transport.start_client(timeout=STEP_TIMEOUT_S)
        for step in steps:
            result.steps.append(_attempt(transport, user, step))
            if result.steps[-1] in ("accepted", "disconnected"):
                break
        _then(transport, sock, then, "accepted" in result.steps)
    except (paramiko.SSHException, EOFError, OSError) as exc:
        result.error = str(exc) or type(exc).__name__
    finally:
        transport.close()
        sock.close()
    return result
