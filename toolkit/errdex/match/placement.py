"""Ranking matches: by how specific their pattern is, and a tie for first place by where the line was written."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

__all__ = ["Ranked", "prefer_placed", "rank_key"]


class Ranked(Protocol):
    """What ranking reads of a match (:class:`errdex.match.engine.Match`)."""

    @property
    def view(self) -> dict[str, Any]: ...
    @property
    def literal_chars(self) -> int: ...
    @property
    def variable_parts(self) -> int: ...
    @property
    def record(self) -> dict[str, Any]: ...


M = TypeVar("M", bound=Ranked)


def rank_key(match: Ranked) -> tuple[int, int, str]:
    """Most literal characters first, then fewest variable parts, then record id."""
    return (-match.literal_chars, match.variable_parts, match.view["id"])


def _placed(record: dict[str, Any], line: str) -> bool:
    """Whether the line names the record's file (with or without its extension), ``@`` or ``:`` and its
    ``lineNumber``: log4j ``Class@368``, ``Class.java:368``, Python ``client.py:42``, Go ``main.go:17:``."""
    path, number = record.get("filePath"), record.get("lineNumber")
    if not isinstance(path, str) or type(number) is not int or number <= 0:
        return False
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    for needle in {f"{name}{mark}{number}" for name in (base, base.rsplit(".", 1)[0]) if name for mark in "@:"}:
        start = line.find(needle)
        while start >= 0:  # not inside a longer name or number
            end, before = start + len(needle), line[start - 1] if start else " "
            if not (before.isalnum() or before == "_") and not line[end:end + 1].isdigit():
                return True
            start = line.find(needle, start + 1)
    return _names_module(path.replace("\\", "/"), line)


def _names_module(path: str, line: str) -> bool:
    """Whether the line names a Python file's module as ``logging`` prints ``%(name)s`` for
    ``getLogger(__name__)``: ``pkg.sub.mod`` for ``sub/mod.py`` (the file's path, maybe under a package)."""
    if not path.endswith(".py"):
        return False
    module = path[:-3].removesuffix("/__init__").replace("/", ".")
    start = line.find(module)
    while start >= 0:  # a whole dotted name, or its tail
        before, after = line[start - 1:start] or " ", line[start + len(module):start + len(module) + 1]
        if (before == "." or not (before.isalnum() or before == "_")) and not (after.isalnum() or after in "._"):
            return True
        start = line.find(module, start + 1)
    return False


def prefer_placed(matches: list[M], line: str | bytes) -> list[M]:
    """Ranked ``matches`` with those tied for first place whose file and line the line names (:func:`_placed`)
    moved ahead of the others tied (two statements that write one message); nothing else moves. Reads the
    records only on such a tie."""
    top = rank_key(matches[0])[:2] if len(matches) > 1 else None
    tied = 0
    while tied < len(matches) and rank_key(matches[tied])[:2] == top:
        tied += 1
    if tied < 2:
        return matches
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    matches[:tied] = sorted(matches[:tied], key=lambda m: not _placed(m.record, text))  # stable: ties keep order
    return matches
