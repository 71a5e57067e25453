"""Fixtures: fake CreateOS servers (stopped after the test) and fast clients for them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from errdex.executor.createos import CreateosClient, FakeCreateos
from tests.executor.createos.helpers import KEY


@pytest.fixture
def make_fake() -> Iterator[Callable[..., FakeCreateos]]:
    """Start a fake server (API key checked, heartbeats every 50 ms); all are stopped afterwards."""
    servers: list[FakeCreateos] = []

    def make(**options: Any) -> FakeCreateos:
        fake = FakeCreateos(**({"api_key": KEY, "heartbeat_ms": 50} | options)).start()
        servers.append(fake)
        return fake

    yield make
    for fake in servers:
        fake.stop()


@pytest.fixture
def make_client() -> Callable[..., CreateosClient]:
    """A client for a fake server: no pacing, 5 ms polls and reconnect waits, 3 s default deadline."""

    def make(fake: FakeCreateos, **options: Any) -> CreateosClient:
        settings = {"timeout_ms": 3000, "pace_ms": 0, "poll_interval_ms": 5, "reconnect_delay_ms": 5} | options
        return CreateosClient(fake.url, KEY, **settings)

    return make


@pytest.fixture
def setup(make_fake: Callable[..., FakeCreateos], make_client: Callable[..., CreateosClient]):
    """A fake server and a client for it in one call: ``fake, client = setup(plan=[...], programs=[...])``."""

    def make(*, client_options: dict[str, Any] | None = None, **options: Any) -> tuple[FakeCreateos, CreateosClient]:
        fake = make_fake(**options)
        return fake, make_client(fake, **(client_options or {}))

    return make
