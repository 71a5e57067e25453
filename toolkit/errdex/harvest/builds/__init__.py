"""Which programs and platform each file of a tree belongs to, read from the build files the tree already has.

One reader per build system: Makefiles (:mod:`.make`: link rules, static libraries, BSD make's ``PROG``),
nginx's ``auto/`` scripts (:mod:`.nginx`), CMake (:mod:`.cmake`), Python projects (:mod:`.python`), Maven
modules and Ant projects (:mod:`.java`). Where no build file names a file, its path says what it can
(:mod:`.paths`): the platform (``os/win32/``, ``*_solaris.c``, ``port-aix.c``) and the role (``regress/``,
``tests/``: test; ``contrib/``, ``examples/``: contrib). What a file gets is a :class:`Build`, written in a
harvested record as its ``build`` field.

Build files are read within bounds (:data:`MAX_BUILD_FILES`, :data:`MAX_BUILD_BYTES` each,
:data:`BUDGET_SECONDS` over all): a hostile tree gives fewer programs, never a hang.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex.harvest.builds.cmake import CMAKE_NAMES, programs_of_cmake
from errdex.harvest.builds.java import JAVA_NAMES, programs_of_java
from errdex.harvest.builds.make import MAKEFILE_NAMES, parse_makefile, programs_of_makefiles
from errdex.harvest.builds.nginx import AUTO_NAMES, programs_of_auto
from errdex.harvest.builds.paths import platform_of_path, role_of_path
from errdex.harvest.builds.python import PYTHON_NAMES, programs_of_python
from errdex.harvest.source import read_source

__all__ = ["BUDGET_SECONDS", "MAX_BUILD_BYTES", "MAX_BUILD_FILES", "Build", "Builds", "is_build_file",
           "read_builds", "source_builds"]

MAX_BUILD_FILES = 2000
MAX_BUILD_BYTES = 1024 * 1024
BUDGET_SECONDS = 10.0
_NAMES = MAKEFILE_NAMES | CMAKE_NAMES | JAVA_NAMES | PYTHON_NAMES


def _auto_top(path: str) -> str | None:
    """The folder that holds ``auto/`` (with a final ``/``, or "") when ``path`` is one of nginx's scripts."""
    for name in AUTO_NAMES:
        if path == name or path.endswith("/" + name):
            return path[: -len(name)]
    return None


def is_build_file(path: str) -> bool:
    """Whether a path is a build file some reader reads."""
    return posixpath.basename(path) in _NAMES or _auto_top(path) is not None


@dataclass(frozen=True)
class Build:
    """What a file is built into: the programs (sorted; empty when no build file says), the platform it is
    for (None: every platform), and its role: ``main`` (the project's own programs), ``test`` or ``contrib``."""

    programs: tuple[str, ...] = ()
    platform: str | None = None
    role: str = "main"

    def as_field(self) -> dict[str, Any]:
        """The record's ``build`` field."""
        return {"programs": list(self.programs), "platform": self.platform, "role": self.role}


@dataclass
class Builds:
    """What the build files of one tree say: programs by source stem (path without extension) and by folder
    (every file under it, the deepest folder winning), and platforms by source stem."""

    stems: dict[str, set[str]] = field(default_factory=dict)
    folders: dict[str, set[str]] = field(default_factory=dict)
    platforms: dict[str, str] = field(default_factory=dict)

    def add_stems(self, stems: dict[str, set[str]]) -> None:
        for stem, names in stems.items():
            self.stems.setdefault(stem, set()).update(names)

    def of(self, path: str) -> Build:
        """The :class:`Build` of the file at ``path`` (relative to the tree's top)."""
        stem = path.rsplit(".", 1)[0] if "." in posixpath.basename(path) else path
        names = set(self.stems.get(stem, ()))
        folder = posixpath.dirname(path)
        while True:
            if folder in self.folders:
                names |= self.folders[folder]
                break
            if not folder:
                break
            folder = posixpath.dirname(folder)
        platform = self.platforms.get(stem) or platform_of_path(path)
        return Build(tuple(sorted(names)), platform, role_of_path(path))


def read_builds(files: Iterable[tuple[str, bytes]]) -> Builds:
    """What the build files given (path, bytes) say (paths relative to the tree's top, or all under one
    folder: nginx's ``auto/`` names sources from the folder that holds it)."""
    started = time.monotonic()

    def budget() -> bool:
        return time.monotonic() - started < BUDGET_SECONDS

    texts: dict[str, dict[str, str]] = {"make": {}, "cmake": {}, "python": {}, "java": {}}
    autos: dict[str, dict[str, str]] = {}  # folder holding auto/ -> its scripts
    for count, (path, data) in enumerate(sorted(files, key=lambda pair: (pair[0].count("/"), pair[0]))):
        if count >= MAX_BUILD_FILES or len(data) > MAX_BUILD_BYTES:
            continue
        base, top = posixpath.basename(path), _auto_top(path)
        text = data.decode("utf-8", "replace")
        if top is not None:
            autos.setdefault(top, {})[path[len(top):]] = text
            continue
        kind = ("make" if base in MAKEFILE_NAMES else "cmake" if base in CMAKE_NAMES
                else "python" if base in PYTHON_NAMES else "java" if base in JAVA_NAMES else None)
        if kind is not None:
            texts[kind][path] = text
    builds = Builds()
    for top, scripts in sorted(autos.items()):
        if "auto/sources" not in scripts or not budget():
            continue
        stems, platforms = programs_of_auto(scripts)
        builds.add_stems({top + stem: names for stem, names in stems.items()})
        builds.platforms.update({top + stem: platform for stem, platform in platforms.items()})
    makefiles = [parse_makefile(path, text) for path, text in texts["make"].items() if budget()]
    builds.add_stems(programs_of_makefiles(makefiles, budget))
    if texts["cmake"] and budget():
        targets, windows = programs_of_cmake(texts["cmake"])
        builds.add_stems(targets)
        builds.platforms.update(windows)
    if texts["python"] and budget():
        folders, console = programs_of_python(texts["python"])
        builds.add_stems(console)
        for folder, names in folders.items():
            builds.folders.setdefault(folder, set()).update(names)
    if texts["java"] and budget():
        for folder, names in programs_of_java(texts["java"]).items():
            builds.folders.setdefault(folder, set()).update(names)
    return builds


def source_builds(root: Path, *, rev: str | None = None, sha: str | None = None,
                  path_prefix: str | None = None) -> Builds:
    """What the build files of the tree a harvest reads say (the same folder or revision, the same paths:
    :func:`~errdex.harvest.source.read_source`, build files only, test folders included)."""
    found = read_source(root, rev=rev, sha=sha, include_tests=True, supported=is_build_file, path_prefix=path_prefix)
    return read_builds((file.path, file.data) for file in found.files)
