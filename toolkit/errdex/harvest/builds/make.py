"""Programs from a Makefile (``Makefile``, ``Makefile.in``, ``GNUmakefile``): which object files each program
links, directly or through a static library the same tree builds.

A link rule is a rule whose recipe writes ``-o``: its program is the target (``$(EXEEXT)`` and autoconf's
``@...@`` dropped), its objects are the ``.o`` words of its prerequisites and recipe (``$^`` and variables
expanded), and every ``.a`` (or ``-lNAME``) it names that a rule of the tree builds adds that library's objects
(``libssh.a: $(LIBSSH_OBJS)``, ``openbsd-compat/libopenbsd-compat.a`` built by ``openbsd-compat/Makefile.in``).
A target whose prerequisite is another program and whose recipe links nothing (``redis-sentinel:
redis-server``, installed as a copy) is that program under another name. BSD make's ``PROG=`` with ``SRCS=``
names one program and its sources. An object ``x.o`` stands for the source ``x.*`` in the Makefile's folder.

Expansion is bounded (depth, size of any expansion, number of variables): a hostile Makefile gives fewer
programs, never a hang.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from errdex.harvest.builds.paths import role_of_path

__all__ = ["MAKEFILE_NAMES", "Makefile", "parse_makefile", "programs_of_makefiles"]

MAKEFILE_NAMES = frozenset({"Makefile", "Makefile.in", "GNUmakefile", "makefile"})

_MAX_DEPTH = 12
_MAX_EXPANSION = 200_000  # characters of any one expansion
_MAX_VARIABLES = 5000
_MAX_RULES = 5000
_ASSIGN = re.compile(r"^(?:override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*([:+?]?=|:::?=)\s*(.*)$")
_RULE = re.compile(r"^([^\t#=:][^=:]*?)\s*::?(?!=)\s*(.*)$")
_AUTOCONF = re.compile(r"@[A-Za-z_][A-Za-z0-9_]*@")
_OBJECT = re.compile(r"\.(?:o|lo|obj)$")
_LIBRARY = re.compile(r"\.(?:a|la)$")


@dataclass
class Makefile:
    """What one Makefile says: its folder, variables and rules (targets -> prerequisites, recipe)."""

    folder: str
    variables: dict[str, str] = field(default_factory=dict)
    rules: list[tuple[list[str], str, list[str]]] = field(default_factory=list)  # raw targets, prereqs, recipe


def _logical_lines(text: str) -> list[str]:
    return re.sub(r"\\\r?\n[ \t]*", " ", text).splitlines()


def parse_makefile(path: str, text: str) -> Makefile:
    """The variables and rules of the Makefile at ``path`` (its text; bounded: see the module's docstring)."""
    made = Makefile(posixpath.dirname(path))
    current: tuple[list[str], str, list[str]] | None = None
    for line in _logical_lines(text):
        if line.startswith("\t"):
            if current is not None:
                current[2].append(line.strip())
            continue
        code = line.split("#", 1)[0].rstrip()
        if not code.strip():
            continue
        assign = _ASSIGN.match(code)
        if assign:
            current = None
            name, op, value = assign.groups()
            if name not in made.variables and len(made.variables) >= _MAX_VARIABLES:
                continue
            if op == "+=" and name in made.variables:
                made.variables[name] += " " + value
            elif op != "?=" or name not in made.variables:
                made.variables[name] = value
            continue
        rule = _RULE.match(code)
        if rule and len(made.rules) < _MAX_RULES:
            prereqs = rule.group(2).split(";", 1)[0]
            current = (rule.group(1).split(), prereqs, [])
            made.rules.append(current)
        else:
            current = None
    return made


_REFERENCE = re.compile(r"\$(?:\(([^()$]*(?:\$[({][^()]*[)}][^()$]*)*)\)|\{([^{}$]*)\}|([A-Za-z_@^<]))")


def _expand(text: str, variables: dict[str, str], auto: dict[str, str] | None = None, depth: int = 0) -> str:
    """``text`` with ``$(NAME)``, ``${NAME}``, ``$(NAME:.o=.c)`` and the automatic ``$@ $^ $<`` expanded; a
    function call (``$(sort ...)``, ``$(patsubst ...)``) is read as its last argument; an unknown name is "".
    Bounded in depth and size."""
    if depth > _MAX_DEPTH or "$" not in text:
        return text[:_MAX_EXPANSION]

    def one(found: re.Match[str]) -> str:
        inner = found.group(1) if found.group(1) is not None else found.group(2)
        if inner is None:
            return (auto or {}).get(found.group(3), "")
        inner = _expand(inner, variables, auto, depth + 1)
        if " " in inner.strip() or "," in inner:  # a function: its text argument is the last one
            return inner.rsplit(",", 1)[-1] if "," in inner else inner.split(None, 1)[-1]
        name, _, substitution = inner.partition(":")
        value = _expand(variables.get(name.strip(), ""), variables, auto, depth + 1)
        if "=" in substitution:
            old, new = substitution.split("=", 1)
            old, new = old.replace("%", ""), new.replace("%", "")
            value = " ".join(word[: -len(old)] + new if old and word.endswith(old) else word for word in value.split())
        return value[:_MAX_EXPANSION]

    return _REFERENCE.sub(one, text[:_MAX_EXPANSION])[:_MAX_EXPANSION]


def _words(text: str, made: Makefile, auto: dict[str, str] | None = None) -> list[str]:
    return _AUTOCONF.sub("", _expand(text, made.variables, auto)).split()


def _program_name(target: str) -> str | None:
    name = posixpath.basename(target)
    if not name or name.startswith(".") or "%" in name or _OBJECT.search(name) or _LIBRARY.search(name) \
            or name.endswith((".so", ".dylib", ".dll", ".c", ".h", ".in", ".1", ".5", ".8", ".out")):
        return None
    return name.removesuffix(".exe")


def _stem(folder: str, word: str) -> str:
    return posixpath.normpath(posixpath.join(folder, word)).rsplit(".", 1)[0]


@dataclass
class _Link:
    objects: set[str] = field(default_factory=set)  # stems: folder/name without extension
    libraries: set[str] = field(default_factory=set)  # normalised paths of .a files
    aliases: set[str] = field(default_factory=set)  # targets named as prerequisites, for a program built by copy
    folders: set[str] = field(default_factory=set)  # of the Makefiles that build it


def _links(made: Makefile) -> tuple[dict[str, _Link], dict[str, set[str]]]:
    """Programs -> what they link, and libraries (path) -> their object stems, of one Makefile."""
    programs: dict[str, _Link] = {}
    libraries: dict[str, set[str]] = {}
    for raw_targets, raw_prereqs, recipe in made.rules:
        prereqs = _words(raw_prereqs, made)
        for target in _words(" ".join(raw_targets), made):
            auto = {"@": target, "^": " ".join(prereqs), "<": prereqs[0] if prereqs else ""}
            said = _words(" ".join(recipe), made, auto)
            words = [*prereqs, *said]
            objects = {_stem(made.folder, w) for w in words if _OBJECT.search(w) and "%" not in w and "*" not in w}
            if _LIBRARY.search(target):
                if objects:
                    libraries.setdefault(posixpath.normpath(posixpath.join(made.folder, target)), set()).update(objects)
                continue
            name = _program_name(target)
            if name is None:
                continue
            linked = "-o" in said
            if linked and objects:
                link = programs.setdefault(name, _Link())
                link.folders.add(made.folder)
                link.objects |= objects
                link.libraries |= {posixpath.normpath(posixpath.join(made.folder, w)) for w in words
                                   if _LIBRARY.search(w)}
                link.libraries |= {posixpath.join(made.folder, f"lib{w[2:]}.a") for w in said
                                   if w.startswith("-l") and len(w) > 2}
            elif not linked and not objects and len(prereqs) == 1 and target in said:  # installed as a copy
                copied = _program_name(prereqs[0])
                if copied:
                    programs.setdefault(name, _Link()).aliases.add(copied)
    prog = _words(made.variables.get("PROG", ""), made)
    sources = _words(made.variables.get("SRCS", ""), made)
    if len(prog) == 1 and sources:  # BSD make
        link = programs.setdefault(prog[0], _Link())
        link.folders.add(made.folder)
        link.objects |= {_stem(made.folder, s) for s in sources}
    return programs, libraries


def programs_of_makefiles(makefiles: list[Makefile],
                          budget: Callable[[], bool] = lambda: True) -> dict[str, set[str]]:
    """Source stem (``folder/name`` without extension) -> the programs that link it, over all ``makefiles``
    (libraries one Makefile builds reach the programs another links). ``budget()`` false stops early."""
    programs: dict[str, _Link] = {}
    libraries: dict[str, set[str]] = {}
    for made in makefiles:
        if not budget():
            break
        found, built = _links(made)
        for name, link in found.items():
            into = programs.setdefault(name, _Link())
            into.objects |= link.objects
            into.libraries |= link.libraries
            into.aliases |= link.aliases
            into.folders |= link.folders
        for path, objects in built.items():
            libraries.setdefault(path, set()).update(objects)
    stems: dict[str, set[str]] = {}
    for name, link in programs.items():
        if not link.objects and not link.libraries:
            continue
        # a test's (or contrib's) program linking the project's library does not make the library its
        tested = {role_of_path(folder + "/x") for folder in link.folders} - {"main"}
        for stem in link.objects.union(*(libraries.get(lib, set()) for lib in link.libraries)):
            if not tested or role_of_path(stem) in tested:
                stems.setdefault(stem, set()).add(name)
    for name, link in programs.items():  # a program built as a copy of another: that one's sources
        if link.objects:
            continue
        for alias in link.aliases:
            if alias in programs and programs[alias].objects:
                for names in stems.values():
                    if alias in names:
                        names.add(name)
    return stems
