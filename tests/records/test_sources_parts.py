"""The documents of part of the record files (a split load): the same as picked from all of them, with no
stat of the files past the part and no second walk of a folder walked before."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from errdex.records import sources
from errdex.records.canonical import canonical_text
from errdex.records.sources import iter_documents, walked_folders


def _tree(root: Path, seed: dict[str, Any]) -> list[Path]:
    """Eight record files in two folders, one a hard link to another (read once), a bundle and a missing path."""
    for index in range(7):
        folder = root / "records" / ("a" if index < 4 else "b")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"r{index}.json").write_text(canonical_text(seed))
    os.link(root / "records" / "a" / "r1.json", root / "records" / "b" / "z-link.json")
    bundle = root / "dump.jsonl"
    bundle.write_text(canonical_text(seed, bundle_line=True) + "\n")
    (root / "empty").mkdir()
    return [root / "records", bundle, root / "empty", root / "records" / "a" / "r0.json", root / "missing"]


def _shown(docs: Any) -> list[tuple[str, Any, list[str]]]:
    return [(doc.path, doc.value, [p.message for p in doc.problems]) for doc in docs]


@pytest.mark.parametrize("middle", [1, 3, 4, 7, 9, 20])  # a split load halves at 2000 files or more
def test_the_halves_are_the_whole_and_the_first_stats_no_file_past_it(
        tmp_path: Path, seed: dict[str, Any], middle: int, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _tree(tmp_path, seed)
    whole = _shown(iter_documents(paths))
    walks = walked_folders(paths)
    first = _shown(iter_documents(paths, files=range(0, middle), walks=walks))
    second = _shown(iter_documents(paths, files=range(middle, sys.maxsize)))
    problems = [shown for shown in whole if shown[1] is None]  # the documents of no file come with the first half
    assert sorted(first + second, key=whole.index) == whole and all(p in first for p in problems)
    stated: list[str] = []
    real = sources._read_already

    def counted(path: Any, read: set[tuple[int, int]]) -> bool:
        stated.append(str(path))
        return real(path, read)
    monkeypatch.setattr(sources, "_read_already", counted)
    list(iter_documents(paths))
    every, stated[:] = list(stated), []
    assert _shown(iter_documents(paths, files=range(0, middle), walks=walks)) == first
    unique = 8  # the walk's files but the hard link, and the bundle (the file named directly was read already)
    # the files up to the part's end, those read already among them, and none after
    assert stated == every[:len(stated)] and (len(stated) < len(every)) == (middle < unique)
    assert len(stated) >= min(middle, unique)

def test_a_folder_walked_before_is_not_walked_again(tmp_path: Path, seed: dict[str, Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _tree(tmp_path, seed)
    whole = _shown(iter_documents(paths))
    walks = walked_folders(paths)
    assert set(walks) == {str(paths[0]), str(paths[2])}
    monkeypatch.setattr(sources, "_walk", lambda folder: pytest.fail(f"walked {folder} again"))
    assert _shown(iter_documents(paths, walks=walks)) == whole


def test_a_record_file_is_read_once_and_its_first_bytes_told_apart(tmp_path: Path, seed: dict[str, Any],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is read whole before its first bytes are tested (no second read for them), and what a file is
    comes before its size, as when the test read them apart."""
    record = canonical_text(seed).encode()
    monkeypatch.setattr(sources, "MAX_DOCUMENT_BYTES", len(record) + 100)
    files = {"record.json": record, "small.json": b"SQLite format 3\0" + b"x" * 10, "short.json": b"PK\x03\x04",
             "big.json": b"PAR1" + b"x" * (len(record) + 200), "big-text.json": b" " * (len(record) + 200)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    preads: list[int] = []
    real = os.pread
    monkeypatch.setattr(os, "pread", lambda fd, size, offset: preads.append(size) or real(fd, size, offset))
    found = {Path(doc.path).name: (doc.value is not None, [p.message for p in doc.problems])
             for doc in iter_documents(sorted(tmp_path.iterdir()))}
    assert found["record.json"] == (True, [])
    assert "an SQLite database" in found["small.json"][1][0] and "a ZIP archive" in found["short.json"][1][0]
    assert "a Parquet file" in found["big.json"][1][0]
    assert found["big-text.json"][1] == [f"file is {len(record) + 200} bytes; a record file holds one record of a "
                                         "few kilobytes"]
    assert preads == [32, 32]  # only for the two files too large to be read
