"""Each client operation against the real sshd, and the lines it makes sshd write."""

from __future__ import annotations

import struct

from errdex.executor.sshd import SshdSession
from errdex.executor.sshd.client import kexinit_packet


def _lines(session: SshdSession, call: dict, server: dict | None = None) -> tuple[list[str], dict[str, str]]:
    scenario = {"call": call, "expect": {"outcome": "logged"}} | ({"server": server} if server else {})
    result = session.run(scenario)
    assert result.settled, result.all_lines
    return result.lines, result.values


def test_connect_and_close_without_a_word(session: SshdSession) -> None:
    lines, values = _lines(session, {"operation": "connect", "waitMs": 50})
    assert f"Connection closed by 127.0.0.1 port {values['$port']}" in lines


def test_connect_and_reset(session: SshdSession) -> None:
    lines, values = _lines(session, {"operation": "connect", "close": "reset", "waitMs": 50})
    assert f"Connection reset by 127.0.0.1 port {values['$port']}" in lines


def test_connect_and_send_a_bad_identification(session: SshdSession) -> None:
    lines, values = _lines(session, {"operation": "connect", "send": "hello\r\n", "waitMs": 1000})
    assert f"banner exchange: Connection from 127.0.0.1 port {values['$port']}: invalid format" in lines


def test_login_with_a_wrong_then_the_right_password_and_exec(session: SshdSession) -> None:
    call = {"operation": "login", "user": "$user", "then": "exec",
            "auth": [{"method": "password", "password": "wrong"}, {"method": "password", "password": "$password"}]}
    result = session.run({"call": call, "expect": {"outcome": "logged"}})
    name, port = result.values["$user"], result.values["$port"]
    assert result.client.steps == ["failed", "accepted"]
    assert f"Failed password for {name} from 127.0.0.1 port {port} ssh2" in result.lines
    assert f"Accepted password for {name} from 127.0.0.1 port {port} ssh2" in result.lines
    assert f"Received disconnect from 127.0.0.1 port {port}:11: disconnected by errdex" in result.lines


def test_login_with_an_unknown_then_the_authorized_key(session: SshdSession) -> None:
    call = {"operation": "login", "user": "$user", "then": "close",
            "auth": [{"method": "publickey", "key": "unknown"}, {"method": "publickey", "key": "authorized"}]}
    lines, values = _lines(session, call)
    head = f"for {values['$user']} from 127.0.0.1 port {values['$port']} ssh2: ED25519 SHA256:"
    assert any(line.startswith("Failed publickey " + head) for line in lines)
    assert any(line.startswith("Accepted publickey " + head) for line in lines)


def test_too_many_failures_end_the_connection(session: SshdSession) -> None:
    call = {"operation": "login", "user": "$user",
            "auth": [{"method": "password", "password": p} for p in ("a", "b", "c")]}
    result = session.run({"server": {"config": {"MaxAuthTries": "2"}}, "call": call, "expect": {"outcome": "logged"}})
    assert result.client.steps[-1] == "disconnected"
    assert any("Too many authentication failures [preauth]" in line for line in result.lines)


def test_the_client_restricted_to_algorithms_sshd_refuses(session: SshdSession) -> None:
    for client, words in (({"kex": ["diffie-hellman-group1-sha1"]}, "no matching key exchange method found"),
                          ({"ciphers": ["aes128-cbc"]}, "no matching cipher found"),
                          ({"macs": ["hmac-md5"]}, "no matching MAC found"),
                          ({"hostKeys": ["ssh-dss"]}, "no matching host key type found"),
                          ({"kex": ["no-such-kex@errdex"]}, "no matching key exchange method found")):
        lines, values = _lines(session, {"operation": "login", "user": "$user", "client": client})
        assert any(line.startswith(f"Unable to negotiate with 127.0.0.1 port {values['$port']}: {words}")
                   for line in lines), (client, lines)


def test_an_equal_server_block_reuses_the_server(session: SshdSession) -> None:
    first = session.server_for({"MaxAuthTries": "3"})
    assert session.server_for({"MaxAuthTries": "3"}) is first
    assert session.server_for({}) is not first and first.process is None


def test_the_kexinit_packet_is_framed() -> None:
    packet = kexinit_packet({"kex": ["x"]})
    length, padding = struct.unpack(">IB", packet[:5])
    assert length + 4 == len(packet) and len(packet) % 8 == 0 and padding >= 4 and packet[5] == 20
