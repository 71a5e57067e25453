"""Where a record says its message is written, as the one expression every matcher looks for in a log line.

Records that match a line equally well (two statements that write one message) are told apart by the line
itself when it names the file and line it came from: log4j's ``Class@368``, ``Class.java:368``, Python's
``client.py:42``, Go's ``main.go:17:``. :func:`placement_pattern` is that rule, written once, as a regular
expression in the subset Python ``re``, RE2 (DuckDB) and JavaScript read alike: the index stores it per record
(``records.placement``), the site's ``api/patterns.json`` carries it (``placement``), and ``errdex match``
compiles it; each of the three only looks for it in the line. The file's name is matched with or without its
extension, then ``@`` or ``:``, then ``lineNumber``, not inside a longer name (an ASCII letter, digit or ``_``
before it) nor a longer number (a digit after it). A weaker sign, :func:`origin_pattern` (``origin`` beside
``placement`` in the index and the site), is a line naming a Python file's module (logging's
``%(name)s``: ``urllib3.connectionpool``) or a Java file's class as log4j prints it (``%c``): qualified by
its package, whole or shortened to initials (``org.apache.hadoop.dfs.DataNode``, ``dfs.DataNode``,
``o.a.h.d.DataNode``), with a nested class (``DataNode$PacketResponder``, ``DataNode.PacketResponder``), or
alone before ``:``, ``]``, ``@`` or ``$`` (``[main:QuorumPeer@368]``, ``DataNode: ``).

What the record's file is built into (its ``build`` field: programs, platform, role) ranks records that are
otherwise equal, and a line that names its program removes the doubt: :data:`PROGRAM_TAG` (syslog's
``sshd[123]: ``) is the line's program; a record whose known programs do not hold it could not have written
the line and ranks after every record that could (:func:`excluded`); then a record of test code or of a file
built for another platform ranks after the others (:func:`foreign`); among records tied on their pattern's
specificity, one whose file and line the line names comes first, then one whose module or class it names,
then one whose programs hold the line's (:func:`agrees`), then :func:`standing` orders by platform (every
platform, unix or linux before another) and role (``main`` before ``contrib`` before ``test``).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FOREIGN_STANDING", "PROGRAM_TAG", "agrees", "build_programs", "excluded", "foreign", "line_program",
           "origin_pattern", "placement_pattern", "standing"]

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
    return f"(?:^|[^A-Za-z0-9_])(?:{'|'.join(_plain(n) for n in names)})[@:]{number}(?:[^0-9]|$)"


def origin_pattern(record: dict[str, Any]) -> str | None:
    """The expression found in a line that names the record's Python module or Java class (without a line
    number: weaker than :func:`placement_pattern`, which says the statement); None for other files."""
    path = record.get("filePath")
    if not isinstance(path, str):
        return None
    if path.endswith(".java"):
        return _java_class(path)
    module = _module(path) if path.endswith(".py") else ""
    if module:  # logging's %(name)s of getLogger(__name__): pkg.sub.mod for sub/mod.py, under any prefix
        return f"(?:^|[^A-Za-z0-9_.])(?:[A-Za-z0-9_]+\\.)*{_plain(module)}(?:[^A-Za-z0-9_.]|$)"
    return None


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


#: Folders that hold a Java source tree, not part of a package's name.
_JAVA_ROOTS = frozenset({"src", "java", "main", "test", "jvm", "kotlin", "scala", "source", "sources"})
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
#: How many package folders are written into the expression at most (the rest are taken as any prefix).
_MAX_PACKAGE = 12


def _either(folder: str) -> str:
    """A package folder as log4j may print it: whole, or its initial (``o.a.h``)."""
    return _plain(folder) if len(folder) == 1 else f"(?:{_plain(folder)}|{_plain(folder[0])})"


def _java_class(path: str) -> str:
    """The expression of a line naming the class of a ``.java`` file as log4j prints it (the module's docstring):
    qualified by its innermost package folder at least (each outer one optional, from the outermost; any
    prefix when the path does not reach a source root such as ``src/main/java``), or alone before ``:``,
    ``]``, ``@`` or ``$``."""
    *folders, name = path.replace("\\", "/").split("/")
    cls = _plain(name[: -len(".java")])
    package: list[str] = []
    whole = False  # the path reaches a source root: the package is all there
    for folder in reversed(folders):
        if folder in _JAVA_ROOTS or not _IDENTIFIER.match(folder) or len(package) >= _MAX_PACKAGE:
            whole = folder in _JAVA_ROOTS
            break
        package.insert(0, folder)
    start = "(?:^|[^A-Za-z0-9_.$])"
    anything = "" if whole else "(?:[A-Za-z0-9_]+\\.)*"
    alone = f"{start}{anything}{cls}(?:\\$[A-Za-z0-9_]+)*[:\\]@$]"
    if not package:
        return alone
    chain = anything
    for folder in package[:-1]:
        chain = f"(?:{chain}{_either(folder)}\\.)?"
    nested = "(?:[$.][A-Za-z_][A-Za-z0-9_]*)*"
    end = "(?:[^A-Za-z0-9_$.]|\\.[^A-Za-z0-9_]|\\.?$)"
    return f"{start}{chain}{_either(package[-1])}\\.{cls}{nested}{end}|{alone}"


#: The program a line names: a syslog or journal tag, the program's name and process id before the message
#: (``Dec 10 06:55:46 host sshd[24200]: ...``). Group 1 is the name. Read alike by Python ``re``, RE2 and
#: JavaScript.
PROGRAM_TAG = r"(?:^|[^A-Za-z0-9_.+-])([A-Za-z0-9_.+-]+)\[[0-9]+\]: "
_TAG = re.compile(PROGRAM_TAG)
#: Platforms that rank with a file built for every platform by default (the machines errdex is used on most).
DEFAULT_PLATFORMS = (None, "unix", "linux")
#: What a role costs in :func:`standing`.
_ROLES = {"main": 0, "contrib": 1, "test": 2}
#: The :func:`standing` from which a record is :func:`foreign`: test code, or a file for another platform.
FOREIGN_STANDING = 2


def line_program(line: str) -> str | None:
    """The program the line names (:data:`PROGRAM_TAG`), lowercased, or None."""
    found = _TAG.search(line) if "[" in line else None
    return found.group(1).lower() if found else None


def build_programs(record: dict[str, Any]) -> list[str]:
    """The programs the record's file is built into (its ``build`` field), lowercased; [] when not known."""
    build = record.get("build")
    programs = build.get("programs") if isinstance(build, dict) else None
    return sorted({p.lower() for p in programs if isinstance(p, str)}) if isinstance(programs, list) else []


