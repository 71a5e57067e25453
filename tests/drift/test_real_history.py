"""Drift on real history: records harvested at an old release followed to later ones, against git's own diff.

OpenSSH V_6_6_P1 -> V_7_4_P1 and V_9_2_P1, ZooKeeper release-3.4.5 -> release-3.4.6 and release-3.4.14, and a
Python pair (Debian's pip -> the virtual environment's, as a two-commit history), each harvested at the old tag
with every log level. The oracle (:mod:`tests.drift.oracle`) is git itself: a record
whose call line the diff leaves untouched must land on exactly the line the diff maps it to; a record none of
whose statement's or message's literal text occurs anywhere at the new tag must not be said to be still there
(vanished, or reworded when a statement in its place writes a similar message). The counts printed here are
the README's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pip
import pytest

from errdex.drift.outcomes import DriftReport
from errdex.drift.run import drift
from errdex.harvest.run import harvest
from tests.drift.oracle import diff_lines, gone, tree_text
from tests.harvest.truth import shared_data

ROOT = Path(__file__).resolve().parents[2]
SSHD_SINKS = ROOT / "examples" / "harvest" / "openssh-sshd.toml"
#: The floor for records on untouched lines (the target is 100%).
EXACT_FLOOR = 0.98
#: The files searched for a message's text: every language harvest reads.
SOURCE_SUFFIXES = (".c", ".h", ".java", ".py", ".go", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts")


@dataclass(frozen=True)
class Project:
    repo_dir: str
    repo: str
    old: str
    suffixes: tuple[str, ...]
    config: Path | None = None


OPENSSH = Project("openssh-portable.git", "openssh/openssh-portable", "V_6_6_P1", SOURCE_SUFFIXES, SSHD_SINKS)
ZOOKEEPER = Project("zookeeper.git", "apache/zookeeper", "release-3.4.5", SOURCE_SUFFIXES)


@dataclass
class Measure:
    """One drift against the oracle."""

    counts: Counter[str] = field(default_factory=Counter)
    exact: int = 0
    untouched: int = 0
    misses: list[str] = field(default_factory=list)
    gone: int = 0
    gone_but_kept: list[str] = field(default_factory=list)  # gone from the tree, yet unchanged or moved
    gone_reworded: int = 0
    reworded: list[str] = field(default_factory=list)

    def summary(self, name: str) -> str:
        return (f"{name}: {dict(self.counts)}; untouched lines exact {self.exact}/{self.untouched}; text gone "
                f"{self.gone} (reworded {self.gone_reworded}); misses {self.misses[:10]}; gone but kept "
                f"{self.gone_but_kept[:10]}")


@pytest.fixture(scope="module")
def data() -> Path:
    return shared_data()


@pytest.fixture(scope="module")
def bundles(data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each project harvested once at its old tag, into a bundle shared by the tests."""
    folder = tmp_path_factory.mktemp("drift-history")
    found = {}
    for project in (OPENSSH, ZOOKEEPER):
        bundle = folder / f"{project.repo_dir}.jsonl"
        harvest(data / "repos" / project.repo_dir, repo=project.repo, rev=project.old, bundle=bundle,
                config=project.config, log_levels="all")
        found[project.repo_dir] = bundle
    return found


def _records(bundle: Path) -> dict[str, dict[str, Any]]:
    lines = bundle.read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["record"]["id"]: json.loads(line)["record"] for line in lines}


