"""Real Debian programs on 127.0.0.1 and the lines they write, traced to the statements of the tree they are built
from: nginx (``release-1.22.1``), redis-server (``7.0.15``) and sshd (openssh-portable ``V_9_2_P1``).

Each workload (:mod:`tests.harvest.nginxlogs`, :mod:`tests.harvest.redislogs`, :mod:`tests.harvest.sshdlogs`)
runs the real binary and returns the lines it wrote; the tree is harvested from its bare repository at the tag
with no configuration and every level (nginx also with ``examples/harvest/nginx.toml``, the configuration a user
writes from the README); every line must have an entry in :mod:`tests.harvest.realtruth` (written by reading the
code), and the share traced top-1 to its statement must stay at or above :data:`FLOORS`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from errdex.executor.sshd.procs import children_of
from tests.harvest.realprograms import PROGRAMS, Traced, expected_lines, harvest_tree, require
from tests.harvest.truth import Score, score, shared_data
from tests.processes import time_limit

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONFIG = ROOT / "examples" / "harvest" / "nginx.toml"

#: The share of lines traced top-1 today, rounded down (and a point lower where a run's timing changes the lines a
#: little); the issue's target for every tree is 95%: raise these as the finders and the matcher improve.
#: Measured before the macro, dialect, value and program work: nginx 21 of 66 (31.8%), with
#: examples/harvest/nginx.toml 28 of 66 (42.4%); redis 122 of 128 (95.3%); sshd 31 of 43 (72.1%). After: nginx 58
#: of 66 (87.9%, the same with the config), redis 125 of 128 (97.7%), sshd 39 of 43 (90.7%); what is left is
#: the same words written by several statements (README).
FLOORS = {
    "nginx": 0.86,
    "nginx-config": 0.86,
    "redis": 0.96,
    "sshd": 0.88,
}
#: How many distinct statements each workload makes its program write, at least (a run's timing may leave out a
#: line or two: nginx's SIGIO notice, a client's close seen by epoll): a workload that stops making its program
#: fail fails here rather than scoring well on what is left.
SHAPES = {"nginx": 40, "redis": 56, "sshd": 19}


@pytest.fixture(scope="module")
def data() -> Path:
    return shared_data()


#: The folders the workloads make in the temporary folder.
_FOLDERS = ("errdex-nginx-", "errdex-redis-", "errdex-sshd-")


def _ours() -> set[str]:
    return {entry for entry in os.listdir(tempfile.gettempdir()) if entry.startswith(_FOLDERS)}


def _lines(name: str, data: Path) -> Traced:
    program = PROGRAMS[name]
    require(program, data)
    before = _ours()
    with time_limit(120, what=f"the {name} workload"):
        lines = program.workload()
    assert not children_of(os.getpid()), f"the {name} workload left processes running"
    assert _ours() <= before, f"the {name} workload left folders: {sorted(_ours() - before)}"
    traced = expected_lines(name, lines)
    assert not traced.unknown, "lines the truth has no entry for:\n" + "\n".join(traced.unknown)
    assert traced.shapes >= SHAPES[name], f"{name} wrote only {traced.shapes} of the statements its workload asks for"
    return traced


@pytest.fixture(scope="module")
def nginx(data: Path) -> Traced:
    return _lines("nginx", data)


def _score(name: str, traced: Traced, data: Path, tmp: Path, config: Path | None = None) -> Score:
    return score(harvest_tree(PROGRAMS[name], data, tmp / "records", config), traced.expected)


def test_nginx_lines_trace_to_their_statement(nginx: Traced, data: Path, tmp_path: Path) -> None:
    result = _score("nginx", nginx, data, tmp_path)
    assert result.rate >= FLOORS["nginx"], result.summary(shown=80)


def test_nginx_lines_with_the_config_a_user_writes(nginx: Traced, data: Path, tmp_path: Path) -> None:
    result = _score("nginx", nginx, data, tmp_path, NGINX_CONFIG)
    assert result.rate >= FLOORS["nginx-config"], result.summary(shown=80)


def test_redis_lines_trace_to_their_statement(data: Path, tmp_path: Path) -> None:
    result = _score("redis", _lines("redis", data), data, tmp_path)
    assert result.rate >= FLOORS["redis"], result.summary(shown=80)


def test_sshd_lines_trace_to_their_statement(data: Path, tmp_path: Path) -> None:
    result = _score("sshd", _lines("sshd", data), data, tmp_path)
    assert result.rate >= FLOORS["sshd"], result.summary(shown=80)