def _platform(record: dict[str, Any]) -> str | None:
    build = record.get("build")
    platform = build.get("platform") if isinstance(build, dict) else None
    return platform.lower() if isinstance(platform, str) else None


def _fits(platform: str | None, wanted: str) -> bool:
    """Whether a file for ``platform`` is built on ``wanted`` (every platform; unix on any unix but win32)."""
    return platform is None or platform == wanted or (platform == "unix" and wanted not in ("win32", "cygwin"))


def excluded(record: dict[str, Any], program: str | None, platform: str | None = None) -> bool:
    """Whether the record could not have written a line of ``program`` (on ``platform``): its file's known
    programs do not hold it, or the file is for another platform."""
    if program is not None:
        programs = build_programs(record)
        if programs and program.lower() not in programs:
            return True
    return platform is not None and not _fits(_platform(record), platform.lower())


def agrees(record: dict[str, Any], program: str | None) -> bool:
    """Whether the record's file is known to be built into ``program``."""
    return program is not None and program.lower() in build_programs(record)


def foreign(record: dict[str, Any], platform: str | None = None) -> bool:
    """Whether the record's file is test code or built for another platform than ``platform`` (by default: other
    than every platform, unix or linux): such a record ranks after every other that matches the line, however
    specific its pattern (the server's line, not the Windows copy's nor a regression helper's)."""
    return standing(record, platform) >= FOREIGN_STANDING


def standing(record: dict[str, Any], platform: str | None = None) -> int:
    """How a record ranks among those otherwise equal, lower first: by platform (``platform`` given: a file for
    it or for every platform; else one for every platform, unix or linux) before another, then by role
    (main, contrib, test)."""
    own = _platform(record)
    fits = _fits(own, platform.lower()) if platform is not None else own in DEFAULT_PLATFORMS
    build = record.get("build")
    role = build.get("role") if isinstance(build, dict) else None
    return (0 if fits else 3) + _ROLES.get(role if isinstance(role, str) else "main", 0)
