"""The folder a site is built into: only errdex's own is replaced, one build at a time, nothing left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from errdex.errors import InputError
from errdex.site import build_site
from errdex.site import folder as site_folder
from tests.site.conftest import ROOT

MARKER = ".errdex-site"


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _children(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_folder_errdex_did_not_build_is_left_alone(cli: Any, tmp_path: Path, site_cache: Path) -> None:
    w = tmp_path / "w"
    (w / "sub").mkdir(parents=True)
    (w / "index.html").write_text("hi\n")
    (w / "precious.txt").write_text("x\n")
    before = _tree(w)
    result = cli("site", "build", "--out", str(w), "--no-search")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert f"{w}: exists and is not a site built by errdex" in result.stderr
    assert _tree(w) == before and (w / "sub").is_dir()
    assert _children(tmp_path) == ["w"]


def test_a_site_of_an_older_errdex_is_refused_with_what_to_do(cli: Any, tmp_path: Path, built_site: Path) -> None:
    old = tmp_path / "site"
    shutil.copytree(built_site, old)
    (old / MARKER).unlink()
    result = cli("site", "build", "--out", str(old), "--no-search")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "looks like a site built by an older errdex" in result.stderr and f"rm -r {old}" in result.stderr
    assert (old / "index.html").is_file()


@pytest.mark.parametrize(("added", "named"), [("CNAME", "CNAME"), ("records/notes.md", "records/notes.md"),
                                             ("assets/mine/logo.svg", "assets/mine")])
def test_a_file_added_to_a_built_site_is_never_deleted(cli: Any, tmp_path: Path, site_cache: Path, added: str,
                                                       named: str) -> None:
    """A built site holding a marker and something its build did not write (a CNAME for the host, notes) is
    refused and the file named, as a folder errdex did not build is."""
    site = tmp_path / "site"
    assert cli("site", "build", "--out", str(site), "--no-search").exit_code == 0
    (site / added).parent.mkdir(parents=True, exist_ok=True)
    (site / added).write_text("mine\n")
    before = _tree(site)
    result = cli("site", "build", "--out", str(site), "--no-search")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert f"{site}: holds what errdex did not write there ({named})" in result.stderr
    assert _tree(site) == before and _children(tmp_path) == ["site"]
    (site / added).unlink()
    if named != added:
        (site / named).rmdir()  # an empty folder errdex did not make is the user's too
    assert cli("site", "build", "--out", str(site), "--no-search").exit_code == 0  # without it, rebuilt as before


def test_a_forged_marker_does_not_make_a_folder_errdex_s(cli: Any, tmp_path: Path, site_cache: Path) -> None:
    w = tmp_path / "w"
    w.mkdir()
    (w / MARKER).write_text("errdex site: built by 'errdex site build'\n")
    (w / "precious.txt").write_text("x\n")
    result = cli("site", "build", "--out", str(w), "--no-search")
    assert result.exit_code == 1 and "(precious.txt)" in result.stderr and (w / "precious.txt").read_text() == "x\n"


@pytest.mark.parametrize("swap", [True, False], ids=["folders-swapped-in-one-step", "old-site-renamed-aside"])
def test_missing_empty_and_errdex_built_folders_are_built_into(tmp_path: Path, site_cache: Path,
                                                               monkeypatch: pytest.MonkeyPatch, swap: bool) -> None:
    if not swap:  # as on a system without renameat2
        monkeypatch.setattr(site_folder, "_exchange", lambda first, second: False)
    missing = tmp_path / "a" / "b" / "site"
    build_site(missing, search=False)
    assert (missing / MARKER).is_file() and (missing / "index.html").is_file()
    umask = os.umask(0o022)
    os.umask(umask)
    assert missing.stat().st_mode & 0o777 == 0o777 & ~umask  # as mkdir makes folders: a web server may read it
    empty = tmp_path / "empty"
    empty.mkdir()
    build_site(empty, search=False)
    assert _tree(empty) == _tree(missing)
    (empty / "index.html").write_text("from an earlier build")
    build_site(empty, search=False)  # replaced as a whole
    assert _tree(empty) == _tree(missing)
    assert _children(tmp_path) == ["a", "empty"]  # and the old one removed


def test_a_link_or_a_file_is_not_replaced(tmp_path: Path, site_cache: Path) -> None:
    real = tmp_path / "real"
    build_site(real, search=False)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(InputError, match="is a symbolic link"):
        build_site(link, search=False)
    assert link.is_symlink()
    file = tmp_path / "file"
    file.write_text("mine")
    with pytest.raises(InputError, match="is not a folder"):
        build_site(file, search=False)
    assert file.read_text() == "mine"


#: A build in a child process that stops once its folder is half written, until its stdin closes.
_STALLED_BUILD = """
import sys
from errdex.site import build

