"""Harvest, sync, harvest again: a synced draft is not added a second time under the id of its new message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errdex.drift.outcomes import Drifted, DriftReport, Place
from errdex.errors import DataError
from errdex.harvest.drafts import source_lines
from errdex.harvest.run import harvest
from errdex.sync import sync
from tests.harvest import _fake
from tests.harvest.conftest import crafted_commit, git, write_tree
from tests.processes import run

OLD = 'fn main\nthrow Error "boom {x}"\n'
NEW = 'fn main\nlog info "starting"\nlog info "still starting"\nthrow Error "kaboom {x}"\n'


def _commit(repo: Path, text: str) -> str:
    write_tree(repo, {"src/a.fake": text})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change")
    return git(repo, "rev-parse", "HEAD")


def _harvested_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A repository of OLD in one commit, harvested into ``records``: the repository, the folder and the record."""
    _fake.install(monkeypatch)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    out = tmp_path / "records"
    harvest(repo, repo="acme/app", rev=_commit(repo, OLD), out=out)
    [path] = out.rglob("*.json")
    return repo, out, path


def test_a_reworded_draft_synced_then_harvested_again_stays_one_record(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    repo, out, path = _harvested_once(tmp_path, monkeypatch)
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
    moved = path.with_name("kaboom-x.json")  # the slug follows the new message, the file the slug
    synced = json.loads(moved.read_text())["record"]
    assert synced["errorMessage"] == "kaboom {x}" and synced["id"] == record["id"] and synced["lineNumber"] == 4
    assert synced["slug"] == "kaboom-x" and not path.exists()
    again = harvest(repo, repo="acme/app", rev=second, out=out)
    assert not again.new and not again.gone and list(out.rglob("*.json")) == [moved]
    assert again.unchanged == 1


def test_a_commit_whose_tree_holds_a_dot_dot_entry_never_puts_it_in_a_record(tmp_path: Path) -> None:
    # issue 24, break 12: the file moved into a tree entry named '..'; sync wrote filePath "../app.py" and
    # validate took it
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    code = 'def f():\n    raise ValueError("the app failed to start")\n'
    write_tree(repo, {"app.py": code, "pct%20and#hash?.py": code.replace("app", "other app")})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    first = git(repo, "rev-parse", "HEAD")
    done = run("harvest", "repo", "--repo", "acme/app", "--rev", first, "--out", "records", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = list((tmp_path / "records").rglob("*.json"))
    urls = sorted(json.loads(path.read_text())["record"]["githubUrl"] for path in records)
    assert urls == [f"https://github.com/acme/app/blob/{first}/app.py#L1-L2",
                    f"https://github.com/acme/app/blob/{first}/pct%2520and%23hash%3F.py#L1-L2"]
    other = code.replace("app", "other app").encode()
    crafted_commit(repo, {b"../app.py": code.encode(), b"pct%20and#hash?.py": other}, parent=first)
    done = run("sync", "--source", "repo", "--rev", "HEAD", "--records", "records", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "kept vanished" in done.stdout
    paths = {json.loads(path.read_text())["record"]["filePath"] for path in (tmp_path / "records").rglob("*.json")}
    assert paths == {"app.py", "pct%20and#hash?.py"}
    assert run("validate", "records", cwd=tmp_path).returncode == 0


def test_sync_refuses_a_place_outside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, out, path = _harvested_once(tmp_path, monkeypatch)
    before = path.read_bytes()
    record = json.loads(before)["record"]
    item = Drifted(record["id"], "moved", Place("src/a.fake", 2, 2), Place("../a.fake", 2, 2),
                   record["errorMessage"], how="diff")
    found = DriftReport("acme/app", "e" * 40, "HEAD", record["analyzedAt"], [item],
                        lines=lambda name: source_lines(OLD.encode()))
    with pytest.raises(DataError, match=r"drift placed it at '../a.fake', which has a '.' or '..' part"):
        sync(drift=found, records=[out])
    assert path.read_bytes() == before
