"""One module per language: each finds sites in a file's tree-sitter tree and returns the same objects.

A language module defines ``FINDER``, an object with:

- ``name`` (``"python"``) and ``extensions`` (``(".py",)``);
- ``default_sinks`` (the language's common loggers and reporters, as :class:`~errdex.harvest.sinks.Sink`);
- ``constants(source: bytes) -> dict[str, str]``: the string constants a file offers the whole tree (C
  ``#define NAME "text"`` in headers; Java ``static final String``; none for most languages), gathered in a
  first pass so that a message naming one elsewhere resolves (a language whose constants are all same-file
  sets ``offers_constants = False``, and the first pass skips its files);
- ``find(source: bytes, path: str, *, sinks, levels, constants) -> FileSites``: every site of the file.

Modules load only when a file of their language is harvested (the grammar wheels are imported there).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from errdex.harvest.sinks import Sink
from errdex.harvest.sites import Site, Skipped

__all__ = ["LANGUAGE_MODULES", "FileSites", "Finder", "finder_for"]


@dataclass
class FileSites:
    """What a finder found in one file; ``parse_error`` when tree-sitter could not parse it (the file is then
    listed in the summary, never a reason to stop)."""

    sites: list[Site] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    parse_error: str | None = None


class Finder(Protocol):
    name: str
    extensions: tuple[str, ...]
    default_sinks: tuple[Sink, ...]

    def constants(self, source: bytes) -> dict[str, str]: ...

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             constants: Mapping[str, str]) -> FileSites: ...


#: Language name -> module under errdex.harvest.languages that defines FINDER.
LANGUAGE_MODULES: dict[str, str] = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "javascript",
    "java": "java",
    "c": "c",
    "go": "go",
}

_BY_EXTENSION: dict[str, str] = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".java": "java", ".c": "c", ".h": "c", ".go": "go",
}


def finder_for(path: str) -> Finder | None:
    """The finder of a file's language (by its extension), or None when errdex does not harvest it."""
    dot = path.rfind(".")
    language = _BY_EXTENSION.get(path[dot:].lower()) if dot >= 0 else None
    if language is None:
        return None
    module = importlib.import_module(f"errdex.harvest.languages.{LANGUAGE_MODULES[language]}")
    finder: Finder = module.FINDERS[language] if hasattr(module, "FINDERS") else module.FINDER
    return finder
