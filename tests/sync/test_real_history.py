"""Sync on real history, tag after tag: records harvested at an old release, synced to the next release and then
to a later one, stay anchored to the real code.

OpenSSH V_6_6_P1 -> V_7_4_P1 -> V_9_2_P1 and ZooKeeper release-3.4.5 -> release-3.4.6 -> release-3.4.14. After
each sync, ``validate --source`` (EDX137-EDX139: excerpt, line inside the statement, URL at the commit) finds
nothing, and every record whose call line the diff between the two tags leaves untouched has exactly the line
the diff maps it to (the oracle is git itself: :mod:`tests.drift.oracle`).
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from errdex.checks.runner import validate
from errdex.drift.anchors import open_anchors
from errdex.drift.run import drift
from errdex.harvest.run import harvest
from errdex.sync.run import sync
from tests.drift.oracle import diff_lines
from tests.harvest.truth import shared_data

ROOT = Path(__file__).resolve().parents[2]
SSHD_SINKS = ROOT / "examples" / "harvest" / "openssh-sshd.toml"
SOURCE_CODES = ("EDX137", "EDX138", "EDX139")
EXACT_FLOOR = 0.98  # the target is 100%

CHAINS = [
    pytest.param("openssh-portable.git", "openssh/openssh-portable", ("V_6_6_P1", "V_7_4_P1", "V_9_2_P1"),
                 SSHD_SINKS, id="openssh"),
    pytest.param("zookeeper.git", "apache/zookeeper", ("release-3.4.5", "release-3.4.6", "release-3.4.14"), None,
                 id="zookeeper"),
]


def _records(bundle: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for line in bundle.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)["record"]
        found[record["id"]] = record
    return found


def _source_findings(bundle: Path, repo: Path, config: Path | None) -> list[str]:
    report = validate([bundle], select=list(SOURCE_CODES), source=open_anchors(repo, config=config))
    return [f"{finding.code} {finding.record_id}: {finding.message}" for finding in report.findings
            if finding.code in SOURCE_CODES]


@pytest.mark.parametrize(("repo_dir", "repo_name", "tags", "config"), CHAINS)
def test_sync_follows_the_code_tag_after_tag(repo_dir: str, repo_name: str, tags: tuple[str, ...],
                                             config: Path | None, tmp_path: Path) -> None:
    repo = shared_data() / "repos" / repo_dir
    bundle = tmp_path / "records.jsonl"
    harvest(repo, repo=repo_name, rev=tags[0], bundle=bundle, config=config, log_levels="all")
    for old, new in pairwise(tags):
        before = _records(bundle)
        report = sync(repo, drift=drift, rev=new, records=[bundle], config=config, accept_reworded=True)
        assert report.changed
        after = _records(bundle)
        assert set(after) == set(before)  # nothing lost, nothing added without --add-new
        for record_id, record in after.items():  # prose never touched
            for name in ("documentation", "solutions", "commonSituations", "preventionTips", "status"):
                assert record.get(name) == before[record_id].get(name), (record_id, name)
        diffs = {sha: diff_lines(repo, sha, new) for sha in {str(r["analyzedSha"]) for r in before.values()}}
        exact = untouched = 0
        misses = []
        for record_id, record in before.items():
            path, line = str(record["filePath"]), int(record["lineNumber"])
            diff = diffs[str(record["analyzedSha"])].get(path)  # from the record's own commit
            mapped = (path, line) if diff is None else None if (to := diff.untouched(line)) is None \
                else (diff.new_path, to)
            if mapped is None:
                continue
            untouched += 1
            got = (after[record_id]["filePath"], after[record_id]["lineNumber"])
            exact += got == mapped
            if got != mapped:
                misses.append(f"{record_id} {path}:{line} -> {got}, diff maps it to {mapped}")
        print(f"{repo_name} {old} -> {new}: untouched {untouched}, exact {exact}; misses {misses[:5]}")
        assert untouched and exact / untouched >= EXACT_FLOOR, misses[:10]
        findings = _source_findings(bundle, repo, config)
        assert findings == [], findings[:10]
