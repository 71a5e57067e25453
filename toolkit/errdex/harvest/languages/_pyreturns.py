"""The messages Python functions return, by name: ``logger.info(self.describe())``, ``logger.debug(fmt(x))`` and
``msg = self._message(); logger.warning(msg)`` log what ``describe``, ``fmt`` or ``_message`` returns.

A function's template is what its ``return`` statements give (a literal, an f-string, ``%``, ``.format``, a
join), several as a choice; a return with no literal text of its own (``return ""``, ``return value``) is left
out. Two functions of one name that return different templates leave the name unknown (:func:`pick`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import tree_sitter

from errdex.harvest.languages._tree import text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sites import Choice, Template

__all__ = ["pick", "returned"]

Node = tree_sitter.Node
_SCOPES = ("function_definition", "class_definition", "lambda")
#: The most templates one function's returns may offer as a choice; more leave the function unknown.
MAX_RETURNED = 16


def _returns(function: Node) -> list[Node]:
    """The expressions the function's own ``return`` statements give (not those of functions inside it)."""
    found: list[Node] = []
    stack = [function.child_by_field_name("body")]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        if current.type == "return_statement":
            found.extend(c for c in current.named_children if c.type != "comment")
        elif current.type not in _SCOPES:
            stack.extend(current.children)
    return sorted(found, key=lambda n: n.start_byte)


def _functions(root: Node) -> list[Node]:
    """Every function and method of a file, nested ones too, in source order."""
    found: list[Node] = []
    stack = [root]
    while stack:
        current = stack.pop()
        if current.type == "function_definition":
            found.append(current)
        stack.extend(c for c in current.children if c.type in _BLOCKS or c.type in _SCOPES)
    return sorted(found, key=lambda n: n.start_byte)


#: Nodes a function definition may sit in.
_BLOCKS = frozenset({"module", "block", "decorated_definition", "if_statement", "else_clause", "elif_clause",
                     "try_statement", "except_clause", "finally_clause", "with_statement", "class_definition"})


def returned(root: Node, message: Callable[[Node], Template]) -> dict[str, list[Template]]:
    """Function name -> the distinct templates the file's functions of that name return (dunder names left
    out: Python calls them, the code does not name them)."""
    found: dict[str, list[Template]] = {}
    for function in _functions(root):
        name = text(function.child_by_field_name("name"))
        if not name or name.startswith("__"):
            continue
        options: list[Template] = []
        for value in _returns(function):
            template = message(value)
            if has_literal(template) and template not in options:
                options.append(template)
        if not options or len(options) > MAX_RETURNED:
            continue  # nothing known, or too many to be one message
        template = options[0] if len(options) == 1 else (Choice(tuple(options)),)
        kept = found.setdefault(name, [])
        if template not in kept:
            kept.append(template)
    return found


def pick(name: str, own: Mapping[str, Sequence[Template]], tree: Mapping[str, Sequence[Template]]
         ) -> Template | None:
    """The template a call of ``name`` returns: the file's own function of that name first, then the tree's;
    None when there is none or its candidates disagree."""
    for candidates in (own.get(name), tree.get(name)):
        if candidates:
            return candidates[0] if len(candidates) == 1 else None
    return None
