"""An accepted rewording gives the record the slug of its new message, and moves its file to match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errdex import _journal
from errdex.checks.runner import validate
from errdex.drift.outcomes import NewSite
from errdex.errors import InputError
from errdex.records.slug import derive_slug
from errdex.sync import sync
from tests.sync._build import (
    NEW_SHA,
    REPO,
    draft,
    drifted,
    hand_record,
    record_of,
    report,
    site,
    snapshot,
    write_bundle,
    write_folder,
)

REWORDED = "CreateOS sandbox is not the one asked for."
SLUG = "createos-sandbox-is-not-the-one-asked-for"


def test_a_reworded_record_gets_the_slug_of_its_message_and_its_file_moves(tmp_path: Path) -> None:
    record = hand_record()
    folder = tmp_path / "records"
    [old] = write_folder(folder, [record]).values()
    done = sync(drift=report([drifted(record, "reworded", message=REWORDED)]), records=[folder],
                accept_reworded=True)
    new = old.with_name(f"{SLUG}.json")
    assert not old.exists() and sorted(snapshot(folder)) == [f"{REPO}/{SLUG}.json"]
    synced = record_of(new)
    assert synced["slug"] == SLUG == derive_slug(REWORDED) and synced["id"] == record["id"]
    [change] = done.changes
    assert change.path == str(new) and change.renamed_from == str(old) and "slug" in change.fields
    assert done.lines()[0].endswith(f", file renamed from {old}")
    assert change.as_dict()["renamedFrom"] == str(old)
    assert not [f for f in validate([folder]).findings if f.code in ("EDX111", "EDX112")]


def test_check_says_where_the_file_would_go_and_moves_nothing(tmp_path: Path) -> None:
    record = hand_record()
    folder = tmp_path / "records"
    write_folder(folder, [record])
    before = snapshot(folder)
    done = sync(drift=report([drifted(record, "reworded", message=REWORDED)]), records=[folder],
                accept_reworded=True, check=True)
    assert done.changes[0].renamed_from is not None and snapshot(folder) == before


def test_a_failure_midway_leaves_the_old_file_and_no_new_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record, other = hand_record(), hand_record() | {"id": "00000000000000bb", "slug": "in-bundle"}
    folder = tmp_path / "records"
    write_folder(folder, [record])
    write_bundle(folder / "more.jsonl", [other])
    before = snapshot(folder)
    real, staged = _journal.stage, list[Path]()

    def failing(path: Path, data: bytes) -> Path:
        if staged:
            raise OSError(28, "No space left on device")
        staged.append(real(path, data))
        return staged[-1]

    monkeypatch.setattr(_journal, "stage", failing)
    drift = report([drifted(record, "reworded", message=REWORDED), drifted(other, "moved")])
    with pytest.raises(InputError, match="nothing was written"):
        sync(drift=drift, records=[folder], accept_reworded=True)
    assert snapshot(folder) == before
    assert sorted(path.name for path in folder.rglob("*") if path.is_file()) == sorted(
        ["createos-sandbox-identity-or-state-is-invalid.json", "more.jsonl"])  # no staged file is left


def test_a_slug_taken_in_the_repository_gets_a_numeric_suffix(tmp_path: Path) -> None:
    record = hand_record()
    holder = hand_record() | {"id": "00000000000000cc", "slug": SLUG, "errorMessage": REWORDED}
    folder = tmp_path / "records"
    paths = write_folder(folder, [record, holder])
    before = paths[holder["id"]].read_bytes()
    sync(drift=report([drifted(record, "reworded", message=REWORDED)]), records=[folder], accept_reworded=True)
    moved = folder / REPO / f"{SLUG}-2.json"
    assert record_of(moved)["slug"] == f"{SLUG}-2" and record_of(moved)["id"] == record["id"]
    assert paths[holder["id"]].read_bytes() == before and not paths[record["id"]].exists()
    assert not [f for f in validate([folder]).findings if f.code in ("EDX111", "EDX112")]


def test_a_file_beside_a_single_record_file_is_never_overwritten(tmp_path: Path) -> None:
    record = hand_record()
    folder = tmp_path / "records"
    [old] = write_folder(folder, [record]).values()
    stranger = old.with_name(f"{SLUG}.json")
    stranger.write_text("not read by this sync")
    sync(drift=report([drifted(record, "reworded", message=REWORDED)]), records=[old], accept_reworded=True)
    assert stranger.read_text() == "not read by this sync"
    assert record_of(old.with_name(f"{SLUG}-2.json"))["slug"] == f"{SLUG}-2" and not old.exists()


def test_a_slug_that_still_follows_is_kept(tmp_path: Path) -> None:
    long = "CreateOS sandbox identity or state is invalid because the sandbox answered"  # > 60 characters
    record = hand_record() | {"errorMessage": long, "slug": derive_slug(long)}
    changed = long + " for another one"
    [path] = write_folder(tmp_path / "records", [record]).values()
    done = sync(drift=report([drifted(record, "reworded", message=changed)]), records=[tmp_path / "records"],
                accept_reworded=True)
    synced = record_of(path)
    assert synced["slug"] == record["slug"] and synced["errorMessage"] == changed
    assert "slug" not in done.changes[0].fields and done.changes[0].renamed_from is None


def test_in_a_bundle_the_line_is_rewritten_in_place(tmp_path: Path) -> None:
    record = hand_record()
    bundle = tmp_path / "records.jsonl"
    write_bundle(bundle, [record])
    sync(drift=report([drifted(record, "reworded", message=REWORDED)]), records=[bundle], accept_reworded=True)
    [line] = bundle.read_text().splitlines()
    assert json.loads(line)["record"]["slug"] == SLUG and sorted(tmp_path.iterdir()) == [bundle]


def test_a_new_draft_does_not_take_the_new_slug(tmp_path: Path) -> None:
    record = hand_record()
    folder = tmp_path / "records"
    write_folder(folder, [record])
    new = NewSite(site(18, REWORDED), draft(18, NEW_SHA, REWORDED))
    done = sync(drift=report([drifted(record, "reworded", message=REWORDED)], [new]), records=[folder],
                accept_reworded=True, add_new=True)
    [(_, where)] = done.added
    assert Path(where).name == f"{SLUG}-2.json" and record_of(folder / REPO / f"{SLUG}.json")["id"] == record["id"]
