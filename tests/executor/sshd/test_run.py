"""One scenario's run: the vocabulary is applied, placeholders are filled, and only that connection's lines come
back."""

from __future__ import annotations

import pytest

from errdex.executor.sshd import SshdSession, substitute
from errdex.executor.sshd.run import _mentions_other_port


def test_placeholders_are_the_run_s_values(session: SshdSession) -> None:
    result = session.run({"server": {"config": {"AllowUsers": "$user"}},
                          "call": {"operation": "login", "user": "root", "auth": [{"method": "password",
                                                                                   "password": "x"}]},
                          "expect": {"outcome": "logged"}})
    values = result.values
    assert values["$host"] == "127.0.0.1" and values["$port"] == str(result.client.port)
    assert values["$user"] == session.user.name and values["$invalid"] == session.invalid
    assert session.server is not None and session.server.config == {"AllowUsers": session.user.name}
    assert any(line.startswith("User root from 127.0.0.1 not allowed because not listed in AllowUsers")
               for line in result.lines), result.lines


def test_the_lines_are_that_connection_s(session: SshdSession) -> None:
    first = session.run({"call": {"operation": "connect", "waitMs": 10}, "expect": {"outcome": "logged"}})
    second = session.run({"call": {"operation": "connect", "waitMs": 10}, "expect": {"outcome": "logged"}})
    assert first.client.port != second.client.port
    assert all(str(first.client.port) not in line for line in second.lines)
    assert any(str(second.client.port) in line for line in second.lines)


def test_a_scenario_outside_the_vocabulary_is_refused_before_anything_runs(session: SshdSession) -> None:
    with pytest.raises(ValueError, match="'operation' is one of"):
        session.run({"call": {"operation": "execute"}, "expect": {"outcome": "logged"}})


def test_substitution_takes_the_longest_name_first() -> None:
    assert substitute("$user $username", {"$user": "a", "$username": "b"}) == "a b"


def test_another_connection_s_port_marks_a_line_as_not_ours() -> None:
    assert _mentions_other_port("Connection closed by 127.0.0.1 port 5 [preauth]", 6, 22)
    assert not _mentions_other_port("Connection from 127.0.0.1 port 6 on 127.0.0.1 port 22 rdomain", 6, 22)
