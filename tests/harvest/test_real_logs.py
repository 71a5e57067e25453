"""Harvested records on real code and its real logs: the figures the README gives.

Each upstream tree is harvested at the tag that wrote the Loghub sample (read from the bare repository, no
checkout), then every line the truth file attributes to that code is matched, and its top-1 record must name
the statement that wrote it. The floors sit a little under what is measured today; the README lists what is
still traced wrong and why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errdex.harvest.run import harvest
from tests.harvest.test_generic_drafts import fifth_offenders
from tests.harvest.truth import Expected, openssh_expected, score, shared_data, zookeeper_expected

ROOT = Path(__file__).resolve().parents[2]
SSHD_SINKS = ROOT / "examples" / "harvest" / "openssh-sshd.toml"


@pytest.fixture(scope="module")
def data() -> Path:
    return shared_data()


def _harvest(data: Path, tmp: Path, repo_dir: str, repo: str, rev: str, config: Path | None = None) -> Path:
    out = tmp / "records"
    out.mkdir()
    harvest(data / "repos" / repo_dir, repo=repo, rev=rev, out=out, config=config, log_levels="all")
    return out


@pytest.fixture(scope="module")
def zookeeper(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _harvest(data, tmp_path_factory.mktemp("zookeeper"), "zookeeper.git", "apache/zookeeper",
                    "release-3.4.5")


@pytest.fixture(scope="module")
def openssh(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _harvest(data, tmp_path_factory.mktemp("openssh"), "openssh-portable.git", "openssh/openssh-portable",
                    "V_6_6_P1", config=SSHD_SINKS)


def test_zookeeper_lines_trace_to_their_log_call(data: Path, zookeeper: Path) -> None:
    result = score(zookeeper, zookeeper_expected(data))
    assert result.total == 2000
    assert result.rate >= ZOOKEEPER_FLOOR, result.summary()


def test_openssh_lines_trace_to_the_call_that_supplies_their_text(data: Path, openssh: Path) -> None:
    result = score(openssh, openssh_expected(data))
    assert result.total == 1350
    assert result.rate >= OPENSSH_FLOOR, result.summary()


def _right(expected: list[Expected]) -> dict[int, tuple[str, int]]:
    return {item.number: (item.spans[0][0], item.spans[0][1]) for item in expected if len(item.spans) == 1
            and item.spans[0][1] == item.spans[0][2]}


def test_no_zookeeper_draft_takes_a_fifth_of_the_real_log_while_wrong_on_most(data: Path, zookeeper: Path) -> None:
    log = data / "loghub" / "Zookeeper" / "Zookeeper_2k.log"
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    assert fifth_offenders(zookeeper, lines, _right(zookeeper_expected(data))) == []


#: What is measured today, rounded down (the issue's targets: 97% and 95%). ZooKeeper measures 99.95%: two log
#: calls with one message (QuorumCnxManager 364 and 368, NIOServerCnxn 338 and 354) are told apart by the
#: ``Class@line`` log4j prints (the matcher's tie-break), Environment.logEnv's message comes from its callers'
#: literals; its one miss is a PrepRequestProcessor line whose ``request.toString()`` holds colons.
ZOOKEEPER_FLOOR = 0.99
OPENSSH_FLOOR = 0.99
