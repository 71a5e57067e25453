"""A C tree's printf-like functions, and what their definitions print around the message.

:func:`printers` gives each variadic function (or function pointer) with a format parameter as a
:class:`~errdex.harvest.languages.Printer`: the format is the parameter named ``fmt``/``format``/``msg``, else
the one a ``__attribute__((format(printf, N, M)))`` names, else the ``char *`` just before ``...``; the level is
the parameter named ``level``/``prio``... or typed so (``LogLevel``). It *builds* a string (and is no log) when
its name says so (``snprintf``, ``xasprintf``, ``sshbuf_putf``), it returns a ``char *``, or a writable
character buffer (``char *buf``, ``u_char *``, a ``*buf``/``*str`` type) comes before the format.

What a definition prints around the message is read by two rules, on a call in its body (or in the body of a
function of the same file it hands its parameters to, up to :data:`DEPTH` calls deep) that formats exactly two
``%s``, ``"A%sB%s"``, from two names:

- ``(P, F)`` where ``F`` is the format parameter and ``P`` another parameter: ``A<P>B`` is written first
  (OpenSSH's ``snprintf(fmt2, sizeof(fmt2), "%s: %s", func, fmt)``);
- ``(M, S)`` where ``M`` is no parameter (the message built so far) and ``S`` is a parameter: ``B<S>`` is
  written after (``snprintf(fmtbuf, sizeof(fmtbuf), "%s: %s", msgbuf, suffix)``).

Under ``if (X)`` or ``if (X != NULL)`` of a parameter ``X`` (the nearest ``if``, the call in its first branch),
the part is written only when the caller's ``X`` is not 0 (not NULL); under any other condition it is not
counted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import tree_sitter_c
from tree_sitter import Language, Node

from errdex.harvest.languages import Macro, Printer
from errdex.harvest.languages._shared import nodes, unescape
from errdex.harvest.languages.c_sinks import BUILDER_WORDS, declared_name, name_words, parameter_name

__all__ = ["DEPTH", "arounds", "builds_by_name", "forwarders", "printers"]

_LANGUAGE = Language(tree_sitter_c.language())
#: How many calls deep a definition's parameters are followed into the functions it calls.
DEPTH = 4
_FORMAT_NAMES = frozenset({"fmt", "format", "msg", "message", "fmtstr", "formatstr", "f"})
_LEVEL_NAMES = frozenset({"level", "lvl", "pri", "prio", "priority", "severity", "loglevel", "log_level", "lev"})
_LEVEL_TYPE = re.compile(r"(?i)level|priority|severity")
_CHARS = re.compile(r"\b(?:unsigned\s+char|signed\s+char|char|u_char|uchar|u8|guchar|gchar)\b")
_TWO = re.compile(r"((?:[^%]|%%)*)%[-0-9.]*s((?:[^%]|%%)*)%[-0-9.]*s((?:[^%]|%%)*)", re.DOTALL)
_TEST = re.compile(r"(\w+)(?:\s*!=\s*(?:NULL|0|nullptr))?")

Around = tuple[str, str, int, str, int, str]


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _format_attribute(declarator: Node) -> int:
    """The 0-based format index a ``__attribute__((format(printf, N, M)))`` of the declaration names, or -1."""
    owner = declarator.parent
    for node in (declarator, owner):
        for spec in (c for c in (node.children if node is not None else ()) if c.type == "attribute_specifier"):
            match = re.search(r"format\s*\(\s*_*printf_*\s*,\s*([0-9]+)", _text(spec))
            if match is not None:
                return int(match.group(1)) - 1
    return -1


def builds_by_name(name: str) -> bool:
    """Whether a function's name says it builds a string (``snprintf``, ``xasprintf``, ``sshbuf_putf``)."""
    return any(word in BUILDER_WORDS for word in name_words(name))


def _builds(declarator: Node, fixed: list[Node], fmt: int) -> bool:
    if builds_by_name(declared_name(declarator)):
        return True
    outer = declarator.parent
    if outer is not None and outer.type == "pointer_declarator":
        result = outer.parent.child_by_field_name("type") if outer.parent is not None else None
        if _CHARS.search(_text(result)):
            return True
    for parameter in fixed[:fmt]:
        kind = _text(parameter.child_by_field_name("type"))
        pointer = "*" in _text(parameter.child_by_field_name("declarator"))
        writable = pointer and "const" not in _text(parameter).split("*", 1)[0]
        if writable and (_CHARS.search(kind) or any(w in ("buf", "buffer", "str", "string") for w in name_words(kind))):
            return True
    return False


