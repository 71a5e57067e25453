"""What a C printf call's arguments say about its holes, and holes nothing tells apart merged.

:func:`fill_arguments`: a hole fed ``__func__`` prints a function's name (a word); a ``%s`` fed a string
literal, a ternary of literals or a local variable only ever assigned literals prints those (Text or a
Choice). :func:`collapse`: a hole, optional parts and another hole are one hole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import tree_sitter_c
from tree_sitter import Language, Node

from errdex.harvest.languages import c_values
from errdex.harvest.languages._shared import nodes, unescape
from errdex.harvest.sites import Choice, Hole, Part, Template, Text

__all__ = ["I18N", "collapse", "fill_arguments", "i18n_text", "literal_choices", "string_body"]

_LANGUAGE = Language(tree_sitter_c.language())
_FUNC_NAMES = frozenset({"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"})


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def string_body(literal: str) -> str:
    """A C string literal's text (``L``/``u8`` prefix and quotes off, escapes read)."""
    return unescape(literal[literal.index('"') + 1:literal.rindex('"')]) if literal.count('"') >= 2 else ""


def _string_body(node: Node) -> str:
    return string_body(_text(node))


_STRING_CONVERSION = re.compile(r"%(?:\.([0-9]+))?s")


def fill_arguments(template: Template, args: Sequence[Node], function: str | None = None) -> Template:
    """Holes whose argument is known: ``__func__`` prints the calling function's name (``function``, else a
    word); a ``%s`` fed a string
    literal, a ternary of literals or a local variable only ever assigned literals prints those (Text or a
    Choice). Matched to the arguments only when there is one argument per hole (no ``*`` width, no Choice
    in the format)."""
    holes = [i for i, part in enumerate(template) if isinstance(part, Hole)]
    if any(isinstance(part, Choice) for part in template) or len(holes) != len(args):
        return template
    out: list[Part] = list(template)
    for index, arg in zip(holes, args, strict=True):
        part = out[index]
        if not isinstance(part, Hole):  # holes holds the indexes of Holes only
            continue
        conversion = _STRING_CONVERSION.fullmatch(part.source)
        if _text(arg) in _FUNC_NAMES:
            limit = int(conversion.group(1)) if conversion is not None and conversion.group(1) else None
            out[index] = Text(function[:limit]) if conversion is not None and function else Hole(part.source, "word")
            continue
        if conversion is None:
            continue
        options = _string_values(arg, 0)
        if options is None:
            continue
        limit = int(conversion.group(1)) if conversion.group(1) else None
        cut = [tuple(Text(p.text[:limit]) if isinstance(p, Text) and limit is not None else p for p in o)
               for o in options]
        unique = tuple(dict.fromkeys(() if o == (Text(""),) else o for o in cut))
        out[index] = Choice(unique) if len(unique) > 1 else (unique[0][0] if unique[0] else Text(""))
        if len(unique) == 1 and len(unique[0]) > 1:
            out[index] = Choice(unique)
    return tuple(part for part in out if part != Text(""))


def _optional(part: Part) -> bool:
    return isinstance(part, Choice) and () in part.options


def collapse(template: Template) -> Template:
    """A hole, then only optional parts (choices that may print nothing), then a hole or an optional part
    holding one, is one hole: nothing required tells them apart (``%s%s%s`` of ``method, submethod ? "/" :
    "", submethod ? submethod : ""``), and a pattern with two holes there backtracks."""
    out: list[Part] = []
    index = 0
    while index < len(template):
        part = template[index]
        end = index
        if isinstance(part, Hole):
            scan = index + 1
            while scan < len(template) and (_optional(template[scan]) or isinstance(template[scan], Hole)):
                scan += 1
            holding = [i for i in range(index + 1, scan) if _holds_hole(template[i])]
            end = holding[-1] if holding else index
        if end > index:
            out.append(Hole("".join(_source(p) for p in template[index:end + 1])))
            index = end + 1
            continue
        out.append(part)
        index += 1
    return tuple(out)


def _holds_hole(part: Part) -> bool:
    if isinstance(part, Choice):
        return any(_holds_hole(p) for option in part.options for p in option)
    return isinstance(part, Hole)


