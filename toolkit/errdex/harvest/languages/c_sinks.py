"""A C tree's own log functions, found by their declarations, for a harvest given no project sinks.

C projects rarely log through printf itself: they declare their own ``void log_error(const char *fmt, ...)``,
a function pointer ``void (*authlog)(const char *fmt, ...)`` or a macro ``#define serverLog(level, ...)``.

- A variadic function (or function pointer) with a format parameter (named ``fmt``/``format``/``msg``, or the
  ``char *`` just before ``...``) is a sink unless it builds a string: a pointer parameter before the format
  (``snprintf(buf, ...)``, ``sshbuf_putf(b, ...)``; a ``FILE *`` is a stream, not a buffer), a ``char *``
  result, or a builder's name (``xasprintf``, ``str_append``).
- A variadic function-like macro is one when its name reads as logging (a word such as ``log``, ``error``,
  ``warn``, ``fatal``, ``debug``: ``LOG_ERR``, ``serverLog``); its format is its ``fmt`` parameter, else the
  first variadic argument.

The level is the ``level``/``prio``/``severity`` parameter's value at each call, else the level the name says
(``log_warn``: warning), else info.

The first pass carries them through the tree (a header declares, a ``.c`` file calls): :func:`declared` gives
them as :class:`~errdex.harvest.sinks.Sink` by name, the ``sinks`` of the file's
:class:`~errdex.harvest.languages.TreeFacts`.
"""

from __future__ import annotations

import re

import tree_sitter_c
from tree_sitter import Language, Node

from errdex.harvest.languages._shared import nodes
from errdex.harvest.sinks import FormatStyle, Sink

_LANGUAGE = Language(tree_sitter_c.language())

__all__ = ["BUILDER_WORDS", "LEVEL_WORDS", "LOG_WORDS", "declared", "declared_name", "name_words", "parameter_name"]

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
#: The level a word of a function's name says (``log_warn``: warning).
LEVEL_WORDS = {
    "fatal": "fatal", "die": "fatal", "panic": "fatal", "crit": "fatal", "critical": "fatal", "emerg": "fatal",
    "alert": "fatal", "err": "error", "error": "error", "fail": "error", "warn": "warning", "warning": "warning",
    "info": "info", "notice": "info", "verbose": "info", "debug": "debug", "dbg": "debug", "trace": "trace",
}
#: Words of a function's name that say it logs.
LOG_WORDS = frozenset({*LEVEL_WORDS, "log", "logit", "logf", "logmsg", "logger", "msg", "message", "report"})
#: Words of a function's name that say it builds or stores a string rather than writing a line
#: (``xasprintf``, ``sshbuf_putf``, ``ssh_packet_set_log_preamble``).
BUILDER_WORDS = frozenset({"sprintf", "snprintf", "asprintf", "xasprintf", "vsnprintf", "str", "string", "buf",
                           "buffer", "append", "put", "putf", "cat", "set"})
_FORMAT_NAMES = frozenset({"fmt", "format", "msg", "message", "fmtstr", "formatstr", "f"})
_LEVEL_NAMES = frozenset({"level", "lvl", "pri", "prio", "priority", "severity", "loglevel", "log_level", "lev"})


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def name_words(name: str) -> list[str]:
    """A name's words, lowercased (``serverLog``: server, log; ``LOG_ERR``: log, err)."""
    return [word.lower() for word in _WORD.findall(name)]


def _level_of_name(words: list[str]) -> str:
    return next((LEVEL_WORDS[word] for word in words if word in LEVEL_WORDS), "info")


def _loggish(name: str) -> bool:
    words = name_words(name)
    return bool(words) and any(w in LOG_WORDS for w in words) and not any(w in BUILDER_WORDS for w in words)




def parameter_name(parameter: Node) -> str:
    """The name a parameter declaration declares."""
    node = parameter.child_by_field_name("declarator")
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator")
    return _text(node)


def declared_name(declarator: Node) -> str:
    """``f`` of ``f(...)``, ``(*f)(...)``, ``*f(...)``."""
    node = declarator.child_by_field_name("declarator")
    while node is not None and node.type in ("parenthesized_declarator", "pointer_declarator"):
        node = node.child_by_field_name("declarator") or (node.named_children[0] if node.named_children else None)
    return _text(node) if node is not None and node.type == "identifier" else ""