def _signature(declarator: Node) -> tuple[str, list[str], int, int | None, bool, bool] | None:
    """(name, parameter names, format index, level index, builds, variadic) of a function declarator with a
    format parameter (variadic, or taking a ``va_list``), or None."""
    parameters = declarator.child_by_field_name("parameters")
    name = declared_name(declarator)
    if parameters is None or not name:
        return None
    items = [c for c in parameters.named_children if c.type in ("parameter_declaration", "variadic_parameter")]
    variadic = bool(items) and items[-1].type == "variadic_parameter"
    fixed = items[:-1] if variadic else items
    if not variadic and not any("va_list" in _text(p) for p in fixed):
        return None
    names = [parameter_name(p) for p in fixed]
    fmt = next((i for i, n in enumerate(names) if n in _FORMAT_NAMES), -1)
    if fmt < 0:
        fmt = _format_attribute(declarator)
    if fmt < 0:
        last = len(fixed) - (1 if variadic else 2)
        if 0 <= last < len(fixed) and "char" in _text(fixed[last].child_by_field_name("type")):
            fmt = last
    if not 0 <= fmt < len(fixed):
        return None
    level = next((i for i, n in enumerate(names) if n in _LEVEL_NAMES), None)
    if level is None:
        level = next((i for i, p in enumerate(fixed[:fmt])
                      if _LEVEL_TYPE.search(_text(p.child_by_field_name("type")))), None)
    return name, names, fmt, level, _builds(declarator, fixed, fmt), variadic


def _condition(call: Node, body: Node, names: list[str]) -> tuple[int, str] | None:
    """(parameter, test) the call is written under; (-1, "") for none; None for a condition not counted."""
    child, parent = call, call.parent
    while parent is not None and parent != body:
        if parent.type == "if_statement":
            if parent.child_by_field_name("consequence") != child:
                return None
            test = _text(parent.child_by_field_name("condition")).strip()
            while test.startswith("(") and test.endswith(")"):
                test = test[1:-1].strip()
            match = _TEST.fullmatch(test)
            if match is None or match.group(1) not in names:
                return None
            return names.index(match.group(1)), "not-null" if "!=" in test else "nonzero"
        child, parent = parent, parent.parent
    return -1, ""


def _own(body: Node, names: list[str], fmt: int) -> list[Around]:
    """What the body's own ``"A%sB%s"`` calls print around the message (the module's two rules)."""
    found: list[Around] = []
    for call in nodes(_LANGUAGE, body, ("call_expression",)):
        args = call.child_by_field_name("arguments")
        items = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if len(items) < 3 or items[-3].type != "string_literal" or not all(a.type == "identifier" for a in items[-2:]):
            continue
        literal = _text(items[-3])
        shape = _TWO.fullmatch(unescape(literal[literal.index('"') + 1:literal.rindex('"')]))
        if shape is None:
            continue
        first, second = _text(items[-2]), _text(items[-1])
        condition = _condition(call, body, names)
        if condition is None:
            continue
        if second == names[fmt] and first in names and first != names[fmt] and not shape.group(3):
            found.append(("prefix", shape.group(1), names.index(first), shape.group(2), *condition))
        elif first not in names and second in names and second != names[fmt] and not shape.group(1):
            found.append(("suffix", shape.group(2), names.index(second), shape.group(3), *condition))
    return found


def _forwarded(body: Node, names: list[str]) -> list[tuple[str, list[int]]]:
    """Each call in the body: the function called and, for each argument, the parameter it passes (-1: none)."""
    calls = []
    for call in nodes(_LANGUAGE, body, ("call_expression",)):
        args = call.child_by_field_name("arguments")
        items = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        calls.append((_text(call.child_by_field_name("function")),
                      [names.index(_text(a)) if _text(a) in names else -1 for a in items]))
    return calls


