"""Where a Python site is: its enclosing function, the conditions guarding it, which names are parameters,
the assignments that may give a name its value there, and a file's class constants."""

from __future__ import annotations

import tree_sitter

from errdex.harvest.languages._tree import text

__all__ = ["Bodies", "arms_of_one_choice", "call_index", "class_constants",
           "enclosing_function", "guards", "is_parameter", "loop_values", "passed_literals", "reaching",
           "unconditional"]

Node = tree_sitter.Node
_STRINGS = ("string", "concatenated_string")


def class_constants(root: Node) -> dict[str, Node]:
    """``NAME = "..."`` in the body of a top-level class (named ``self.NAME``, ``cls.NAME``, ``Class.NAME``)."""
    found: dict[str, Node] = {}
    for statement in root.children:
        body = statement.child_by_field_name("body") if statement.type == "class_definition" else None
        for line in body.named_children if body is not None else ():
            if line.type != "expression_statement" or line.named_child_count != 1:
                continue
            assignment = line.named_children[0]
            left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
            if assignment.type == "assignment" and left is not None and left.type == "identifier" \
                    and right is not None and right.type in _STRINGS:
                found.setdefault(text(left), right)
    return found


class Bodies:
    """What a function's own body does to a name (its assignments, appends and ``+=``), each body walked once:
    a name's resolution asks again and again (once per use, and per value that reaches it), and a walk per
    question made a long function cost its length times its uses."""

    def __init__(self) -> None:
        self._walked: dict[int, dict[str, list[tuple[str, Node]]]] = {}

    def _own(self, scope: Node, wanted: str) -> list[tuple[str, Node]]:
        found = self._walked.get(scope.id)
        if found is None:
            found = self._walked[scope.id] = _walk(scope)
        return found.get(wanted, [])

    def assignments(self, scope: Node, wanted: str, before: int) -> list[Node]:
        """The assignments ``wanted = ...`` (or a walrus) of the function's own body before byte ``before``."""
        return [n for kind, n in self._own(scope, wanted) if kind == "=" and n.start_byte < before]

    def appended(self, scope: Node, wanted: str, before: int) -> list[Node]:
        """What the function's own body appends to the list ``wanted`` (``wanted.append(X)``) before ``before``."""
        return [n.child_by_field_name("arguments").named_children[0]  # type: ignore[union-attr]  # _walk checked
                for kind, n in self._own(scope, wanted) if kind == "append" and n.start_byte < before]

    def augmented(self, scope: Node, wanted: str, after: int, before: int) -> list[Node]:
        """The ``wanted += ...`` of the function's own body between bytes ``after`` and ``before``."""
        return [n for kind, n in self._own(scope, wanted) if kind == "+=" and after <= n.start_byte < before]


def _walk(scope: Node) -> dict[str, list[tuple[str, Node]]]:
    """A function's own body (not the functions, classes and lambdas inside it): by name, its assignments
    (``=``, a walrus), its ``+=`` and the arguments of its ``name.append(X)``, in source order."""
    found: dict[str, list[tuple[str, Node]]] = {}
    stack = [scope.child_by_field_name("body")]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        kind = current.type
        if kind in ("assignment", "named_expression"):
            left, right = _sides(current)
            if left is not None and right is not None:
                found.setdefault(text(left), []).append(("=", current))
        elif kind == "augmented_assignment" and text(current.child_by_field_name("operator")) == "+=":
            found.setdefault(text(current.child_by_field_name("left")), []).append(("+=", current))
        elif kind == "call":
            function, args = current.child_by_field_name("function"), current.child_by_field_name("arguments")
            if function is not None and args is not None and function.type == "attribute" \
                    and text(function).endswith(".append") and args.named_child_count == 1:
                found.setdefault(text(function)[:-len(".append")], []).append(("append", current))
        if kind not in ("function_definition", "class_definition", "lambda"):
            stack.extend(current.children)
    for items in found.values():
        items.sort(key=lambda item: item[1].start_byte)  # a call before its arguments, as each walk sorted
    return found


