from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.harvest import _fake

_GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_SYSTEM": os.devnull}


@pytest.fixture
def fake_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``.fake`` finder registered."""
    _fake.install(monkeypatch)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **_GIT_ENV})
    return done.stdout.strip()


def git_bytes(repo: Path, *args: str, stdin: bytes = b"") -> bytes:
    """git's output as bytes, ``stdin`` given to it (the plumbing commands: ``hash-object``, ``mktree``)."""
    return subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=True,
                          env={**os.environ, **_GIT_ENV}).stdout.strip()


def crafted_commit(repo: Path, tree: dict[bytes, bytes], *, parent: str | None = None) -> str:
    """A commit whose tree is ``tree`` (file path -> bytes), made with git's plumbing, so that it may hold names
    ``git add`` refuses or no file system has (an entry named ``..``, a name that is not UTF-8); HEAD moves to it
    (the work tree is left as it is)."""
    def make(entries: dict[bytes, bytes]) -> bytes:
        files = {name: data for name, data in entries.items() if b"/" not in name}
        folders: dict[bytes, dict[bytes, bytes]] = {}
        for name, data in entries.items():
            if b"/" in name:
                top, rest = name.split(b"/", 1)
                folders.setdefault(top, {})[rest] = data
        lines = [b"100644 blob " + git_bytes(repo, "hash-object", "-w", "--stdin", stdin=data) + b"\t" + name
                 for name, data in files.items()]
        lines += [b"040000 tree " + make(inner) + b"\t" + name for name, inner in folders.items()]
        return git_bytes(repo, "mktree", "-z", stdin=b"".join(line + b"\0" for line in lines))

    args = ["commit-tree", make(tree).decode(), "-m", "crafted"] + (["-p", parent] if parent else [])
    sha = git_bytes(repo, *args).decode()
    git(repo, "update-ref", "HEAD", sha)
    return sha


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[[dict[str, str]], tuple[Path, str]]:
    """Make (or add a commit to) a git work tree at tmp_path/repo holding these files: (repo, commit)."""
    repo = tmp_path / "repo"

    def commit(files: dict[str, str]) -> tuple[Path, str]:
        if not repo.exists():
            repo.mkdir()
            git(repo, "init", "-q", "-b", "main")
        write_tree(repo, files)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "files")
        return repo, git(repo, "rev-parse", "HEAD")

    return commit
