"""Temporary files errdex makes, all-or-nothing changes, and cleaning what killed runs left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from errdex._files import clean_leftovers, make_scratch, replacing, scratch, stage, write_atomic
from errdex._journal import Change, read_journal
from errdex._locks import settle


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_temporary_files_of_dead_processes_are_removed(tmp_path: Path) -> None:
    dead, alive = _dead_pid(), os.getpid()
    names = {
        f".a.json.{dead}-abcdefgh.tmp": False,   # write_atomic of a killed run: removed
        f".x.duckdb.{dead}.tmp": False,          # an index build of a killed run
        f".x.duckdb.{dead}.tmp.wal": False,
        f".a.json.{alive}-abcdefgh.tmp": True,   # a live process is still writing it
        "a.json": True, f"a.json.{dead}.tmp": True, ".a.json": True, f".notes.{dead}.txt": True,
    }
    for name in names:
        (tmp_path / name).write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / f".b.json.{dead}-abcdefgh.tmp").write_text("x")
    outside = tmp_path.parent / f"outside-{dead}"
    outside.mkdir(exist_ok=True)
    (outside / f".c.json.{dead}-abcdefgh.tmp").write_text("x")
    (tmp_path / "link").symlink_to(outside)  # never followed
    removed = clean_leftovers(tmp_path, recursive=True)
    assert sorted(p.name for p in removed) == sorted(
        [n for n, kept in names.items() if not kept] + [f".b.json.{dead}-abcdefgh.tmp"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*(n for n, kept in names.items() if kept),
                                                                 "sub", "link"])
    assert (outside / f".c.json.{dead}-abcdefgh.tmp").exists()


def test_a_temporary_file_being_written_is_never_removed(tmp_path: Path) -> None:
    staged = stage(tmp_path / "a.json", b"new")
    assert clean_leftovers(tmp_path) == [] and staged.read_bytes() == b"new"
    write_atomic(tmp_path / "a.json", b"done")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["a.json", staged.name])


def test_a_change_is_all_or_nothing(tmp_path: Path) -> None:
    targets = [tmp_path / f"{n}.json" for n in range(3)]
    for target in targets:
        target.write_text("old")
    change = Change(tmp_path / ".errdex-journal.json")
    for target in targets:
        change.write(target, b"new")
    assert [t.read_text() for t in targets] == ["old"] * 3
    change.abandon()
    assert [t.read_text() for t in targets] == ["old"] * 3 and sorted(tmp_path.iterdir()) == targets
    change = Change(tmp_path / ".errdex-journal.json")
    for target in targets:
        change.write(target, b"new")
    change.commit()
    assert [t.read_text() for t in targets] == ["new"] * 3 and sorted(tmp_path.iterdir()) == targets
    assert read_journal(tmp_path / ".errdex-journal.json") is None


def test_replacing_renames_the_written_temporary_over_the_target(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with replacing(target, companions=(".wal",)) as tmp:
        assert tmp.parent == tmp_path and tmp.name == f".out.bin.{os.getpid()}.tmp"
        tmp.write_bytes(b"new")
        tmp.with_name(tmp.name + ".wal").write_bytes(b"log")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_replacing_leaves_the_target_alone_when_the_block_fails(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), replacing(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("killed")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_a_removal_waits_for_the_commit_and_is_undone_by_abandoning(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text("record")
    change = Change(tmp_path / ".errdex-journal.json")
    change.write(new, b"record, renamed")
    change.remove(old)
    assert old.read_text() == "record"  # nothing is removed before the commit
    change.abandon()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"] and old.read_text() == "record"
    change = Change(tmp_path / ".errdex-journal.json")
    change.write(new, b"record, renamed")
    change.remove(old)
    change.commit()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json"]
    assert new.read_text() == "record, renamed"


def test_a_file_removed_and_written_in_one_change_is_written(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("a")
    second.write_text("b")
    change = Change(tmp_path / ".errdex-journal.json")  # two records swap their names
    change.write(first, b"b")
    change.write(second, b"a")
    change.remove(first)
    change.remove(second)
    change.commit()
    assert (first.read_text(), second.read_text()) == ("b", "a")


def test_a_removal_only_change_commits_and_an_empty_one_writes_no_journal(tmp_path: Path) -> None:
    gone = tmp_path / "gone.json"
    gone.write_text("x")
    change = Change(tmp_path / ".errdex-journal.json")
    change.remove(gone)
    change.commit()
    assert list(tmp_path.iterdir()) == []
    Change(tmp_path / ".errdex-journal.json").commit()
    assert list(tmp_path.iterdir()) == []


def test_recover_finishes_the_removals_of_a_killed_change(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text("record")
    staged = stage(new, b"record, renamed")
    journal = tmp_path / ".errdex-journal.json"
    journal.write_text(json.dumps({"pid": _dead_pid(), "renames": [[str(staged), str(new)]],
                                   "removes": [str(old)]}))
    assert settle(tmp_path, what="test") is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json"] and new.read_text() == "record, renamed"


def test_a_scratch_folder_a_killed_process_left_is_removed_by_the_next_of_its_kind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a killed 'import -' or parquet export, or an index built with no cache, left its copy of the records in /tmp
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # the temporary folder is chosen again, from TMPDIR
    code = ("import sys\nfrom errdex._files import scratch\nwith scratch('import') as folder:\n"
            "    (folder / 'stdin.jsonl').write_text('held')\n    print(folder, flush=True)\n    sys.stdin.read()\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": f"toolkit{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert child.stdout is not None
    left = Path(child.stdout.readline().strip())
    child.kill()
    child.communicate()
    assert left.parent == tmp_path and (left / "stdin.jsonl").read_text() == "held"
    other_kind = tmp_path / f"errdex-index-{child.pid}-abcdefgh"  # another kind: its own next run removes it
    living = tmp_path / f"errdex-import-{os.getpid()}-abcdefgh"  # a live process's
    linked = tmp_path / f"errdex-import-{child.pid}-linkedxx"  # a link named like one: never followed
    target = tmp_path / "target"
    for folder in (other_kind, living, target):
        folder.mkdir()
    (target / "keep").write_text("")
    linked.symlink_to(target)
    with scratch("import") as mine:
        assert mine.name.startswith(f"errdex-import-{os.getpid()}-") and oct(mine.stat().st_mode)[-3:] == "700"
        assert not left.exists() and other_kind.is_dir() and living.is_dir() and (target / "keep").exists()
    assert not mine.exists()
    made = make_scratch("index")
    assert not other_kind.exists() and made.is_dir()
