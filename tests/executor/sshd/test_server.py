"""The real sshd starts on 127.0.0.1, says what it logs, and leaves no process behind when stopped."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from errdex.executor.sshd import SshdServer, SshdStartError, SshdUnavailable, connect, require_sshd
from tests.executor.sshd.helpers import errdex_sshd_processes, need_sshd


def test_sshd_starts_listens_and_stops_with_its_children() -> None:
    need_sshd()
    server = SshdServer({"LoginGraceTime": "5"})
    with server:
        folder = str(server.folder)
        assert server.port and errdex_sshd_processes(folder)
        assert any("Server listening on 127.0.0.1 port" in line for line in server.read_log()[0])
        held = socket.create_connection(("127.0.0.1", server.port))  # a connection sshd keeps a child for
        try:
            held.sendall(b"SSH-2.0-errdex-test\r\n")
            held.recv(256)
            assert server.children(), "sshd forks a child per connection"
            server.stop()
        finally:
            held.close()
        assert not errdex_sshd_processes(folder), "no sshd process outlives stop()"
        assert not Path(folder).exists()
    server.stop()  # twice is harmless


def test_the_scenario_keywords_come_before_the_base(tmp_path: Path) -> None:
    need_sshd()
    with SshdServer({"MaxAuthTries": "2", "LogLevel": "INFO"}) as server:
        assert server.folder is not None
        config = (server.folder / "sshd_config").read_text().splitlines()
        assert config[:2] == ["MaxAuthTries 2", "LogLevel INFO"]
        assert "LogLevel VERBOSE" not in config and "ListenAddress 127.0.0.1" in config


def test_a_bad_keyword_value_is_a_start_error_naming_sshd_s_complaint() -> None:
    need_sshd()
    with pytest.raises(SshdStartError, match="sshd did not start"):
        SshdServer({"MaxAuthTries": "many"}).start()


def test_no_binary_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(SshdUnavailable, match="not installed"):
        require_sshd(str(tmp_path / "sshd"))


def test_not_root_is_refused_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "access", lambda *_: True)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(SshdUnavailable, match="need root"):
        require_sshd()


def test_the_log_is_read_in_whole_lines_from_an_offset() -> None:
    need_sshd()
    with SshdServer() as server:
        start = server.log_size()
        result = connect(server.port, send="nonsense\r\n", wait_ms=2000)
        lines, end = server.read_log(start)
        assert end > start and all("\r" not in line and "\n" not in line for line in lines)
        assert any(f"port {result.port}" in line for line in lines)
