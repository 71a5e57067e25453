"""Harvest, sync, harvest again: a synced draft is not added a second time under the id of its new message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errdex.drift.outcomes import Drifted, DriftReport, Place
from errdex.harvest.drafts import source_lines
from errdex.harvest.run import harvest
from errdex.sync import sync
from tests.harvest import _fake
from tests.harvest.conftest import git, write_tree

OLD = 'fn main\nthrow Error "boom {x}"\n'
NEW = 'fn main\nlog info "starting"\nlog info "still starting"\nthrow Error "kaboom {x}"\n'


def _commit(repo: Path, text: str) -> str:
    write_tree(repo, {"src/a.fake": text})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change")
    return git(repo, "rev-parse", "HEAD")


def test_a_reworded_draft_synced_then_harvested_again_stays_one_record(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _fake.install(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    first = _commit(repo, OLD)
    out = tmp_path / "records"
    harvest(repo, repo="acme/app", rev=first, out=out)
    [path] = out.rglob("*.json")
    record = json.loads(path.read_text())["record"]
    second = _commit(repo, NEW)
    fresh = tmp_path / "fresh.jsonl"
    harvest(repo, repo="acme/app", rev=second, bundle=fresh)
    draft = json.loads(fresh.read_text().splitlines()[0])["record"]
    item = Drifted(record["id"], "reworded", Place("src/a.fake", 2, 2), Place("src/a.fake", 4, 4),
                   record["errorMessage"], how="fingerprint", draft=draft)
    found = DriftReport("acme/app", second, second, draft["analyzedAt"], [item],
                        lines=lambda name: source_lines(NEW.encode()) if name == "src/a.fake" else None)
    done = sync(drift=found, records=[out], accept_reworded=True)
    assert [change.kind for change in done.changes] == ["reworded"]
    synced = json.loads(path.read_text())["record"]
    assert synced["errorMessage"] == "kaboom {x}" and synced["id"] == record["id"] and synced["lineNumber"] == 4
    again = harvest(repo, repo="acme/app", rev=second, out=out)
    assert not again.new and not again.gone and list(out.rglob("*.json")) == [path]
    assert again.unchanged == 1