def _sides(assignment: Node) -> tuple[Node | None, Node | None]:
    """The name and the value of an assignment or of a walrus (``if summary := describe():``)."""
    if assignment.type == "named_expression":
        return assignment.child_by_field_name("name"), assignment.child_by_field_name("value")
    return assignment.child_by_field_name("left"), assignment.child_by_field_name("right")


def reaching(assignments: list[Node], use: Node) -> list[Node]:
    """The values that may reach ``use``: the last assignment, and the ones before it while the later ones
    sit in a branch the use is not inside (an ``if``/``else`` arm, a ``try`` clause)."""
    values: list[Node] = []
    for assignment in reversed(assignments):
        right = _sides(assignment)[1]
        if right is not None:
            values.append(right)
        block = assignment.parent
        while block is not None and block.type not in ("block", "module"):
            block = block.parent
        if block is None or block.parent is None or block.parent.type == "function_definition" \
                or (block.start_byte <= use.start_byte < block.end_byte):
            break  # always runs before the use: nothing earlier reaches it
    return list(reversed(values))


def is_parameter(name: Node) -> bool:
    """Whether a name is a parameter of its function (not a constant left unresolved, but a value)."""
    scope = name.parent
    while scope is not None and scope.type != "function_definition":
        scope = scope.parent
    parameters = scope.child_by_field_name("parameters") if scope is not None else None
    wanted = text(name)
    return parameters is not None and any(
        text(p) == wanted or text(p.child_by_field_name("name")) == wanted or
        (p.named_children and text(p.named_children[0]) == wanted) for p in parameters.named_children)


def enclosing_function(node: Node) -> str | None:
    """The enclosing classes and functions, outermost first (``Class.method``)."""
    names: list[str] = []
    current = node.parent
    while current is not None:
        if current.type in ("function_definition", "class_definition"):
            name = current.child_by_field_name("name")
            if name is not None:
                names.append(text(name))
        current = current.parent
    return ".".join(reversed(names)) or None


def guards(node: Node) -> tuple[str, ...]:
    """The conditions of the enclosing if/elif/else/while branches, innermost last, quoted."""
    guards: list[str] = []
    child, current = node, node.parent
    while current is not None and current.type not in ("function_definition", "class_definition"):
        if current.type in ("if_statement", "while_statement") and child.type == "block":
            condition = current.child_by_field_name("condition")
            if condition is not None:
                guards.append(text(condition))
        elif current.type in ("elif_clause", "else_clause") and current.parent is not None:
            own = current.child_by_field_name("condition")
            if own is not None and child.type == "block":
                guards.append(text(own))
            for earlier in _earlier_conditions(current.parent, current):
                guards.append(f"not ({earlier})")
        child, current = current, current.parent
    return tuple(reversed(guards))


def _earlier_conditions(statement: Node, branch: Node) -> list[str]:
    """The conditions of the if and elif branches before ``branch``, nearest first."""
    out: list[str] = []
    condition = statement.child_by_field_name("condition")
    if condition is not None:
        out.append(text(condition))
    for clause in statement.children:
        if clause.start_byte >= branch.start_byte:
            break
        if clause.type == "elif_clause":
            own = clause.child_by_field_name("condition")
            if own is not None:
                out.append(text(own))
    return list(reversed(out))


def loop_values(name: Node) -> list[Node] | None:
    """What a loop variable takes when its ``for`` runs over a literal tuple or list (paramiko's ``for prefix,
    value in (("kex algos", ...), ("server key", ...)):``): the element, or the element's item at the name's
    place in the target; None when the name is no such loop's variable."""
    wanted, current = text(name), name.parent
    while current is not None and current.type not in ("function_definition", "module"):
        body = current.child_by_field_name("body") if current.type == "for_statement" else None
        if body is not None and name.start_byte >= body.start_byte:
            left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
            place = _place(left, wanted) if left is not None else None
            if place is not None and right is not None and right.type in ("tuple", "list"):
                values = [_item(element, place) for element in right.named_children if element.type != "comment"]
                return [v for v in values if v is not None] if all(v is not None for v in values) else None
        current = current.parent
    return None


