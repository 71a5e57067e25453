"""Where a JavaScript or TypeScript site is: its enclosing function, the conditions guarding it, what the
declared types and parameters of its functions say about the names a message uses, the values a name was
assigned before it, and what the file's functions return."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import tree_sitter

from errdex.harvest.languages._tree import text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sites import Choice, Shape, Template

__all__ = [
    "FUNCTIONS",
    "assigned_values",
    "conditional",
    "declared_shape",
    "enclosing_function",
    "function_name",
    "functions_in",
    "guards",
    "is_parameter",
    "returned",
    "returned_values",
]

Node = tree_sitter.Node

FUNCTIONS = ("function_declaration", "function_expression", "function", "arrow_function", "method_definition",
             "generator_function_declaration", "generator_function")


_TYPE_SHAPES: dict[str, Shape] = {"number": "float", "bigint": "int", "boolean": "word"}


def declared_shape(name: Node) -> Shape:
    """The shape a TypeScript parameter's declared type prints (``status: number``), else ``any``."""
    wanted = text(name)
    scope = name.parent
    while scope is not None:
        if scope.type in FUNCTIONS:
            parameters = scope.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                pattern = parameter.child_by_field_name("pattern")
                annotation = parameter.child_by_field_name("type")
                if pattern is not None and text(pattern) == wanted:
                    declared = text(annotation).lstrip(":").strip() if annotation is not None else ""
                    return _TYPE_SHAPES.get(declared, "any")
        scope = scope.parent
    return "any"


def function_name(function: Node) -> str | None:
    """The name a function is called by: its own (``function f``, a method), or the variable or property it
    is assigned to (``const f = () => ...``, ``{ f: function () {...} }``)."""
    name = function.child_by_field_name("name")
    parent = function.parent
    if name is None and parent is not None and parent.type in ("variable_declarator", "pair"):
        name = parent.child_by_field_name("name" if parent.type == "variable_declarator" else "key")
    return text(name) if name is not None and name.type in (
        "identifier", "property_identifier", "private_property_identifier") else None


def functions_in(root: Node) -> Iterator[Node]:
    """Every function node under ``root`` (nested ones too), in the order of a depth-first walk that visits a
    node's last child first."""
    stack = [root]
    while stack:
        current = stack.pop()
        stack.extend(current.children)
        if current.type in FUNCTIONS:
            yield current


def returned_values(root: Node) -> list[tuple[str, list[Node]]]:
    """Each named function of a file, in source order, with the expressions its own ``return`` statements
    give (an arrow function's expression body too); not those of the functions inside it."""
    found: list[tuple[str, list[Node]]] = []
    for current in functions_in(root):
        name = function_name(current)
        body = current.child_by_field_name("body")
        if name is None or body is None:
            continue
        if body.type != "statement_block":
            found.append((name, [body]))
            continue
        values: list[Node] = []
        inner = [body]
        while inner:
            node = inner.pop()
            if node.type == "return_statement":
                values.extend(c for c in node.named_children if c.type != "comment")
            elif node.type not in FUNCTIONS and node.type not in ("class_declaration", "class"):
                inner.extend(node.children)
        found.append((name, sorted(values, key=lambda n: n.start_byte)))
    return sorted(found, key=lambda item: item[1][0].start_byte if item[1] else 0)


def assigned_values(name: Node) -> list[Node]:
    """The values a name is assigned earlier in its function, in order (an assignment whose value reads
    the name itself, ``msg = `${msg} (dry-run)```, is before that name only)."""
    wanted = text(name)
    scope = name.parent
    while scope is not None and scope.type not in FUNCTIONS:
        scope = scope.parent
    found: list[Node] = []
    stack = [scope.child_by_field_name("body")] if scope is not None else []
    while stack:
        current = stack.pop()
        if current is None or current.start_byte >= name.start_byte:
            continue
        target = value = None
        if current.type == "variable_declarator":
            target, value = current.child_by_field_name("name"), current.child_by_field_name("value")
        elif current.type == "assignment_expression":
            target, value = current.child_by_field_name("left"), current.child_by_field_name("right")
        if target is not None and value is not None and text(target) == wanted \
                and not value.start_byte <= name.start_byte < value.end_byte:
            found.append(value)
        if current.type not in FUNCTIONS and current.type != "class_declaration":
            stack.extend(current.children)
    return sorted(found, key=lambda value: value.start_byte)