def printers(root: Node) -> dict[str, Printer]:
    """The file's functions with a format parameter (variadic, or taking a ``va_list``), by name (a
    definition's over a declaration's), with what their own calls print around the message and the calls
    they make (:func:`arounds` follows them, across the tree)."""
    signatures: dict[str, tuple[list[str], int, int | None, bool, bool]] = {}
    own: dict[str, list[Around]] = {}
    calls: dict[str, list[tuple[str, list[int]]]] = {}
    for declarator in nodes(_LANGUAGE, root, ("function_declarator",)):
        signature = _signature(declarator)
        if signature is None:
            continue
        name, names, fmt, level, builds, variadic = signature
        definition = declarator.parent
        defined = definition is not None and definition.type == "function_definition"
        if name not in signatures or defined:
            signatures[name] = (names, fmt, level, builds, variadic)
        body = definition.child_by_field_name("body") if defined and definition is not None else None
        if body is not None and all(names):
            own[name] = _own(body, names, fmt)
            calls[name] = _forwarded(body, names)
    return {name: Printer(fmt, level, builds, variadic, tuple(own.get(name, ())), tuple(
                (callee, tuple(passed)) for callee, passed in calls.get(name, ()) if callee in signatures or
                any(p >= 0 for p in passed)))
            for name, (_names, fmt, level, builds, variadic) in signatures.items()}


def arounds(known: Mapping[str, Printer]) -> dict[str, tuple[Around, ...]]:
    """What each printer prints around the message, its own calls' and those of the printers it hands its
    parameters to (up to :data:`DEPTH` deep), by name."""
    resolved: dict[str, tuple[Around, ...]] = {}

    def around(name: str, depth: int) -> tuple[Around, ...]:
        printer = known.get(name)
        if printer is None or name in resolved or depth > DEPTH:
            return resolved.get(name, ())
        resolved[name] = ()  # a call back into itself adds nothing
        found = list(printer.around)
        for callee, passed in printer.forwards:
            for where, before, value, after, condition, test in around(callee, depth + 1):
                mapped = passed[value] if value < len(passed) else -1
                guard = (passed[condition] if condition < len(passed) else -1) if condition >= 0 else -1
                if mapped >= 0 and (condition < 0 or guard >= 0):  # else the caller's value is not known
                    found.append((where, before, mapped, after, guard, test))
        resolved[name] = tuple(dict.fromkeys(found))
        return resolved[name]

    return {name: around(name, 0) for name, printer in known.items() if printer.variadic}


def forwarders(root: Node) -> dict[str, Macro]:
    """The file's functions of fixed arguments that hand a ``char *`` parameter on to a call
    (``ngx_connection_error(c, err, text)``: ``ngx_log_error(level, c->log, err, text)``), by name, as a
    :class:`~errdex.harvest.languages.Macro` whose body is those calls: :mod:`c_macros` reads them as it reads
    a macro's, and the function is a sink when the parameter reaches a sink's format."""
    found: dict[str, Macro] = {}
    for definition in nodes(_LANGUAGE, root, ("function_definition",)):
        declarator = definition.child_by_field_name("declarator")
        while declarator is not None and declarator.type == "pointer_declarator":
            declarator = declarator.child_by_field_name("declarator")
        parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
        body = definition.child_by_field_name("body")
        if declarator is None or declarator.type != "function_declarator" or parameters is None or body is None:
            continue
        items = [c for c in parameters.named_children if c.type in ("parameter_declaration", "variadic_parameter")]
        if not items or items[-1].type == "variadic_parameter" or any("va_list" in _text(p) for p in items):
            continue  # a printer (printers)
        names = [parameter_name(p) for p in items]
        texts = {n for p, n in zip(items, names, strict=True)
                 if n and "*" in _text(p) and _CHARS.search(_text(p.child_by_field_name("type")))}
        if not texts:
            continue
        calls = []
        for call in nodes(_LANGUAGE, body, ("call_expression",)):
            args = call.child_by_field_name("arguments")
            if args is not None and any(_text(a) in texts for a in args.named_children):
                calls.append(" ".join(_text(call).split()))
        if calls:
            found[declared_name(declarator)] = Macro(tuple(names), False, ";\n".join(calls))
    return found
