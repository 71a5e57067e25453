"""Where each line of one commit went at another, from ``git diff -U0 -M`` between them (renames followed).

A line the diff neither removes nor replaces is *untouched*: it is the same text at its mapped line, moved only
by the lines inserted or removed above it (and to the new path when its file was renamed). A removed or
replaced line is *touched*; it still maps to where its hunk landed, which is a hint for finding its statement,
never an answer. A file the diff deletes maps nowhere.

The repository is read through git itself (bare or not); :func:`git_repository` tells whether a source is one,
:func:`has_commit` whether a commit is in it, and :func:`read_files` reads files at a commit in one
``git cat-file --batch``.
"""

from __future__ import annotations

import codecs
import re
import subprocess
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from errdex._git import run_git
from errdex.records.source_paths import unsafe_path

__all__ = ["FileMap", "LineMap", "Mapped", "git_repository", "has_commit", "line_map", "read_files"]

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Mapped:
    """Where an old line is at the new commit: ``path`` (None when the file was deleted), ``line``, and
    whether the diff leaves the line itself untouched."""

    path: str | None
    line: int
    untouched: bool


@dataclass
class FileMap:
    """One file's hunks (old start, old count, new start, new count), in order; ``new_path`` after a rename,
    None when deleted."""

    new_path: str | None
    hunks: list[tuple[int, int, int, int]] = field(default_factory=list)
    _ends: list[int] = field(default_factory=list, repr=False)

    def map(self, line: int) -> Mapped:
        """Where old line ``line`` (1-based) is in the new file."""
        if self.new_path is None:
            return Mapped(None, line, False)
        if len(self._ends) != len(self.hunks):
            # the last old line a hunk covers; a pure insertion (count 0) sits after its start line
            self._ends[:] = [start + count - 1 if count else start for start, count, _, _ in self.hunks]
        index = bisect_right(self._ends, line - 1)  # the first hunk that does not end before the line
        offset = 0
        if index:
            old_start, old_count, new_start, new_count = self.hunks[index - 1]
            offset = (new_start + new_count - 1 if new_count else new_start) - (
                old_start + old_count - 1 if old_count else old_start)
        if index < len(self.hunks):
            old_start, old_count, new_start, new_count = self.hunks[index]
            if old_count and old_start <= line < old_start + old_count:
                landed = new_start + min(line - old_start, max(new_count - 1, 0))
                return Mapped(self.new_path, max(landed, 1), False)
        return Mapped(self.new_path, line + offset, True)


@dataclass
class LineMap:
    """Old path -> its :class:`FileMap`; a file the diff does not name is the same at the same lines."""

    files: dict[str, FileMap] = field(default_factory=dict)

    def map(self, path: str, line: int) -> Mapped:
        found = self.files.get(path)
        return Mapped(path, line, True) if found is None else found.map(line)

    def renamed(self, path: str) -> str | None:
        """The file's path at the new commit (None when deleted)."""
        found = self.files.get(path)
        return path if found is None else found.new_path


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return run_git(repo, *args, check=check, reader="drift")


def git_repository(folder: Path) -> bool:
    """Whether ``folder`` is in a git repository (bare, a work tree, or a folder inside one)."""
    return folder.is_dir() and _git(folder, "rev-parse", "--git-dir", check=False).returncode == 0


def has_commit(repo: Path, sha: str) -> bool:
    """Whether ``sha`` names a commit of the repository."""
    if not sha or sha.startswith("-"):
        return False
    return _git(repo, "cat-file", "-e", f"{sha}^{{commit}}", check=False).returncode == 0


def _path(text: str, side: str) -> str | None:
    """A path of a ``---``/``+++``/``rename`` line: None for /dev/null; quoted names decoded."""
    text = text.rstrip("\t")
    if text == "/dev/null":
        return None
    if text.startswith('"') and text.endswith('"'):
        raw = codecs.escape_decode(text[1:-1].encode("utf-8", "surrogateescape"))[0]
        text = bytes(raw).decode("utf-8", "surrogateescape")
    return text[len(side):] if side and text.startswith(side) else text


def _parse(lines: Iterable[str]) -> LineMap:
    """The line map of a ``git diff -U0 -M`` output."""
    found = LineMap()
    current: FileMap | None = None
    old_path: str | None = None
    skip = 0
    for line in lines:
        if skip:  # a hunk's own - and + lines, which may start like headers
            if not line.startswith("\\"):
                skip -= 1
            continue
        if line.startswith("diff --git "):
            current, old_path = None, None
        elif line.startswith("rename from "):
            old_path = _path(line[len("rename from "):], "")
        elif line.startswith("rename to ") and old_path is not None:
            current = found.files[old_path] = FileMap(_path(line[len("rename to "):], ""))
        elif line.startswith("--- "):
            old_path = _path(line[4:], "a/") if old_path is None else old_path
        elif line.startswith("+++ ") and old_path is not None:
            if current is None:
                current = found.files[old_path] = FileMap(_path(line[4:], "b/"))
        elif line.startswith("@@ ") and current is not None:
            match = _HUNK.match(line)
            if match is None:
                continue
            old_start, old_count, new_start, new_count = (int(value) if value is not None else 1
                                                          for value in match.groups())
            current.hunks.append((old_start, old_count, new_start, new_count))
            skip = old_count + new_count
    return found


def line_map(repo: Path, old: str, new: str) -> LineMap:
    """The line map from commit ``old`` to commit ``new`` of the repository."""
    out = _git(repo, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", "-M", "-l0", old, new,
               "--").stdout
    return _parse(out.decode("utf-8", "surrogateescape").split("\n"))


def read_files(repo: Path, sha: str, paths: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each of ``paths`` at commit ``sha`` (a path not there is left out, and so is one that could
    name a file outside the repository: :func:`~errdex.records.source_paths.unsafe_path`)."""
    wanted = [path for path in dict.fromkeys(paths) if unsafe_path(path) is None]
    if not wanted:
        return {}
    request = "".join(f"{sha}:{path}\n" for path in wanted).encode("utf-8")
    done = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), "cat-file", "--batch"], input=request,
                          capture_output=True, check=False)
    out, at, found = done.stdout, 0, {}
    for path in wanted:
        end = out.find(b"\n", at)
        if end < 0:
            break
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            if len(header) == 3:  # another kind of object: its content follows all the same
                at += int(header[2]) + 1
            continue
        size = int(header[2])
        found[path] = out[at:at + size]
        at += size + 1
    return found