def _builds_a_string(declarator: Node, fixed: list[Node], fmt: int) -> bool:
    words = name_words(declared_name(declarator))
    if any(word in BUILDER_WORDS for word in words):
        return True
    outer = declarator.parent
    if outer is not None and outer.type == "pointer_declarator":
        result = outer.parent.child_by_field_name("type") if outer.parent is not None else None
        if "char" in _text(result):
            return True
    for parameter in fixed[:fmt]:
        pointer = "*" in _text(parameter.child_by_field_name("declarator")) or "*" in _text(parameter)
        if pointer and "FILE" not in _text(parameter.child_by_field_name("type")):
            return True
    return False


def _function(declarator: Node) -> tuple[str, int, int, FormatStyle] | None:
    """(name, format index, level index or -1, style) of a variadic function declarator, or of a logging
    function that writes a message as it is (:func:`_plain`); None for any other."""
    parameters = declarator.child_by_field_name("parameters")
    name = declared_name(declarator)
    if parameters is None or not name:
        return None
    items = [c for c in parameters.named_children if c.type in ("parameter_declaration", "variadic_parameter")]
    if not items:
        return None
    if items[-1].type != "variadic_parameter":
        return _plain(name, items)
    fixed = items[:-1]
    names = [parameter_name(p) for p in fixed]
    fmt = next((i for i, n in enumerate(names) if n in _FORMAT_NAMES), -1)
    if fmt < 0 and fixed and "char" in _text(fixed[-1].child_by_field_name("type")):
        fmt = len(fixed) - 1
    if fmt < 0 or _builds_a_string(declarator, fixed, fmt):
        return None
    level = next((i for i, n in enumerate(names) if n in _LEVEL_NAMES), -1)
    return name, fmt, level, "printf"


#: The names of a parameter that holds a message to write as it is.
_MESSAGE_NAMES = frozenset({"msg", "message", "text", "txt"})


def _plain(name: str, items: list[Node]) -> tuple[str, int, int, FormatStyle] | None:
    """A function that is not variadic, whose name reads as logging, that takes a ``char *`` message and either
    a level or a name that says one (redis's ``serverLogRaw(int level, const char *msg)``, dnsmasq's
    ``die(char *message, char *arg1, int exit_code)``): the message is written as it is, or read as printf
    when parameters follow it (``die``'s ``%s`` is ``arg1``)."""
    if not _loggish(name):
        return None
    names = [parameter_name(p) for p in items]
    level = next((i for i, n in enumerate(names) if n in _LEVEL_NAMES), -1)
    message = next((i for i, n in enumerate(names) if n in _MESSAGE_NAMES
                    and "char" in _text(items[i].child_by_field_name("type"))
                    and "*" in _text(items[i].child_by_field_name("declarator"))), -1)
    if message < 0 or (level < 0 and not any(word in LEVEL_WORDS for word in name_words(name))):
        return None
    return name, message, level, "printf" if message < len(items) - 1 else "plain"


def _macro(define: Node) -> tuple[str, int, int] | None:
    """(name, format index, level index or -1) of a variadic function-like macro, or None."""
    name = _text(define.child_by_field_name("name"))
    parameters = define.child_by_field_name("parameters")
    if parameters is None or "..." not in _text(parameters) or not _loggish(name):
        return None
    names = [_text(c) for c in parameters.named_children if c.type == "identifier"]
    fmt = next((i for i, n in enumerate(names) if n in _FORMAT_NAMES), -1)
    if fmt < 0:
        fmt = len(names)  # the first variadic argument is the format
    level = next((i for i, n in enumerate(names) if n in _LEVEL_NAMES), -1)
    return name, fmt, level


def declared(root: Node) -> dict[str, Sink]:
    """The file's printf-like log functions and macros, by name (a later declaration of a name replaces an
    earlier one)."""
    found: dict[str, Sink] = {}
    for node in nodes(_LANGUAGE, root, ("function_declarator", "preproc_function_def")):
        detected: tuple[str, int, int, FormatStyle] | None
        if node.type == "preproc_function_def":
            macro = _macro(node)
            detected = (*macro, "printf") if macro is not None else None
        else:
            detected = _function(node)
        if detected is not None:
            name, fmt, level, style = detected
            found[name] = Sink(name, fmt, _level_of_name(name_words(name)), style, level if level >= 0 else None)
    return found
