"""One module per language: each finds sites in a file's tree-sitter tree and returns the same objects.

A language module defines ``FINDER``, an object with:

- ``name`` (``"python"``) and ``extensions`` (``(".py",)``);
- ``default_sinks`` (the language's common loggers and reporters, as :class:`~errdex.harvest.sinks.Sink`);
- ``survey(source: bytes) -> TreeFacts``: what a first pass over the tree learns from the file for the others
  (:class:`TreeFacts`: string constants such as C ``#define NAME "text"`` in headers and Java ``static final
  String``, C log functions found by their declarations, the literals Java callers pass to a method); a
  language whose files offer nothing (its constants all resolve within the file) sets ``offers_constants =
  False``, and the first pass skips its files;
- ``find(source: bytes, path: str, *, sinks, levels, facts: TreeFacts) -> FileSites``: every site of the file,
  ``facts`` being what the first pass learned from every file of its language (:meth:`TreeFacts.add`);
- optionally ``site_words`` (bytes): the words its sites need besides a sink's name (``throw``, ``raise``); a
  file holding none of them nor a sink's name is not handed to ``find`` (and ``release(source)``, if defined,
  lets go of what ``survey`` kept for it). A finder without ``site_words`` sees every file.

Both parse through :func:`._tree.parse`, and raise :class:`Unparsable` for a file the parser must not see (a
shape that crashes its grammar's code) or gave up on (time): the file is listed with the reason, not read.

Modules load only when a file of their language is harvested (the grammar wheels are imported there).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from errdex.harvest.sinks import Sink
from errdex.harvest.sites import Site, Skipped, Template

__all__ = ["LANGUAGE_MODULES", "FileSites", "Finder", "Macro", "Parameter", "Printer", "Raiser", "TreeFacts",
           "Unparsable", "finder_for"]


class Parameter(NamedTuple):
    """A parameter of a method known by its class, name and arity (``Environment.logEnv/2``, parameter 0)."""

    owner: str
    method: str
    arity: int
    position: int


class Macro(NamedTuple):
    """A function-like C macro: its parameters (the variadic one by the name its body uses, ``__VA_ARGS__``
    or a GNU ``args...``'s ``args``; ``variadic`` says whether the last is one) and its body; or a C function
    that hands a ``char *`` parameter on, its body the calls it hands it to."""

    parameters: tuple[str, ...]
    variadic: bool
    body: str


class Printer(NamedTuple):
    """A C function with a format parameter (found by its declaration or definition): where its format and
    level are, whether it builds a string rather than writing one, whether it is variadic (else it takes a
    ``va_list``); what its own body prints around the message, ``(where, before, value, after, condition,
    test)`` with ``where`` ``prefix`` or ``suffix``, ``value`` and ``condition`` parameter indexes
    (``condition`` -1: always) and ``test`` ``nonzero`` or ``not-null``; and the calls it makes, as (function,
    the parameter index each argument passes, -1 for none)."""

    format_arg: int
    level_arg: int | None
    builds: bool
    variadic: bool = True
    around: tuple[tuple[str, str, int, str, int, str], ...] = ()
    forwards: tuple[tuple[str, tuple[int, ...]], ...] = ()


class Raiser(NamedTuple):
    """A function that raises (or, ``returns``, returns) an exception whose message is its parameter
    ``parameter``, at ``position`` of its callers' arguments; of ``error_class``, unless the caller passes the
    class for ``class_parameter`` (at ``class_position``)."""

    position: int
    parameter: str
    error_class: str
    class_position: int | None = None
    class_parameter: str | None = None
    returns: bool = False


@dataclass
class TreeFacts:
    """What a first pass over the tree learns, of one file or (merged by :meth:`add`, in path order) of all
    the files of a language, for the sites pass of every file.

    - ``constants``: string constants by name (C macros, Java ``static final String``, Go ``const``);
    - ``sinks``: printf-like log functions and macros found by their declarations (C), by name;
    - ``passed``: the string literals callers pass for a method's parameter (Java), by parameter;
    - ``returns``: the messages functions of a name return (Python ``def describe(self): return f"..."``),
      each distinct template once: a caller uses one only when all the tree's functions of that name agree;
    - ``loggers``: the logger fields of the tree's classes as ``Class.field`` (and ``Outer.Inner.field``), and
      the methods that return a logger as ``Class.method()`` (Java);
    - ``parents``: each class's superclass by simple name (Java), so a class inherits its parent's loggers.
    - ``dialects``: the style a project sink's format is read in, by base style, learned from the tree's own
      formatter (C: :mod:`.c_dialect`).
    - ``macros`` and ``printers``: C function-like macros and printf-like functions, by name (a definition
      is kept over a declaration, which does not say what the function prints).
    - ``raisers``: functions that raise for their callers, with their parameter as the message (Python's
      ``self.fail(msg, lineno)``), by name, each distinct one once;
    - ``class_messages``: the messages exception classes write themselves (a ``__str__``), by class name.
    """

    constants: dict[str, str] = field(default_factory=dict)
    sinks: dict[str, Sink] = field(default_factory=dict)
    passed: dict[Parameter, list[str]] = field(default_factory=dict)
    returns: dict[str, list[Template]] = field(default_factory=dict)
    loggers: set[str] = field(default_factory=set)
    parents: dict[str, str] = field(default_factory=dict)
    dialects: dict[str, str] = field(default_factory=dict)
    macros: dict[str, Macro] = field(default_factory=dict)
    printers: dict[str, Printer] = field(default_factory=dict)
    raisers: dict[str, list[Raiser]] = field(default_factory=dict)
    class_messages: dict[str, list[Template]] = field(default_factory=dict)

    def add(self, other: TreeFacts) -> None:
        """Merge what a later file offers: a constant or sink already known keeps its first definition; a
        parameter gathers the literals of every caller, each once, in the order first seen."""
        for name, value in other.constants.items():
            self.constants.setdefault(name, value)
        for name, sink in other.sinks.items():
            self.sinks.setdefault(name, sink)
        for parameter, literals in other.passed.items():
            known = self.passed.setdefault(parameter, [])
            for literal in literals:
                if literal not in known:
                    known.append(literal)
        for base, style in other.dialects.items():
            self.dialects.setdefault(base, style)
        for name, templates in other.returns.items():
            kept = self.returns.setdefault(name, [])
            kept.extend(t for t in templates if t not in kept)
        self.loggers |= other.loggers
        for name, parent in other.parents.items():
            self.parents.setdefault(name, parent)
        for name, macro in other.macros.items():
            self.macros.setdefault(name, macro)
        for name, printer in other.printers.items():
            if name not in self.printers or (printer.forwards and not self.printers[name].forwards):
                self.printers[name] = printer
        for name, found in other.raisers.items():
            raisers = self.raisers.setdefault(name, [])
            raisers.extend(r for r in found if r not in raisers)
        for name, templates in other.class_messages.items():
            held = self.class_messages.setdefault(name, [])
            held.extend(t for t in templates if t not in held)


class Unparsable(ValueError):
    """A file the parser is not given (its grammar's parser would crash on it) or gave up on (time): the
    file is listed with this reason, never a reason to stop."""


@dataclass
class FileSites:
    """What a finder found in one file; ``parse_error`` when tree-sitter could not parse it (the file is then
    listed in the summary, never a reason to stop); ``unread`` when the file was not read at all (refused by
    the parser, or its finder failed), so that its sites are unknown rather than none; ``fault`` when it was
    errdex's finder that failed on it, not the file that could not be parsed."""

    sites: list[Site] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    parse_error: str | None = None
    unread: bool = False
    fault: bool = False


class Finder(Protocol):
    name: str
    extensions: tuple[str, ...]
    default_sinks: tuple[Sink, ...]

    def survey(self, source: bytes) -> TreeFacts: ...

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites: ...


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
