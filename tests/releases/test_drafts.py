"""A release refuses drafts (harvested records, prose not written) unless asked to publish them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from errdex.errors import DataError
from errdex.releases import cut_release
from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("shared_cache")

VERSION = "2026-12-01T00:00:00Z"
SLUG = "createos-returned-invalid-json"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "records"
    shutil.copytree(ROOT / "records", target, ignore=shutil.ignore_patterns(".releases"))
    path = target / "paperclipai" / "paperclip" / f"{SLUG}.json"
    envelope = json.loads(path.read_text(encoding="utf-8"))
    envelope["record"].update(schemaVersion=4, status="draft", documentation="", solutions=[], scenarios=[])
    path.write_text(json.dumps(envelope, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_release_with_a_draft_is_refused_naming_its_file(folder: Path, tmp_path: Path) -> None:
    before = _files(folder)
    for check in (True, False):
        with pytest.raises(DataError, match=rf"{SLUG}\.json: record \w+ is a draft; .*--allow-drafts"):
            cut_release(folder, version=VERSION, out=tmp_path / "out", check=check)
    assert _files(folder) == before and not (tmp_path / "out").exists()


def test_allow_drafts_releases_them_with_their_status(folder: Path, tmp_path: Path) -> None:
    report = cut_release(folder, version=VERSION, out=tmp_path / "out", allow_drafts=True)
    statuses = {entry["slug"]: entry["status"] for entry in report.manifest["records"].values()}
    assert statuses[SLUG] == "draft" and report.manifest["counts"]["active"] == 52


def test_the_cli_refuses_in_one_line_and_releases_with_allow_drafts(folder: Path, tmp_path: Path,
                                                                    cli: Any) -> None:
    refused = cli("release", "--records", str(folder), "--version", VERSION, "--check")
    assert refused.exit_code == 1 and refused.stderr.count("\n") == 1 and f"{SLUG}.json" in refused.stderr
    allowed = cli("release", "--records", str(folder), "--version", VERSION, "--check", "--allow-drafts")
    assert allowed.exit_code == 0, allowed.stderr
