from __future__ import annotations

import pytest

from tests.harvest import _fake


@pytest.fixture
def fake_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``.fake`` finder registered (and a stand-in pattern builder while the real one is missing)."""
    _fake.install(monkeypatch)
