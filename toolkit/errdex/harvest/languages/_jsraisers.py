"""JavaScript and TypeScript functions that throw for their callers, as :mod:`._pyraisers` finds for Python.

- A raiser: a function or method whose body throws an error built from one of its parameters as the message
  (``fail(message) { throw new SyntaxError(message) }``): its callers' calls (``this.fail("Unexpected
  token")``) are throw sites at the caller's line, of the class it builds.
- A maker: a function that returns such an error (``error(message) { return new ParseError(message, this.pos)
  }``): ``throw this.error("...")`` throws a ``ParseError``.
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter

from errdex.harvest.languages import Raiser
from errdex.harvest.languages._jscontext import FUNCTIONS, functions_in
from errdex.harvest.languages._shared import own_nodes
from errdex.harvest.languages._tree import text

__all__ = ["forwards", "raisers"]

Node = tree_sitter.Node


def _name(function: Node) -> str:
    name = function.child_by_field_name("name")
    if name is None and function.parent is not None and function.parent.type == "variable_declarator":
        name = function.parent.child_by_field_name("name")
    if name is None and function.parent is not None and function.parent.type == "pair":
        name = function.parent.child_by_field_name("key")
    return text(name)


def _parameters(function: Node) -> list[str]:
    parameters = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    if parameters is None:
        return []
    items = [parameters] if parameters.type == "identifier" else parameters.named_children
    names = []
    for item in items:  # ``msg``, ``msg: string``, ``msg = "x"``; a pattern or rest ends the plain ones
        inner = item.child_by_field_name("pattern") or item.child_by_field_name("left") or item
        if inner.type != "identifier":
            break
        names.append(text(inner))
    return names


def _own(function: Node, kinds: tuple[str, ...]) -> Iterator[Node]:
    return own_nodes(function, kinds, (*FUNCTIONS, "class_declaration", "class"))


def raisers(root: Node) -> dict[str, Raiser]:
    """The file's raisers and makers by function name (the first of a name)."""
    found: dict[str, Raiser] = {}
    for current in functions_in(root):
        name, parameters = _name(current), _parameters(current)
        if not name or not parameters:
            continue
        for statement in _own(current, ("throw_statement", "return_statement")):
            built = statement.named_children[0] if statement.named_children else None
            if built is None or built.type != "new_expression":
                continue
            callee, args = built.child_by_field_name("constructor"), built.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if callee is None or first is None or first.type != "identifier" or text(first) not in parameters:
                continue
            found.setdefault(name, Raiser(position=parameters.index(text(first)), parameter=text(first),
                                          error_class=text(callee),
                                          returns=statement.type == "return_statement"))
            break
    return found


def forwards(node: Node, message: Node, found: dict[str, Raiser]) -> bool:
    """Whether ``message`` is the parameter that makes the function around ``node`` a raiser: its callers are
    the sites, not this statement."""
    function = node.parent
    while function is not None and function.type not in FUNCTIONS:
        function = function.parent
    if function is None or message.type != "identifier":
        return False
    raiser = found.get(_name(function))
    return raiser is not None and not raiser.returns and raiser.parameter == text(message)
