"""Real Debian programs (nginx, redis-server, sshd) and the lines they write, traced to their statements.

Each program's workload runs the real binary on 127.0.0.1 and returns the lines it wrote; the tree Debian built it
from is harvested from its bare repository at the tag (no configuration, every level), every line is matched, and
its top-1 record must name the statement :mod:`tests.harvest.realtruth` says wrote it.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.realprograms nginx|redis|sshd [--config FILE]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from errdex.harvest.run import harvest
from tests.harvest.realtruth import find
from tests.harvest.truth import SHARED, Expected, Score, score

__all__ = ["PROGRAMS", "Program", "Traced", "expected_lines", "harvest_tree", "measure", "require"]


@dataclass(frozen=True)
class Program:
    """A real program: its binary, the tree and tag it is built from, and its workload."""

    name: str
    binary: str
    repo_dir: str
    repo: str
    rev: str
    workload: Callable[[], list[str]]


def _nginx() -> list[str]:
    from tests.harvest.nginxlogs import run_nginx_workload
    return run_nginx_workload()


def _redis() -> list[str]:
    from tests.harvest.redislogs import run_redis_workload
    return run_redis_workload()


def _sshd() -> list[str]:
    from tests.harvest.sshdlogs import run_sshd_workload
    return run_sshd_workload()


PROGRAMS: dict[str, Program] = {
    "nginx": Program("nginx", "/usr/sbin/nginx", "nginx.git", "nginx/nginx", "release-1.22.1", _nginx),
    "redis": Program("redis", "/usr/bin/redis-server", "redis.git", "redis/redis", "7.0.15", _redis),
    "sshd": Program("sshd", "/usr/sbin/sshd", "openssh-portable.git", "openssh/openssh-portable", "V_9_2_P1",
                    _sshd),
}


def require(program: Program, data: Path) -> None:
    """Skip (a failure under CI=true) when the program is not installed, is not run as root, or its tree is
    missing."""
    reason = None
    if not os.access(program.binary, os.X_OK):
        reason = f"{program.binary} is not installed (Debian's {program.name}; .ci/setup installs it)"
    elif os.geteuid() != 0:
        reason = f"the {program.name} workload runs {program.binary} as root (accounts, ports, privilege separation)"
    elif not (data / "repos" / program.repo_dir).is_dir():
        reason = f"the tree {program.repo_dir} is not in {data / 'repos'} (set ERRDEX_SHARED_DATA)"
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


@dataclass
class Traced:
    """A workload's lines sorted: those the truth names a statement for, those other code wrote, and those the
    truth does not know (a shape nobody wrote an entry for: the truth is incomplete)."""

    expected: list[Expected]
    others: list[str]
    unknown: list[str]

    @property
    def shapes(self) -> int:
        return len({item.spans for item in self.expected})


def expected_lines(program: str, lines: list[str]) -> Traced:
    traced = Traced([], [], [])
    for number, line in enumerate(lines, 1):
        spans = find(program, line)
        if spans is None:
            traced.unknown.append(line)
        elif not spans:
            traced.others.append(line)
        else:
            traced.expected.append(Expected(number, line, spans))
    return traced


def harvest_tree(program: Program, data: Path, out: Path, config: Path | None = None) -> Path:
    """Harvest the program's tree at its tag into ``out`` (with no configuration unless ``config``)."""
    out.mkdir(parents=True, exist_ok=True)
    harvest(data / "repos" / program.repo_dir, repo=program.repo, rev=program.rev, out=out, config=config,
            log_levels="all")
    return out


def measure(program: Program, lines: list[str], records: Path) -> tuple[Score, Traced]:
    traced = expected_lines(program.name, lines)
    return score(records, traced.expected), traced


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", choices=sorted(PROGRAMS))
    parser.add_argument("--config", type=Path, help="harvest with this configuration (default: none)")
    args = parser.parse_args()
    program = PROGRAMS[args.program]
    data = Path(os.environ.get("ERRDEX_SHARED_DATA", SHARED))
    lines = program.workload()
    with tempfile.TemporaryDirectory(prefix="errdex-realprograms-") as folder:
        result, traced = measure(program, lines, harvest_tree(program, data, Path(folder) / "records", args.config))
    print(f"{program.name}: {len(lines)} lines, {len(traced.expected)} from {traced.shapes} statements, "
          f"{len(traced.others)} written by other code, {len(traced.unknown)} the truth does not know")
    for line in traced.unknown:
        print(f"  unknown: {line}")
    print(result.summary(shown=200))


if __name__ == "__main__":
    main()