#: Where an assignment runs only sometimes.
_BRANCHES = frozenset({"if_statement", "else_clause", "switch_case", "ternary_expression", "for_statement",
                       "for_in_statement", "while_statement", "catch_clause"})


def conditional(value: Node, name: Node) -> bool:
    """Whether the assignment of ``value`` runs only on a branch that ``name`` is not in."""
    current = value.parent
    while current is not None and current.type not in FUNCTIONS:
        if current.type in _BRANCHES and not current.start_byte <= name.start_byte < current.end_byte:
            return True
        current = current.parent
    return False


#: What a ``return`` gives that may hold literal text.
_TEXTUAL = frozenset({"string", "template_string", "binary_expression", "ternary_expression",
                      "parenthesized_expression", "identifier"})


def returned(root: Node, message: Callable[[Node], Template]) -> dict[str, list[Template]]:
    """Function name -> the distinct templates the file's functions of that name return (a return with no
    literal text of its own left out; several returns of one function as a choice)."""
    found: dict[str, list[Template]] = {}
    for name, values in returned_values(root):
        options: list[Template] = []
        for value in values:
            if value.type not in _TEXTUAL:
                continue  # a call, a member, an object: no text of its own (and reading it costs)
            template = message(value)
            if has_literal(template) and template not in options:
                options.append(template)
        if options:
            template = options[0] if len(options) == 1 else (Choice(tuple(options)),)
            kept = found.setdefault(name, [])
            if template not in kept:
                kept.append(template)
    return found


def is_parameter(name: Node) -> bool:
    """Whether a name is a parameter of an enclosing function (a value, not a constant left unresolved)."""
    wanted, scope = text(name), name.parent
    while scope is not None:
        if scope.type in FUNCTIONS:
            parameters = scope.child_by_field_name("parameters") or scope.child_by_field_name("parameter")
            found = parameters is not None and any(
                text(p.child_by_field_name("pattern") or p.child_by_field_name("left") or p) == wanted
                for p in ([parameters] if parameters.type == "identifier" else parameters.named_children))
            if found:
                return True
        scope = scope.parent
    return False


def enclosing_function(node: Node) -> str | None:
    """The enclosing classes and named functions, outermost first (``Class.method``)."""
    names: list[str] = []
    current = node.parent
    while current is not None:
        name: Node | None = None
        if current.type in (*FUNCTIONS, "class_declaration", "class", "abstract_class_declaration"):
            name = current.child_by_field_name("name")
            if name is None and current.parent is not None and current.parent.type == "variable_declarator":
                name = current.parent.child_by_field_name("name")
            if name is None and current.parent is not None and current.parent.type == "pair":
                name = current.parent.child_by_field_name("key")
        if name is not None:
            names.append(text(name))
        current = current.parent
    return ".".join(reversed(names)) or None


def _condition(node: Node | None) -> str | None:
    if node is None:
        return None
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return text(node)


def guards(node: Node) -> tuple[str, ...]:
    """The conditions that must hold for ``node`` to run, innermost last, quoted from the code."""
    found: list[str] = []
    child, current = node, node.parent
    while current is not None and current.type not in FUNCTIONS:
        condition = _guard(current, child)
        if condition is not None:
            found.append(condition)
        child, current = current, current.parent
    return tuple(reversed(found))


def _guard(parent: Node, child: Node) -> str | None:
    """The condition under which ``parent`` runs its part ``child``: an if's or while's body, an else branch
    (``!(cond)``), the right side of ``&&``, a ternary's branch."""
    kind = parent.type
    test = parent.child_by_field_name("condition")
    inside = test is not None and test.start_byte == child.start_byte
    if kind in ("if_statement", "while_statement") and child.type != "else_clause" and not inside:
        return _condition(test)
    if kind == "else_clause" and parent.parent is not None and parent.parent.type == "if_statement":
        inner = _condition(parent.parent.child_by_field_name("condition"))
        return None if inner is None else f"!({inner})"
    if kind == "binary_expression" and text(parent.child_by_field_name("operator") or parent) == "&&":
        left = parent.child_by_field_name("left")
        return text(left) if left is not None and child.start_byte > left.start_byte else None
    if kind == "ternary_expression" and test is not None and not inside:
        alternative = parent.child_by_field_name("alternative")
        is_else = alternative is not None and child.start_byte == alternative.start_byte
        return f"!({_condition(test)})" if is_else else _condition(test)
    return None