def _source(part: Part) -> str:
    if isinstance(part, Text):
        return part.text
    if isinstance(part, Hole):
        return part.source
    longest = max(part.options, key=lambda option: len("".join(_source(p) for p in option)))
    return "".join(_source(p) for p in longest)


#: C's gettext wrappers: ``_("text")`` is the text (translated at run time; the source's is what errdex reads).
I18N = frozenset({"_", "gettext", "N_", "dgettext", "ngettext"})


def i18n_text(node: Node) -> Node | None:
    """The message argument of an i18n wrapper call (``_("...")``, ``gettext("...")``; ``dgettext``'s
    second), or None for any other node."""
    if node.type != "call_expression":
        return None
    name = _text(node.child_by_field_name("function"))
    if name not in I18N:
        return None
    arguments = node.child_by_field_name("arguments")
    values = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
    position = 1 if name == "dgettext" else 0
    return values[position] if len(values) > position else None


def literal_choices(node: Node) -> list[str] | None:
    """The literals a local variable can hold, when it is assigned nothing else in its function (``msg =
    "Received SIGTERM ..."`` in each ``case``); None otherwise."""
    values = _assigned_values(node, 0) if node.type == "identifier" else None
    if not values or any(len(option) != 1 or not isinstance(option[0], Text) for option in values):
        return None
    texts = [option[0].text for option in values if isinstance(option[0], Text)]
    return list(dict.fromkeys(texts))


def _string_values(node: Node, depth: int) -> list[tuple[Part, ...]] | None:
    """What a string argument can print: each literal it can be, a Hole for a branch that is not one; None
    when nothing about it is literal."""
    if depth > 4:
        return None
    if (known := c_values.values(node)) is not None and (known or depth > 0):  # a table, a built message;
        return known  # NULL, assigned or a branch, prints no message
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _string_values(node.named_children[0], depth + 1)
    if (wrapped := i18n_text(node)) is not None:
        return _string_values(wrapped, depth + 1)
    if node.type == "string_literal":
        return [(Text(_string_body(node)),)]
    if node.type == "conditional_expression":
        options: list[tuple[Part, ...]] = []
        for field in ("consequence", "alternative"):
            branch = node.child_by_field_name(field)
            if branch is None:
                return None
            values = _string_values(branch, depth + 1)
            options.extend(values if values is not None else [(Hole(_text(branch)),)])
        return options if any(o and isinstance(o[0], Text) for o in options) else None
    if node.type == "identifier":
        return _assigned_values(node, depth)
    return None


def _assigned_values(node: Node, depth: int) -> list[tuple[Part, ...]] | None:
    """The literals a local variable is assigned in its function (every assignment must be one); None for a
    parameter, a variable assigned anything else, or one never assigned."""
    definition = node.parent
    while definition is not None and definition.type != "function_definition":
        definition = definition.parent
    if definition is None:
        return None
    name = _text(node)
    declarator = definition.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if parameters is not None and any(_text(i) == name for i in nodes(_LANGUAGE, parameters, ("identifier",))):
        return None
    options: list[tuple[Part, ...]] = []
    for value in _assignments(definition).get(name, ()):
        values = _string_values(value, depth + 1) if value is not None else None
        if values is None or any(not o or not isinstance(o[0], Text) for o in values):
            return None
        options.extend(values)
    return options or None


@lru_cache(maxsize=64)
def _assignments(definition: Node) -> dict[str, list[Node | None]]:
    """Each name a function assigns or initialises -> the values (None: declared without one counts not)."""
    found: dict[str, list[Node | None]] = {}
    body = definition.child_by_field_name("body")
    for assignment in nodes(_LANGUAGE, body, ("assignment_expression", "init_declarator")) if body else ():
        plain = assignment.type == "assignment_expression"
        target = assignment.child_by_field_name("left" if plain else "declarator")
        while target is not None and target.type == "pointer_declarator":
            target = target.child_by_field_name("declarator")
        if target is not None:
            found.setdefault(_text(target), []).append(assignment.child_by_field_name("right" if plain else "value"))
    return found
