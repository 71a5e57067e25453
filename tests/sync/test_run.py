from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from errdex import _journal
from errdex.drift.outcomes import DriftReport, NewSite
from errdex.errors import DataError, InputError, UsageError
from errdex.releases.diffing import diff
from errdex.sync import sync
from tests.sync._build import (
    NEW_SHA,
    PROSE,
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


def _records() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A hand-written record with prose, a harvested draft, and one more hand-written record (for vanishing)."""
    hand = hand_record()
    harvested = draft(10, "a" * 40, message="Lease expired.", text=hand["sourceCode"] * 3)
    gone = hand_record() | {"id": "00000000000000aa", "slug": "another-one", "errorMessage": "Gone away."}
    return hand, harvested, gone


def _drift(hand: dict[str, Any], harvested: dict[str, Any], gone: dict[str, Any]) -> DriftReport:
    return report([drifted(hand, "reworded", message=REWORDED),
                   drifted(harvested, "moved", 5, message="Lease expired."),
                   drifted(gone, "vanished", None)],
                  [NewSite(site(18, "A new site."), draft(18, NEW_SHA, "A new site."))])


def test_only_moved_records_change_without_flags(tmp_path: Path) -> None:
    records = _records()
    paths = write_folder(tmp_path / "records", records)
    before = snapshot(tmp_path / "records")
    done = sync(drift=_drift(*records), records=[tmp_path / "records"])
    assert [(item.record_id, item.kind) for item in done.changes] == [(records[1]["id"], "moved")]
    assert sorted((item.kind, item.flag) for item in done.kept) == [("reworded", "--accept-reworded"),
                                                                  ("vanished", "--retire-vanished")]
    after = snapshot(tmp_path / "records")
    changed = [name for name in after if after[name] != before[name]]
    assert changed == [str(paths[records[1]["id"]].relative_to(tmp_path / "records"))]
    assert record_of(paths[records[1]["id"]])["lineNumber"] == 5 and not done.added


def test_every_flag_and_prose_kept_byte_for_byte(tmp_path: Path) -> None:
    records = _records()
    folder = tmp_path / "records"
    paths = write_folder(folder, records)
    shutil.copytree(folder, tmp_path / "before")
    done = sync(drift=_drift(*records), records=[folder], accept_reworded=True, retire_vanished=True,
                add_new=True)
    assert sorted(item.kind for item in done.changes) == ["moved", "reworded", "vanished"]
    moved = paths[records[0]["id"]].with_name("createos-sandbox-is-not-the-one-asked-for.json")
    hand = record_of(moved)  # its slug follows its new message, and its file the slug
    assert hand["errorMessage"] == REWORDED and hand["lineNumber"] == 13 and not paths[records[0]["id"]].exists()
    for name in PROSE:
        assert json.dumps(hand.get(name)) == json.dumps(records[0].get(name))  # byte for byte
    assert hand["slug"] == "createos-sandbox-is-not-the-one-asked-for"
    assert "status" not in hand and hand["id"] == records[0]["id"]
    assert record_of(paths[records[2]["id"]])["status"] == "withdrawn"
    [(_, where)] = done.added
    assert record_of(Path(where))["errorMessage"] == "A new site." and record_of(Path(where))["status"] == "draft"
    # the release diff shows the old message beside the new one
    fields = {name: (old, new) for record, found in diff(tmp_path / "before", folder).changed
              if record["id"] == records[0]["id"] for name, old, new in found}
    assert fields["errorMessage"] == (records[0]["errorMessage"], REWORDED)


def test_check_writes_nothing_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    records = _records()
    folder = tmp_path / "records"
    write_folder(folder, records)
    before = snapshot(folder)
    checked = sync(drift=_drift(*records), records=[folder], check=True, accept_reworded=True,
                   retire_vanished=True, add_new=True)
    assert checked.changed and len(checked.changes) == 3 and len(checked.added) == 1
    assert snapshot(folder) == before and checked.lines()[0].startswith("would ")
    sync(drift=_drift(*records), records=[folder], accept_reworded=True, retire_vanished=True)
    synced = snapshot(folder)
    now = {record["id"]: record for record in (record_of(path) for path in folder.rglob("*.json"))}
    hand, harvested, gone = (now[record["id"]] for record in records)
    again = report([drifted(hand, "unchanged"), drifted(harvested, "unchanged", 5, message="Lease expired."),
                    drifted(gone, "vanished", None)])
    second = sync(drift=again, records=[folder], check=True, retire_vanished=True)
    assert not second.changed and second.unchanged == 3
    sync(drift=again, records=[folder], accept_reworded=True, retire_vanished=True)
    assert snapshot(folder) == synced


def test_a_failure_in_the_middle_leaves_every_file_as_it_was(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records()
    folder = tmp_path / "records"
    write_folder(folder, records)
    bundle = folder / "more.jsonl"
    write_bundle(bundle, [hand_record() | {"id": "00000000000000bb", "slug": "in-bundle"}])
    extra = drifted(hand_record() | {"id": "00000000000000bb"}, "moved")
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    real, staged = _journal.stage, list[Path]()

    def failing(path: Path, data: bytes) -> Path:
        if len(staged) == 2:
            raise OSError(28, "No space left on device")
        staged.append(real(path, data))
        return staged[-1]

    monkeypatch.setattr(_journal, "stage", failing)
    drift = report([*_drift(*records).drifted, extra])
    with pytest.raises(InputError, match="nothing was written"):
        sync(drift=drift, records=[folder], accept_reworded=True, retire_vanished=True)
    assert {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()} == before
    monkeypatch.setattr(_journal, "stage", real)
    done = sync(drift=drift, records=[folder], accept_reworded=True, retire_vanished=True)
    assert len(done.changes) == 4
    line = json.loads(bundle.read_text().splitlines()[0])["record"]
    assert line["lineNumber"] == 13 and line["analyzedSha"] == NEW_SHA


def test_an_unknown_record_stops_the_sync_before_anything_is_written(tmp_path: Path) -> None:
    records = _records()
    folder = tmp_path / "records"
    write_folder(folder, records[:2])
    before = snapshot(folder)
    with pytest.raises(DataError, match="which the records given do not hold"):
        sync(drift=_drift(*records), records=[folder])
    assert snapshot(folder) == before


def test_a_bundle_is_synced_whole_and_gets_the_new_drafts(tmp_path: Path) -> None:
    records = _records()
    bundle = tmp_path / "drafts.jsonl"
    write_bundle(bundle, records)
    done = sync(drift=_drift(*records), records=[bundle], accept_reworded=True, add_new=True)
    lines = [json.loads(line)["record"] for line in bundle.read_text().splitlines()]
    assert [record["id"] for record in lines] == sorted(record["id"] for record in lines) and len(lines) == 4
    assert done.added == [(done.added[0][0], str(bundle))]
    data = bundle.read_bytes()
    now = {record["id"]: record for record in lines}
    again = report([drifted(now[records[0]["id"]], "unchanged"),
                    drifted(now[records[1]["id"]], "unchanged", 5, message="Lease expired.")])
    assert not sync(drift=again, records=[bundle]).changed and bundle.read_bytes() == data


def test_the_drift_function_is_called_with_what_sync_was_given(tmp_path: Path) -> None:
    records = _records()
    folder = tmp_path / "records"
    write_folder(folder, records)
    calls: list[tuple[Any, dict[str, Any]]] = []

    def drift(source: Any, **options: Any) -> DriftReport:
        calls.append((source, options))
        return report([])

    done = sync("src.git", drift=drift, rev="v2", records=[folder], repo="o/n", config=None)
    assert calls == [("src.git", {"rev": "v2", "records": [folder], "repo": "o/n", "config": None})]
    assert not done.changed


def test_missing_records_and_a_file_for_new_drafts_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such records folder"):
        sync(drift=report([]), records=[tmp_path / "nowhere"])
    records = _records()
    paths = write_folder(tmp_path / "records", records)
    with pytest.raises(UsageError, match="--add-new adds drafts"):
        sync(drift=_drift(*records), records=[paths[records[0]["id"]]], add_new=True)


def test_a_new_site_that_is_a_record_already_is_not_added_twice(tmp_path: Path) -> None:
    records = _records()
    folder = tmp_path / "records"
    write_folder(folder, records)
    again = NewSite(site(10, "Lease expired."), records[1])  # drift calls it new; its id is a record's
    done = sync(drift=report([], [again]), records=[folder], add_new=True)
    assert not done.added and not done.changed and "are records already" in done.notes[0]
