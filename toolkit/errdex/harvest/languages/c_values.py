"""What a C string expression can hold, beyond a literal: the values a message held in a variable takes.

A message is often chosen before it is written: ``err = "Bad directive"; goto loaderr; ... fprintf(stderr,
"%s\\n", err)``, or picked from a static table, ``ngx_log_error(..., ngx_http_client_errors[rc - BASE])``.
:func:`values` reads, for one expression:

- ``NULL`` (or ``0``): no message (a variable declared ``= NULL`` and assigned literals later holds only those);
- ``TABLE[i]`` of an array the file (or the function) initialises with string literals only: each of them;
- a call of a string builder (a name with ``printf``, ``fmt`` or ``format`` in it, such as redis's
  ``sdscatprintf(sdsempty(), "Can't open the log file: %s", ...)``) whose format is a literal: that format,
  read as printf;
- a local ``char buf[N]`` (an array is never assigned): what the builders that write it put in it
  (``snprintf(buf, sizeof(buf), "Error in user declaration '%s': %s", ...)``), each format read as printf.

A variable assigned only such values (and literals) is read by :mod:`.c_arguments` through this.
"""

from __future__ import annotations

import re
from functools import lru_cache

import tree_sitter_c
from tree_sitter import Language, Node

from errdex.harvest.formats import parts
from errdex.harvest.languages._shared import nodes, unescape
from errdex.harvest.sites import Part, Text

__all__ = ["values"]

_LANGUAGE = Language(tree_sitter_c.language())
_NOTHING = frozenset({"NULL", "nullptr", "0"})
_BUILDER = re.compile(r"printf|fmt|format", re.IGNORECASE)


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _body(node: Node) -> str:
    literal = _text(node)  # a string_literal node: a prefix, then its text between quotes
    return unescape(literal[literal.index('"') + 1:literal.rindex('"')])


def _literal(node: Node) -> str | None:
    if node.type == "string_literal":
        return _body(node)
    if node.type == "concatenated_string" and all(c.type == "string_literal" for c in node.named_children):
        return "".join(_body(c) for c in node.named_children)
    return None


@lru_cache(maxsize=64)
def _tables(scope: Node) -> dict[str, list[str]]:
    """Arrays initialised with string literals only (``NULL`` ends allowed), by name."""
    found: dict[str, list[str]] = {}
    for declarator in nodes(_LANGUAGE, scope, ("init_declarator",)):
        target, value = declarator.child_by_field_name("declarator"), declarator.child_by_field_name("value")
        while target is not None and target.type == "pointer_declarator":  # char *table[] = {...}
            target = target.child_by_field_name("declarator")
        if target is None or value is None or value.type != "initializer_list" or target.type != "array_declarator":
            continue
        name = target.child_by_field_name("declarator")
        while name is not None and name.type != "identifier":
            name = name.child_by_field_name("declarator")
        items = [item for item in value.named_children if item.type != "comment" and _text(item) not in _NOTHING]
        literals = [_literal(item) for item in items]
        if name is not None and literals and all(literal is not None for literal in literals):
            found[_text(name)] = [literal for literal in literals if literal is not None]
    return found


def _table(node: Node) -> list[str] | None:
    array = node.child_by_field_name("argument")
    if array is None or array.type != "identifier":
        return None
    scope: Node | None = node
    while scope is not None:  # the innermost function first, then the file
        if scope.type in ("function_definition", "translation_unit"):
            found = _tables(scope).get(_text(array))
            if found is not None:
                return found
        scope = scope.parent
    return None


def _built(node: Node) -> str | None:
    if not _BUILDER.search(_text(node.child_by_field_name("function"))):
        return None
    args = node.child_by_field_name("arguments")
    literals = [_literal(arg) for arg in args.named_children] if args is not None else []
    found = [literal for literal in literals if literal is not None]
    return found[0] if len(found) == 1 else None


def _function(node: Node) -> Node | None:
    scope = node.parent
    while scope is not None and scope.type != "function_definition":
        scope = scope.parent
    return scope


@lru_cache(maxsize=64)
def _buffers(function: Node) -> dict[str, list[str] | None]:
    """The function's local arrays declared without a value -> the formats of the builder calls writing
    them (their first argument); None for an array something else writes (``strcpy``, ``memcpy``)."""
    body = function.child_by_field_name("body")
    found: dict[str, list[str] | None] = {
        _text(d.child_by_field_name("declarator")): [] for d in nodes(_LANGUAGE, body, ("array_declarator",))
        if d.parent is not None and d.parent.type == "declaration"} if body is not None else {}
    for call in nodes(_LANGUAGE, body, ("call_expression",)) if body is not None else ():
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        name = _text(first)
        if first is None or first.type != "identifier" or name not in found or found[name] is None:
            continue
        built = _built(call)
        known = found[name]
        if built is None or known is None:
            found[name] = None
        else:
            known.append(built)
    return found


def values(node: Node) -> list[tuple[Part, ...]] | None:
    """What ``node`` can print, each option a template (see the module docstring); ``[]`` for nothing
    (``NULL``); None when this module does not know."""
    if _text(node) in _NOTHING:
        return []
    if node.type == "subscript_expression":
        table = _table(node)
        return [(Text(text),) for text in table] if table else None
    if node.type == "call_expression":
        built = _built(node)
        return [parts(built, "printf")] if built is not None else None
    function = _function(node) if node.type == "identifier" else None
    written = _buffers(function).get(_text(node)) if function is not None else None
    return [parts(built, "printf") for built in written] if written else None
