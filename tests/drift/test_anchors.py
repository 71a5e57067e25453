"""How validate --source reads code: a git repository at any commit, a folder at one, and the statements."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from errdex.drift.anchors import FolderAnchors, GitAnchors, open_anchors, statements_of
from errdex.errors import InputError, UsageError

APP = 'def run(command):\n    if not command:\n        raise ValueError("command is required")\n'
THROWER = """export class ApiError extends Error {
  constructor(readonly status: number) {
    super(`API failed (HTTP ${status}).`);
  }
}

export function check(status: number): void {
  if (status >= 400) {
    throw new ApiError(
      status,
    );
  }
}
"""


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    folder = tmp_path / "repo"
    (folder / "src").mkdir(parents=True)
    (folder / "src/app.py").write_text(APP, encoding="utf-8")
    _git(folder, "init", "-q")
    _git(folder, "add", "src/app.py")
    _git(folder, "commit", "-q", "-m", "app")
    return folder, _git(folder, "rev-parse", "HEAD")


def test_a_repository_is_read_through_git_at_any_commit_it_holds(repo: tuple[Path, str]) -> None:
    folder, sha = repo
    (folder / "src/app.py").write_text("changed in the work tree, not committed\n", encoding="utf-8")
    source = open_anchors(folder)
    assert isinstance(source, GitAnchors)
    assert source.lines("src/app.py", sha) == APP.splitlines()
    assert source.unavailable("src/app.py", sha) is None
    assert source.unavailable("src/other.py", sha) == f"src/other.py is not in {folder} at {sha[:12]}"
    assert source.unavailable("src/app.py", "0" * 40) == f"commit {'0' * 40} is not in {folder}"
    assert source.lines("src/app.py", "0" * 40) is None


def test_a_bare_clone_is_a_repository_too(repo: tuple[Path, str], tmp_path: Path) -> None:
    folder, sha = repo
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(folder), str(bare)], check=True)
    source = open_anchors(bare)
    assert isinstance(source, GitAnchors)
    assert source.lines("src/app.py", sha) == APP.splitlines()


def test_a_folder_in_a_work_tree_holds_its_head_with_paths_from_the_top(repo: tuple[Path, str]) -> None:
    folder, sha = repo
    source = open_anchors(folder / "src")
    assert isinstance(source, FolderAnchors)
    assert (source.sha, source.prefix) == (sha, "src/")
    assert source.lines("src/app.py", sha) == APP.splitlines()
    assert source.unavailable("src/app.py", "1" * 40) is not None


def test_a_copied_folder_holds_the_sha_it_is_given_and_matches_the_tail_of_a_path(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    source = open_anchors(tmp_path, sha="2" * 40)
    assert source.lines("deep/inside/app.py", "2" * 40) == APP.splitlines()
    assert source.unavailable("deep/inside/other.py", "2" * 40) == f"deep/inside/other.py is not in {tmp_path}"
    assert "holds commit 222222222222" in (source.unavailable("app.py", "3" * 40) or "")


def test_a_folder_without_a_commit_or_a_bad_sha_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="pass --sha"):
        open_anchors(tmp_path)
    with pytest.raises(UsageError, match="not a full commit id"):
        open_anchors(tmp_path, sha="abc")
    with pytest.raises(InputError, match="no such folder"):
        open_anchors(tmp_path / "missing")


def test_statements_are_harvest_sites_and_throws_of_a_class_whose_constructor_writes_the_message() -> None:
    found = statements_of("src/api.ts", THROWER.encode())
    assert found is not None
    assert [(s.line, s.end_line) for s in found] == [(3, 3), (9, 11)]
    assert {s.message for s in found} == {"API failed (HTTP ${status})."}
    assert all(s.pattern is not None and s.pattern.startswith(r"\bAPI failed") for s in found)
    python = statements_of("app.py", APP.encode())
    assert python is not None and [(s.line, s.message) for s in python] == [(3, "command is required")]
    assert statements_of("notes.txt", b"raise ValueError('x')\n") is None


def test_a_folder_is_never_read_through_a_symbolic_link_or_into_a_submodule(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text('TOKEN = "hunter2"\nraise RuntimeError("s")\n')
    folder = tmp_path / "tree"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")  # a submodule's work tree
    (folder / "sub" / "s.py").write_text("raise ValueError('sub')\n")
    (folder / "a.py").write_text("raise ValueError('a')\n")
    (folder / "out").symlink_to(outside)
    (folder / "secret.py").symlink_to(outside / "secret.py")
    source = open_anchors(folder, sha="2" * 40)
    assert source.data("a.py", "2" * 40) == b"raise ValueError('a')\n"
    for path in ("out/secret.py", "secret.py", "x/out/secret.py", "sub/s.py"):
        assert source.data(path, "2" * 40) is None, path
        assert source.unavailable(path, "2" * 40) == f"{path} is not in {folder}"
