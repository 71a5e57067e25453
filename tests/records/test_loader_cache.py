"""The loader's cache of a large dataset trusts folder times (a manifest) instead of one stat per file."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from errdex.records import file_state
from errdex.records.loader import load_record_store
from tests.conftest import write_envelope

PAST = 1_700_000_000  # a time well before any walk, so no folder counts as changed too recently


def _variant(seed: dict[str, Any], index: int) -> dict[str, Any]:
    envelope = copy.deepcopy(seed)
    record = envelope["record"]
    record["id"] = f"{index:08x}" + record["id"][8:]
    record["slug"] = f"record-{index}"
    return envelope


def _age(root: Path) -> None:
    """Every folder and file under root dated in the past (as a dataset not touched for a while)."""
    for folder, _, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(folder, name), (PAST, PAST))
        os.utime(folder, (PAST, PAST))


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, seed: dict[str, Any]) -> Path:
    """A dataset that counts as large (every dataset does here), of two records, dated in the past."""
    monkeypatch.setattr(file_state, "FULL_CHECK_FILES", 0)
    root = tmp_path / "records"
    for index in range(2):
        write_envelope(root, _variant(seed, index))
    _age(root)
    return root


def _no_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the folders were walked although none changed")
    monkeypatch.setattr(file_state, "record_files", refuse)


def test_unchanged_folders_skip_the_walk_and_the_stats(monkeypatch: pytest.MonkeyPatch, large: Path) -> None:
    first = load_record_store([large])
    with monkeypatch.context() as patch:
        _no_walk(patch)
        again = load_record_store([large])
    assert again.views == first.views and again.loaded() == first.loaded()


def test_a_file_added_or_removed_changes_its_folder_and_is_seen(large: Path, seed: dict[str, Any]) -> None:
    assert len(load_record_store([large])) == 2
    added = write_envelope(large, _variant(seed, 2))
    assert len(load_record_store([large])) == 3
    added.unlink()
    assert len(load_record_store([large])) == 2


def test_an_edit_in_place_is_trusted_to_change_the_folder_time(large: Path) -> None:
    load_record_store([large])
    path = sorted(large.rglob("*.json"))[0]
    path.write_text(path.read_text().replace('"severity": "error"', '"severity": "warning"'))
    folder_time = (PAST, PAST)
    os.utime(path.parent, folder_time)  # a filesystem where editing in place leaves the folder's time alone
    assert [v["severity"] for v in load_record_store([large]).views] == ["error", "error"]  # what is trusted
    os.utime(path.parent)  # `touch` the folder: the full check runs and sees the edit
    assert sorted(v["severity"] for v in load_record_store([large]).views) == ["error", "warning"]


def test_a_folder_changed_during_the_walk_keeps_no_manifest(large: Path) -> None:
    os.utime(large)  # changed just now: within the time granularity of the walk
    load_record_store([large])
    assert not list(Path(os.environ["ERRDEX_CACHE_DIR"]).rglob("*.manifest"))
    _age(large)
    load_record_store([large])
    assert len(list(Path(os.environ["ERRDEX_CACHE_DIR"]).rglob("*.manifest"))) == 1


def test_a_small_dataset_is_checked_file_by_file(tmp_path: Path, seed: dict[str, Any]) -> None:
    root = tmp_path / "records"
    path = write_envelope(root, seed)
    _age(root)
    load_record_store([root])
    path.write_text(path.read_text().replace('"severity": "error"', '"severity": "warning"'))
    os.utime(path.parent, (PAST, PAST))
    assert load_record_store([root]).views[0]["severity"] == "warning"
    assert not list(Path(os.environ["ERRDEX_CACHE_DIR"]).rglob("*.manifest"))
