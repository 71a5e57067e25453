"""The oracle drift is measured against, from git itself and the tree's text (independent of drift's code).

- :func:`diff_lines`: for each file, old line -> new line of every line ``git diff -U0 -M OLD NEW`` leaves
  untouched, walked line by line over the hunks (no search, no bisection);
- :func:`gone`: whether none of the literal pieces of a record's statement (its string literals as the record's
  excerpt quotes them, cut at their format holes and escapes) occurs anywhere in the tree's files at the new
  commit: then no statement can write the message any more.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

__all__ = ["diff_lines", "gone", "tree_text"]

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_HOLE = re.compile(r"%[-+ #0-9.*]*[hlLqjzt]*[a-zA-Z]|\{[^}]*\}|\$\{[^}]*\}|\\.")
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_JOIN = re.compile(r'"\s*\+?\s*"')
#: Lines of context a harvested excerpt has after its statement (harvest's CONTEXT_LINES).
_AFTER = 3


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "safe.directory=*", "-c", "core.quotePath=false", "-C", str(repo), *args],
                          capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape")


class FileDiff:
    """One file of the diff: its new path and the old lines the hunks remove (old start -> shift after)."""

    def __init__(self, new_path: str | None) -> None:
        self.new_path = new_path
        self.hunks: list[tuple[int, int, int, int]] = []

    def untouched(self, line: int) -> int | None:
        """The new line of old ``line``, or None when a hunk removes or replaces it."""
        if self.new_path is None:
            return None
        shift = 0
        for old_start, old_count, _, new_count in self.hunks:
            if old_count and old_start <= line < old_start + old_count:
                return None
            before = old_start + old_count - 1 if old_count else old_start
            if before < line:
                shift += new_count - old_count
        return line + shift


def diff_lines(repo: Path, old: str, new: str) -> dict[str, FileDiff]:
    """Old path -> its :class:`FileDiff` (a file not named keeps every line)."""
    files: dict[str, FileDiff] = {}
    current: FileDiff | None = None
    source: str | None = None
    remaining = 0
    for line in _git(repo, "diff", "--no-color", "-U0", "-M", "-l0", old, new).split("\n"):
        if remaining:
            remaining -= 0 if line.startswith("\\") else 1
            continue
        if line.startswith("diff --git "):
            current, source = None, None
        elif line.startswith("rename from "):
            source = line[12:]
        elif line.startswith("rename to ") and source is not None:
            current = files[source] = FileDiff(line[10:])
        elif line.startswith("--- ") and source is None:
            source = line[6:] if line[4:] != "/dev/null" else None
        elif line.startswith("+++ ") and source is not None and current is None:
            current = files[source] = FileDiff(line[6:] if line[4:] != "/dev/null" else None)
        elif line.startswith("@@ ") and current is not None:
            match = _HUNK.match(line)
            assert match is not None
            numbers = tuple(int(value) if value is not None else 1 for value in match.groups())
            current.hunks.append(numbers)  # type: ignore[arg-type]  # four ints from the four groups
            remaining = numbers[1] + numbers[3]
    return files


def tree_text(repo: Path, rev: str, suffixes: tuple[str, ...]) -> str:
    """Every file of the tree at ``rev`` whose name ends with one of ``suffixes``, as one text, followed by
    that text with adjacent string literals joined (``"a " "b"`` as ``"a b"``)."""
    names = [name for name in _git(repo, "ls-tree", "-r", "--name-only", rev).split("\n") if name.endswith(suffixes)]
    request = "".join(f"{rev}:{name}\n" for name in names)
    done = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), "cat-file", "--batch"],
                          input=request.encode(), capture_output=True, check=True)
    text = done.stdout.decode("utf-8", "replace")
    return text + "\n" + _JOIN.sub("", text)


def _statement(record: dict[str, object]) -> str:
    """The record's statement as its excerpt quotes it: from its line to the excerpt's last line but the
    context."""
    lines = str(record["sourceCode"]).split("\n")
    start, first = int(str(record["sourceCodeStart"])), int(str(record["lineNumber"]))
    last = max(first, int(str(record["sourceCodeEnd"])) - _AFTER)
    return "\n".join(lines[first - start : last - start + 1])


#: A function's name written before a message (``get_sock_port: ...``), which later code writes as ``"%s: ..."``
#: of ``__func__`` (and harvest reads as the same text).
_FUNCTION_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*: ")


def _pieces(texts: list[str]) -> list[str]:
    pieces = [piece.strip() for text in texts for piece in _HOLE.split(text)]
    pieces += [_FUNCTION_PREFIX.sub("", piece) for piece in pieces if _FUNCTION_PREFIX.match(piece)]
    return [piece for piece in pieces if len(piece) >= 4 and re.search(r"[A-Za-z]", piece)]


def gone(record: dict[str, object], text: str) -> bool:
    """Whether no literal piece of the record's statement (4 characters or more, with a letter) occurs in
    ``text`` (adjacent string literals joined, as C and Java join them); a record whose statement has no such
    piece (its message comes from a constant or a variable) is never said to be gone."""
    pieces = _pieces(_LITERAL.findall(_statement(record)))
    return bool(pieces) and not any(piece in text for piece in pieces)
