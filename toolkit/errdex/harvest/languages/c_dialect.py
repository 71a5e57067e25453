"""A C tree's own printf dialect, learned from its formatter.

A project that formats by itself (nginx's ``ngx_vslprintf``) defines its conversions in a function of a file
that uses ``va_list``, walking the format with ``switch (*fmt)`` over character labels. A switch whose labels include
``.``, ``*``, a digit or a flag character reads flags and modifiers: its letters are *modifiers* (nginx: ``u m X
x``); any other such switch reads conversions: its letters are *conversions* (``V v s O T M z i d ...``). A
function is a formatter when one of its conversion switches takes both ``s`` and ``d`` (a builder that knows only
a few letters, such as redis's ``sdscatfmt``, is not the logger's dialect).

:func:`learned` gives the style (:func:`errdex.harvest.formats.project_printf`) a project sink's format is read
in; the first formatter of the tree (in path order) is the dialect.
"""

from __future__ import annotations

import tree_sitter_c
from tree_sitter import Language, Node

from errdex.harvest.formats import project_printf
from errdex.harvest.languages._shared import nodes

__all__ = ["learned"]

_LANGUAGE = Language(tree_sitter_c.language())
_MODIFIER_MARKS = frozenset(".*0123456789-+# '")


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _labels(switch: Node) -> set[str]:
    """The characters of a switch's own ``case 'c':`` labels (not those of a switch nested in it)."""
    found: set[str] = set()
    for case in nodes(_LANGUAGE, switch, ("case_statement",)):
        owner = case.parent
        while owner is not None and owner.type != "switch_statement":
            owner = owner.parent
        value = case.child_by_field_name("value")
        literal = _text(value)
        if owner == switch and value is not None and value.type == "char_literal" and len(literal) == 3:
            found.add(literal[1])
    return found


def _owner(switch: Node) -> Node:
    """The function holding a switch; where the parser lost the function (a macro it cannot read before the
    name, such as nginx's ``ngx_cdecl``), the top-level statement holding it."""
    node = switch
    while node.parent is not None and node.parent.type != "translation_unit":
        if node.type == "function_definition":
            return node
        node = node.parent
    return node


def _formatters(root: Node) -> list[tuple[str, str]]:
    """(modifiers, conversions) of each formatter of a file, in source order."""
    groups: dict[int, tuple[set[str], set[str]]] = {}
    for switch in nodes(_LANGUAGE, root, ("switch_statement",)):
        modifiers, conversions = groups.setdefault(_owner(switch).start_byte, (set(), set()))
        labels = _labels(switch)
        letters = {c for c in labels if c.isalpha()}
        if labels & _MODIFIER_MARKS:
            modifiers |= letters
        elif {"s", "d"} <= letters:
            conversions |= letters
    return [("".join(sorted(m)), "".join(sorted(c))) for m, c in groups.values() if c]


def learned(root: Node) -> dict[str, str]:
    """``{"printf": style}`` when the file defines a formatter (see the module docstring), else ``{}``."""
    if b"va_list" not in (root.text or b""):
        return {}
    found = _formatters(root)
    return {"printf": project_printf(*found[0])} if found else {}
