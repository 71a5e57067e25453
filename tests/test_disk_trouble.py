"""A full disk or a read-only one during a write: one line naming what could not be written, exit 1, the old
files intact and nothing left behind. The disk is a real, small tmpfs (mounting one needs root; elsewhere these
tests skip)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import ROOT


@contextmanager
def _tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of ``size`` mounted at ``mount`` for the block (the test skips where it cannot be mounted)."""
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs holding a copy of the bundled records, then filled to the last byte."""
    with _tmpfs(tmp_path / "disk", "2m") as mount:
        shutil.copytree(ROOT / "records", mount / "records")
        (mount / "CHANGELOG.md").write_text("# Changelog\n", encoding="utf-8")
        with open(mount / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:
                pass
        yield mount


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line(result, *words: str) -> None:
    assert result.exit_code == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "[Errno" not in result.stderr and "internal" not in result.stderr and "('" not in result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def test_site_build_on_a_full_disk_names_the_folder_and_leaves_nothing(cli, full_disk: Path) -> None:
    before = sorted(os.listdir(full_disk))
    result = cli("site", "build", "--records", str(full_disk / "records"), "--out", str(full_disk / "site"))
    _one_line(result, str(full_disk / "site"), "no space left")
    assert sorted(os.listdir(full_disk)) == before


def test_export_jsonl_on_a_full_disk_names_the_file(cli, full_disk: Path) -> None:
    out = full_disk / "out.jsonl"
    result = cli("export", "--to", "jsonl", "--records", str(full_disk / "records"), "--output", str(out))
    _one_line(result, str(out), "no space left")
    assert not out.exists() and not [n for n in os.listdir(full_disk) if n.endswith(".tmp")]


def test_release_on_a_full_disk_says_why_without_an_empty_name(cli, full_disk: Path) -> None:
    records = full_disk / "records"
    before = _files(records)
    result = cli("release", "--version", "2026-12-01T00:00:00Z", "--records", str(records),
                 "--out", str(full_disk / "dist"), "--changelog", str(full_disk / "CHANGELOG.md"))
    _one_line(result, "no space left", "nothing was changed")
    assert ": :" not in result.stderr
    assert _files(records) == before
    assert (full_disk / "CHANGELOG.md").read_text(encoding="utf-8") == "# Changelog\n"


def test_import_on_a_full_disk_names_the_record_file_and_writes_nothing(cli, full_disk: Path, tmp_path: Path) -> None:
    records = full_disk / "records"
    bundle = tmp_path / "bundle.jsonl"
    assert cli("export", "--to", "jsonl", "--records", str(records), "--output", str(bundle)).exit_code == 0
    missing = sorted((records / "paperclipai" / "paperclip").glob("*.json"))[0]
    missing.unlink()
    before = _files(records)
    result = cli("import", str(bundle), "--records", str(records))
    _one_line(result, missing.name, "no space left", "nothing was written")
    assert _files(records) == before


def test_migrate_on_a_full_disk_names_the_record_file(cli, full_disk: Path) -> None:
    records = full_disk / "records"
    before = _files(records)
    result = cli("migrate", "--to", "2", "--allow-loss", str(records))
    _one_line(result, ".json: cannot rewrite file: no space left", "no file was changed")
    assert "a record file" not in result.stderr
    assert _files(records) == before


@pytest.fixture
def read_only_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs mounted read-only (root ignores file modes, not a read-only mount)."""
    with _tmpfs(tmp_path / "ro", "1m") as mount:
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        yield mount


def test_export_parquet_into_a_read_only_folder_names_the_file_not_a_temporary(cli, read_only_disk: Path) -> None:
    out = read_only_disk / "x.parquet"
    result = cli("export", "--to", "parquet", "--output", str(out))
    _one_line(result, f"{out}: cannot write: the file system is read-only")
    assert ".tmp" not in result.stderr
