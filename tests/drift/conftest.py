from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

_GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_SYSTEM": os.devnull}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **_GIT_ENV})
    return done.stdout.strip()


Commit = Callable[[dict[str, str | None]], str]


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Commit]:
    """An empty git repository, and a function that writes files (None: delete), commits and gives the sha."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")

    def commit(files: dict[str, str | None]) -> str:
        for name, text in files.items():
            path = root / name
            if text is None:
                git(root, "rm", "-q", name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            git(root, "add", name)
        git(root, "commit", "-q", "-m", "change")
        return git(root, "rev-parse", "HEAD")

    return root, commit