def stall(*args):
    print("writing", flush=True)
    sys.stdin.read()

build.write_listing_pages = stall  # inside the build folder: the search index is made before it
build.build_site(sys.argv[1])
print("built", flush=True)
"""


def _stalled_build(out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "toolkit")}
    child = subprocess.Popen([sys.executable, "-c", _STALLED_BUILD, str(out)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert child.stdout is not None and child.stdout.readline() == "writing\n"
    return child


def test_what_a_killed_build_leaves_is_removed_by_the_next(tmp_path: Path, site_cache: Path) -> None:
    out = tmp_path / "site"
    build_site(out, search=False)
    before = _tree(out)
    left: list[list[str]] = []
    for _ in range(2):
        child = _stalled_build(out)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        child.stdin.close()  # type: ignore[union-attr]  # opened with a pipe
        child.stdout.close()  # type: ignore[union-attr]  # opened with a pipe
        left.append([name for name in _children(tmp_path) if name != "site"])
    assert [len(names) for names in left] == [1, 1] and left[0] != left[1]  # the second removed the first's
    assert all(name.startswith(".site.build-") for names in left for name in names)
    assert _tree(out) == before  # the site in place is whole meanwhile
    build_site(out, search=False)
    assert _children(tmp_path) == ["site"]
    assert _tree(out) == before


def test_only_leftovers_errdex_made_are_removed(tmp_path: Path, built_site: Path, site_cache: Path) -> None:
    older = tmp_path / ".site.build-k2j3h4g5"  # an errdex that wrote no marker, killed half-way
    shutil.copytree(built_site / "assets", older / "assets")
    shutil.copytree(built_site / "api", older / "api")
    (tmp_path / ".site.build-x").mkdir()  # killed before it wrote a file
    replaced = tmp_path / ".site.old-123-abcd"
    shutil.copytree(built_site, replaced)
    mine = tmp_path / ".site.build-notes"
    mine.mkdir()
    (mine / "notes.txt").write_text("not errdex's")
    other = tmp_path / ".other.build-1"  # beside another site
    shutil.copytree(built_site, other)
    build_site(tmp_path / "site", search=False)
    assert _children(tmp_path) == [".other.build-1", ".site.build-notes", "site"]
    assert (mine / "notes.txt").read_text() == "not errdex's"


def test_two_builds_of_one_folder_take_turns(tmp_path: Path, site_cache: Path) -> None:
    out = tmp_path / "site"
    first = _stalled_build(out)  # holds the lock, its folder half written
    waiting = threading.Event()
    failures: list[BaseException] = []

    def second() -> None:
        try:
            build_site(out, search=False, on_wait=waiting.set)
        except BaseException as exc:  # reported by the test
            failures.append(exc)

    thread = threading.Thread(target=second)
    thread.start()
    try:
        assert waiting.wait(timeout=30), "the second build did not wait for the first"
        assert not out.exists()  # nothing written while the first build holds the folder
    finally:
        first.stdin.close()  # type: ignore[union-attr]  # opened with a pipe
    assert first.stdout.readline() == "built\n"  # type: ignore[union-attr]  # opened with a pipe
    first.wait(timeout=30)
    first.stdout.close()  # type: ignore[union-attr]  # opened with a pipe
    thread.join(timeout=60)
    assert not thread.is_alive() and failures == [] and first.returncode == 0
    assert (out / "index.html").is_file() and (out / MARKER).is_file()
    assert _children(tmp_path) == ["site"]
