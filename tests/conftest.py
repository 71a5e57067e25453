"""Shared fixtures: records and record folders built by code from the bundled seed."""

from __future__ import annotations

import copy
import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from errdex import parallel
from errdex.cli import main
from errdex.records.canonical import canonical_text

ROOT = Path(__file__).resolve().parent.parent
SEED_PATH = ROOT / "records/paperclipai/paperclip/createos-process-creation-could-not-be-confirmed-destroy-the.json"
SHARED = ROOT.parent / "shared"


_CACHE_NUMBERS = itertools.count()


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The cache of what is set up once for many tests (module and session fixtures, such as a knowledge base
    of the bundled records), so that it is never the user's own cache; each test still gets its own below."""
    folder = tmp_path_factory.mktemp("shared-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ERRDEX_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture
def shared_cache(_session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """For a test that is fast only because others filled the cache before it (and says so by asking for this):
    the session's shared cache instead of an empty one of its own."""
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(_session_cache))
    return _session_cache


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own, empty errdex cache and no stray configuration.

    The folder is new for each test (so no test sees what another one cached) and lies outside the test's
    ``tmp_path`` (so a test that lists its ``tmp_path`` finds only its own files). It is named by a counter and
    left for errdex to create, as it would a user's: ``mktemp`` lists every folder made so far on each call."""
    folder = tmp_path_factory.getbasetemp() / "errdex-caches" / str(next(_CACHE_NUMBERS))
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(folder))
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.fixture
def seed() -> dict[str, Any]:
    """A fresh copy of the seed envelope, free to mutate."""
    return copy.deepcopy(_SEED)


#: The original seed (version 2), as the test corpus keeps it: tests mutate this, never the dataset.
_SEED = json.loads((ROOT / "tests" / "corpus" / "v2" / "seed.json").read_text(encoding="utf-8"))


def write_envelope(root: Path, envelope: dict[str, Any], *, name: str | None = None, folder: str | None = None) -> Path:
    """Write an envelope where it belongs: root/<owner>/<repo>/<slug>.json (overridable)."""
    record = envelope.get("record", envelope)
    target = root / (folder or record["repo"]) / (name or f"{record['slug']}.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(canonical_text(envelope), encoding="utf-8")
    return target


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_cli(*args: str, input: bytes | str | None = None) -> CliResult:
    """Run the errdex entry point in-process, as the console script would."""
    runner = CliRunner()
    with runner.isolation(input=input) as streams:
        out, err = streams[0], streams[1]
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        sys.stdout.flush()
        sys.stderr.flush()
        return CliResult(code, out.getvalue().decode(), err.getvalue().decode())


@pytest.fixture
def cli() -> Callable[..., CliResult]:
    return run_cli


@pytest.fixture
def single_threaded(request: pytest.FixtureRequest) -> bool:
    """True when this test may fork here; otherwise the test is run again in a fresh single-threaded pytest
    (forking is off while threads run, e.g. the browser tests' server), which must pass, and this returns False."""
    if threading.active_count() == 1 or os.environ.get("ERRDEX_FRESH_PROCESS"):
        return True
    env = {**os.environ, "ERRDEX_FRESH_PROCESS": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", request.node.nodeid],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return False


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the children errdex forks during the test (one entry per child)."""
    started: list[int] = []
    start_child = parallel.start_child

    def counted(work: Any) -> Any:
        started.append(1)
        return start_child(work)

    monkeypatch.setattr(parallel, "start_child", counted)
    return started