def measure(report: DriftReport, records: dict[str, dict[str, Any]], repo: Path, old: str, new: str,
            suffixes: tuple[str, ...]) -> Measure:
    """How ``report`` compares with the oracle."""
    files = diff_lines(repo, old, new)
    text = tree_text(repo, new, suffixes)
    result = Measure(Counter(item.kind for item in report.drifted))
    for item in report.drifted:
        record = records[item.record_id]
        path, line = str(record["filePath"]), int(record["lineNumber"])
        diff = files.get(path)
        want = (path, line) if diff is None else None if (mapped := diff.untouched(line)) is None else (
            diff.new_path, mapped)
        got = None if item.new is None else (item.new.path, item.new.line)
        if want is not None:
            result.untouched += 1
            result.exact += got == want
            if got != want:
                result.misses.append(f"{item.record_id} {path}:{line} want {want} got {got} ({item.kind})")
        if gone(record, text):
            result.gone += 1
            if item.kind in ("unchanged", "moved"):
                result.gone_but_kept.append(f"{item.record_id} {path}:{line} {record['errorMessage']!r}")
            result.gone_reworded += item.kind == "reworded"
        if item.kind == "reworded":
            result.reworded.append(f"{path}:{line} {item.old_message!r} -> {item.new_message!r}")
    return result


def _check(data: Path, bundles: dict[str, Path], project: Project, new: str) -> Measure:
    repo = data / "repos" / project.repo_dir
    bundle = bundles[project.repo_dir]
    report = drift(repo, rev=new, records=[bundle], config=project.config)
    result = measure(report, _records(bundle), repo, project.old, new, project.suffixes)
    print(result.summary(f"{project.repo} {project.old} -> {new}"))
    print("reworded sample:", *result.reworded[:5], sep="\n  ")
    assert result.untouched and result.exact / result.untouched >= EXACT_FLOOR, result.misses
    assert result.gone_but_kept == []
    return result


@pytest.mark.parametrize("new", ["V_7_4_P1", "V_9_2_P1"])
def test_openssh(data: Path, bundles: dict[str, Path], new: str) -> None:
    _check(data, bundles, OPENSSH, new)


@pytest.mark.parametrize("new", ["release-3.4.6", "release-3.4.14"])
def test_zookeeper(data: Path, bundles: dict[str, Path], new: str) -> None:
    _check(data, bundles, ZOOKEEPER, new)


#: Debian's own pip (python3-pip: 23.0.1 on Debian 12), an older release of the pip the virtual environment runs.
DEBIAN_PIP = Path("/usr/lib/python3/dist-packages/pip")


def _python_pair(tmp: Path, old: Path, new: Path, under: str) -> Path:
    """Two releases of a Python package as a two-commit history (tags ``old`` and ``new``) at ``under``: what
    two sdists of a project would give, from copies already on disk."""
    repo = tmp / "repo"
    repo.mkdir()
    for tag, folder in (("old", old), ("new", new)):
        shutil.rmtree(repo / under, ignore_errors=True)
        shutil.copytree(folder, repo / under, ignore=shutil.ignore_patterns("__pycache__", "_vendor"))
        for args in (("init", "-q", "-b", "main") if tag == "old" else (), ("add", "-A"),
                     ("-c", "user.name=errdex", "-c", "user.email=errdex@invalid", "commit", "-q", "-m", tag),
                     ("tag", tag)):
            if args:
                subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return repo


def test_python_release_pair(tmp_path: Path) -> None:
    """pip from Debian's release to the virtual environment's, its vendored libraries left out: every record
    on a line the diff leaves untouched lands there, and identical statements keep their order."""
    new = Path(pip.__file__).resolve().parent
    if not DEBIAN_PIP.is_dir() or DEBIAN_PIP.resolve() == new:
        reason = f"no second release of pip on disk ({DEBIAN_PIP}: Debian's python3-pip)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    repo = _python_pair(tmp_path, DEBIAN_PIP, new, "src/pip")
    bundle = tmp_path / "pip.jsonl"
    harvest(repo, repo="pypa/pip", rev="old", bundle=bundle, log_levels="all")
    report = drift(repo, rev="new", records=[bundle])
    result = measure(report, _records(bundle), repo, "old", "new", SOURCE_SUFFIXES)
    print(result.summary("pypa/pip Debian -> venv"))
    assert result.untouched >= 100 and result.exact / result.untouched >= EXACT_FLOOR, result.misses
    assert result.gone_but_kept == []
