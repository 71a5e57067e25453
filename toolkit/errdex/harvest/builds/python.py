"""Programs from a Python project's ``pyproject.toml``, ``setup.cfg`` or ``setup.py``: the distribution's name
(``[project] name``, ``name=``) for every file under the project's folder, and each console script
(``[project.scripts]``, ``console_scripts``) for the module it runs."""

from __future__ import annotations

import posixpath
import re
import tomllib
from typing import Any

__all__ = ["PYTHON_NAMES", "programs_of_python"]

PYTHON_NAMES = frozenset({"pyproject.toml", "setup.py", "setup.cfg"})
_NAME = re.compile(r"""\bname\s*=\s*["']([A-Za-z0-9_.-]+)["']""")
_CFG_NAME = re.compile(r"^\s*name\s*=\s*([A-Za-z0-9_.-]+)\s*$", re.MULTILINE)
_SCRIPT = re.compile(r"""["']?\s*([A-Za-z0-9_.-]+)\s*=\s*([A-Za-z0-9_.]+)\s*:\s*[A-Za-z0-9_.]+""")
_LAYOUTS = ("", "src/", "lib/")


def _toml(text: str) -> tuple[str | None, dict[str, str]]:
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None, {}
    project = data.get("project")
    if not isinstance(project, dict):
        return None, {}
    name = project.get("name") if isinstance(project.get("name"), str) else None
    scripts = project.get("scripts")
    found = {k: v.split(":", 1)[0].strip() for k, v in scripts.items() if isinstance(v, str)} \
        if isinstance(scripts, dict) else {}
    return name, found


def programs_of_python(texts: dict[str, str]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(folder -> programs of every file under it, source stem -> console scripts) of the files given."""
    folders: dict[str, set[str]] = {}
    stems: dict[str, set[str]] = {}
    for path in sorted(texts):
        folder, base = posixpath.split(path)
        text = texts[path][:1_000_000]
        if base == "pyproject.toml":
            name, scripts = _toml(text)
        else:
            found = (_CFG_NAME if base == "setup.cfg" else _NAME).search(text)
            name = found.group(1) if found else None
            entries = text.split("console_scripts", 1)[1][:20_000] if "console_scripts" in text else ""
            scripts = {m.group(1): m.group(2) for m in _SCRIPT.finditer(entries)}
        if name:
            folders.setdefault(folder, set()).add(name)
        for script, module in scripts.items():
            for layout in _LAYOUTS:
                stem = posixpath.join(folder, layout + module.replace(".", "/"))
                stems.setdefault(stem, set()).add(script)
                stems.setdefault(stem + "/__main__", set()).add(script)
    return folders, stems
