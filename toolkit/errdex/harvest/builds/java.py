"""Programs from Java build files: a Maven module (``pom.xml``, its own ``artifactId``) or an Ant project
(``build.xml``, ``<project name=...>``) names every file under its folder; the nearest enclosing one wins."""

from __future__ import annotations

import posixpath
import re

__all__ = ["JAVA_NAMES", "programs_of_java"]

JAVA_NAMES = frozenset({"pom.xml", "build.xml"})
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9_.:-]*)[^<>]*?(/?)>")
_ARTIFACT = re.compile(r"\s*([A-Za-z0-9_.-]+)\s*<")
_ANT = re.compile(r"<project\b[^>]*\bname\s*=\s*[\"']([^\"']+)[\"']")


def _own_artifact(text: str) -> re.Match[str] | None:
    """The ``artifactId`` directly under ``<project>`` (not a parent's or a dependency's), in one pass."""
    depth = 0
    for tag in _TAG.finditer(text):
        closing, name, empty = tag.groups()
        if closing:
            depth -= 1
        elif not empty:
            depth += 1
            if depth == 2 and name == "artifactId":
                return _ARTIFACT.match(text, tag.end())
    return None


def programs_of_java(texts: dict[str, str]) -> dict[str, set[str]]:
    """Folder -> the module or project its build file names, of the files given (path -> text)."""
    folders: dict[str, set[str]] = {}
    for path in sorted(texts):
        folder, base = posixpath.split(path)
        text = _COMMENT.sub("", texts[path][:1_000_000])
        if base == "pom.xml":
            found = _own_artifact(text)
        else:
            found = _ANT.search(text)
        if found:
            name = re.sub(r"\s+", "-", found.group(1).strip())
            if name:
                folders.setdefault(folder, set()).add(name)
    return folders
