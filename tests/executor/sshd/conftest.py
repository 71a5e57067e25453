"""Fixtures: one sshd session per module (sshd started and the test user removed after it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from errdex.executor.sshd import SshdSession
from tests.executor.sshd.helpers import need_sshd


@pytest.fixture(scope="module")
def session() -> Iterator[SshdSession]:
    need_sshd()
    with SshdSession() as running:
        yield running
