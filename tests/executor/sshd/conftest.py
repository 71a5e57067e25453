"""Fixtures: one sshd session per module; after it, no sshd process of errdex's and no test account remains."""

from __future__ import annotations

import pwd
from collections.abc import Iterator

import pytest

from errdex.executor.sshd import SshdSession
from tests.executor.sshd.helpers import errdex_sshd_processes, need_sshd


@pytest.fixture(scope="module")
def session() -> Iterator[SshdSession]:
    need_sshd()
    with SshdSession() as running:
        name = running.user.name
        yield running
    for folder in running.folders:  # this session's own servers: other runs on the machine may have theirs
        assert not errdex_sshd_processes(str(folder)), "an sshd of the executor outlived its session"
    with pytest.raises(KeyError):
        pwd.getpwnam(name)
