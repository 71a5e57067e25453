"""Programs from CMake's ``CMakeLists.txt``: ``add_executable`` and ``add_library`` targets, their sources
(``target_sources`` too, ``${VAR}`` of ``set``/``list(APPEND)`` expanded) and ``target_link_libraries``: a
library's sources belong to every executable that links it, directly or through another library. An
executable marked ``WIN32`` is a Windows program (its sources' platform is win32). Bounded as the Makefile
reader is: a hostile file gives fewer programs, never a hang."""

from __future__ import annotations

import posixpath
import re

__all__ = ["CMAKE_NAMES", "programs_of_cmake"]

CMAKE_NAMES = frozenset({"CMakeLists.txt"})
_COMMAND = re.compile(r"\b(add_executable|add_library|target_sources|target_link_libraries|set|list)\s*\(([^()]*)\)",
                      re.IGNORECASE)
_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_.-]+)\}")
_KEYWORDS = frozenset({"WIN32", "MACOSX_BUNDLE", "EXCLUDE_FROM_ALL", "STATIC", "SHARED", "MODULE", "OBJECT",
                       "INTERFACE", "PUBLIC", "PRIVATE", "IMPORTED", "GLOBAL", "ALIAS", "APPEND", "CACHE",
                       "STRING", "PATH", "FILEPATH", "INTERNAL", "FORCE", "PARENT_SCOPE", "LINK_PUBLIC",
                       "LINK_PRIVATE"})
_SOURCE = re.compile(r"\.(?:c|cc|cpp|cxx|c\+\+|m|mm|h|hpp)$", re.IGNORECASE)
_MAX_VALUE = 100_000


def _expand(text: str, variables: dict[str, str], folder: str) -> list[str]:
    for _ in range(8):
        if "${" not in text:
            break
        text = _VARIABLE.sub(lambda m: variables.get(m.group(1), folder if m.group(1).startswith("CMAKE_CURRENT")
                                                     else ""), text)[:_MAX_VALUE]
    return [word.strip("\"") for word in text.split()]


def _stem(folder: str, word: str) -> str:
    path = word if word.startswith(folder + "/") or not folder else posixpath.join(folder, word)
    return posixpath.normpath(path).rsplit(".", 1)[0]


def programs_of_cmake(texts: dict[str, str]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """(source stem -> executables, source stem -> platform) of the ``CMakeLists.txt`` files given (path ->
    text), read in path order (a parent folder's before its children's)."""
    variables: dict[str, str] = {}
    sources: dict[str, set[str]] = {}  # target -> source stems
    links: dict[str, set[str]] = {}
    executables: set[str] = set()
    windows: set[str] = set()
    for path in sorted(texts):
        folder = posixpath.dirname(path)
        for found in _COMMAND.finditer(texts[path][:4 * _MAX_VALUE]):
            command = found.group(1).lower()
            raw = found.group(2).split()
            if not raw:
                continue
            words = _expand(" ".join(raw[1:]), variables, folder)
            name = _expand(raw[0], variables, folder)
            target = name[0] if name else ""
            if command in ("set", "list"):
                if command == "list" and (not words or raw[0].upper() != "APPEND"):
                    continue
                key = raw[1] if command == "list" and len(raw) > 1 else raw[0]
                values = " ".join(w for w in (words[1:] if command == "list" else words) if w not in _KEYWORDS)
                if len(variables) < 10_000:
                    variables[key] = ((variables.get(key, "") + " ") if command == "list" else "") + values
                continue
            if command == "target_link_libraries":
                links.setdefault(target, set()).update(w for w in words if w not in _KEYWORDS)
                continue
            if command == "add_executable":
                executables.add(target)
                if "WIN32" in words:
                    windows.add(target)
            found_stems = {_stem(folder, w) for w in words if _SOURCE.search(w)}
            sources.setdefault(target, set()).update(found_stems)
    stems: dict[str, set[str]] = {}
    platforms: dict[str, str] = {}
    for program in sorted(executables):
        seen, todo = {program}, [program]
        while todo:
            for linked in links.get(todo.pop(), set()):
                if linked in sources and linked not in seen:
                    seen.add(linked)
                    todo.append(linked)
        for target in seen:
            for stem in sources.get(target, set()):
                stems.setdefault(stem, set()).add(program)
                if program in windows:
                    platforms[stem] = "win32"
    return stems, platforms