def _place(target: Node, wanted: str) -> int | None:
    """-1 when the loop target is the name itself, its index in a ``a, b`` target; None when it is not there."""
    if target.type == "identifier":
        return -1 if text(target) == wanted else None
    if target.type in ("pattern_list", "tuple_pattern", "list_pattern"):
        names = [child for child in target.named_children]
        for index, child in enumerate(names):
            if child.type == "identifier" and text(child) == wanted:
                return index
    return None


def _item(element: Node, place: int) -> Node | None:
    if place < 0:
        return element
    if element.type == "parenthesized_expression" and element.named_child_count == 1:
        element = element.named_children[0]
    items = [child for child in element.named_children if child.type != "comment"] \
        if element.type in ("tuple", "list") else []
    return items[place] if place < len(items) else None


def unconditional(statement: Node) -> bool:
    """Whether a statement sits in its function's own body, not in a branch, loop or ``try``."""
    block = statement.parent
    while block is not None and block.type != "block":
        block = block.parent
    return block is not None and block.parent is not None and block.parent.type == "function_definition"


def arms_of_one_choice(statements: list[Node]) -> bool:
    """Whether the statements are one in each arm of one ``if``/``else`` (so exactly one of them runs)."""
    arms = []
    for statement in statements:
        block = statement.parent
        while block is not None and block.type != "block":
            block = block.parent
        arms.append(block)
    owners = {(arm.parent.parent if arm is not None and arm.parent is not None
               and arm.parent.type in ("else_clause", "elif_clause") else arm.parent if arm is not None else None)
              for arm in arms}
    if len(owners) != 1 or len(set(map(id, arms))) != len(arms) or None in owners:
        return False
    owner = next(iter(owners))
    return owner is not None and owner.type == "if_statement" and len(arms) >= 2 \
        and any(c.type == "else_clause" for c in owner.children)


def call_index(root: Node) -> dict[str, list[Node]]:
    """Every call of a file, by the last name of what it calls (``self._log(...)``: ``_log``), in source order."""
    found: dict[str, list[Node]] = {}
    stack = [root]
    while stack:
        current = stack.pop()
        if current.type == "call":
            called, args = current.child_by_field_name("function"), current.child_by_field_name("arguments")
            if called is not None and args is not None:
                found.setdefault(text(called).rsplit(".", 1)[-1], []).append(current)
        stack.extend(current.children)
    for calls in found.values():
        calls.sort(key=lambda n: n.start_byte)
    return found


def passed_literals(root: Node, name: Node, calls: dict[str, list[Node]] | None = None) -> list[Node] | None:
    """What every call of a parameter's function in the file passes for it, a literal or a name (paramiko's
    ``self._log_agreement("HostKey", ...)`` for ``which``; asyncio's ``self._log_subprocess(debug_log, ...)``,
    read where the call is); None when there is no call or one passes something else. ``calls`` is the
    file's :func:`call_index` (made here when not given)."""
    function = name.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    parameters = function.child_by_field_name("parameters") if function is not None else None
    if function is None or parameters is None:
        return None
    names = [text(p) for p in parameters.named_children if p.type == "identifier"]
    if len(names) != parameters.named_child_count or text(name) not in names:
        return None  # defaults, *args, annotations: positions are not plain
    index = names.index(text(name)) - (1 if names and names[0] in ("self", "cls") else 0)
    found = []
    for call in (calls if calls is not None else call_index(root)).get(text(function.child_by_field_name("name")), []):
        args = call.child_by_field_name("arguments")
        given = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if index < 0 or index >= len(given) or given[index].type not in (*_STRINGS, "identifier"):
            return None
        found.append(given[index])
    return sorted(found, key=lambda n: n.start_byte) or None
