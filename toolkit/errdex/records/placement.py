"""Where a record says its message is written, as the one expression every matcher looks for in a log line.

Records that match a line equally well (two statements that write one message) are told apart by the line
itself when it names the file and line it came from: log4j's ``Class@368``, ``Class.java:368``, Python's
``client.py:42``, Go's ``main.go:17:``. :func:`placement_pattern` is that rule, written once, as a regular
expression in the subset Python ``re``, RE2 (DuckDB) and JavaScript read alike: the index stores it per record
(``records.placement``), the site's ``api/patterns.json`` carries it (``placement``), and ``errdex match``
compiles it; each of the three only looks for it in the line. The file's name is matched with or without its
extension, then ``@`` or ``:``, then ``lineNumber``, not inside a longer name (an ASCII letter, digit or ``_``
before it) nor a longer number (a digit after it).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["placement_pattern"]

#: The characters to escape in a file name so that every engine reads it as plain text.
_SPECIAL = re.compile(r"[\\.^$|?*+()\[\]{}/]")


def _plain(text: str) -> str:
    return _SPECIAL.sub(lambda found: "\\" + found.group(), text)


def placement_pattern(record: dict[str, Any]) -> str | None:
    """The expression found in a line that names the record's file and ``lineNumber``; None when the record
    has no file or no positive line number (it is never preferred)."""
    path, number = record.get("filePath"), record.get("lineNumber")
    if not isinstance(path, str) or type(number) is not int or number <= 0:
        return None
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    names = sorted({name for name in (base, base.rsplit(".", 1)[0]) if name}, key=lambda n: (-len(n), n))
    if not names:
        return None
    placed = f"(?:^|[^A-Za-z0-9_])(?:{'|'.join(_plain(n) for n in names)})[@:]{number}(?:[^0-9]|$)"
    module = _module(path) if path.endswith(".py") else ""
    if module:  # logging's %(name)s of getLogger(__name__): pkg.sub.mod for sub/mod.py, under any prefix
        placed += f"|(?:^|[^A-Za-z0-9_.])(?:[A-Za-z0-9_]+\\.)*{_plain(module)}(?:[^A-Za-z0-9_.]|$)"
    return placed


#: Folders a Python project keeps its packages in, not part of a module's name (``src/pkg/mod.py`` is ``pkg.mod``).
_LAYOUTS = ("src/", "lib/")


def _module(path: str) -> str:
    """The dotted module name a Python file is imported as, relative to the harvested folder: ``pkg/__init__.py``
    is ``pkg``, ``src/pkg/mod.py`` is ``pkg.mod``; "" for the folder's own ``__init__.py`` (named by a folder
    the path does not hold)."""
    name = path.replace("\\", "/")[:-3]
    for layout in _LAYOUTS:
        if name.startswith(layout) and name != layout + "__init__":
            name = name[len(layout):]
            break
    return "" if name == "__init__" else name.removesuffix("/__init__").replace("/", ".")
