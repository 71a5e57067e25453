"""How a Python expression writes a message: literals (implicit and ``+`` concatenation, f-strings, read by
Python's own parser), ``%`` formatting, ``str.format``, joins, i18n wrappers, and the names a message is built
from: module and class constants, locals assigned earlier (in branches, grown by ``+=``), loop variables over
literals, the literals a function's callers pass for a parameter, and what a called function returns."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Mapping, Sequence

import tree_sitter

from errdex.harvest.formats import join, str_format_field
from errdex.harvest.languages._pycontext import (
    Bodies,
    arms_of_one_choice,
    call_index,
    class_constants,
    is_parameter,
    loop_values,
    passed_literals,
    reaching,
    unconditional,
)
from errdex.harvest.languages._pyreturns import pick, returned
from errdex.harvest.languages._pytext import TEXT_METHODS, applied, formatted_each, hole
from errdex.harvest.languages._tree import oversized, plus_operands, text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sites import Choice, Hole, Part, Template, Text

__all__ = ["MAX_CHOICES", "MAX_NESTING", "MAX_OPERATIONS", "Messages", "chosen"]

Node = tree_sitter.Node

_I18N = frozenset({"_", "gettext", "ugettext", "gettext_lazy", "ugettext_lazy", "lazy_gettext", "t", "_t",
                   "_LI", "_LE", "_LW", "_LC", "N_", "pgettext"})
_MAX_DEPTH = 8
#: How many reads of an expression may be under way at once (each a few Python frames: a name's value holds a
#: name whose value holds a name...): beyond it the expression is a hole, long before Python's recursion limit.
MAX_NESTING = 40
#: How many expressions one file's messages may read in all: beyond it every further one is a hole, so that no
#: file, however its names chain and branch, costs more than this.
MAX_OPERATIONS = 200_000
#: The most alternatives one choice may hold (the values that reach a name, what ``+=`` adds, what callers pass):
#: more make the part a hole.
MAX_CHOICES = 16
#: The holes :meth:`Messages.spliced` may fill: positional conversions (``%s``, ``%-5d``; ``{}``, ``{!r}``, ``{:>8}``).
_POSITIONAL = {"python-percent": re.compile(r"%[^(*]*"), "str-format": re.compile(r"\{(?:![rsa])?(?::[^{}]*)?\}")}


class Messages:
    """The messages of one file's expressions (:meth:`message`), with what the tree offers by name."""

    def __init__(self, root: Node, constants: Mapping[str, str],
                 returns: Mapping[str, Sequence[Template]] | None = None) -> None:
        self.root = root
        #: What the tree's functions return by name (:mod:`._pyreturns`); the file's own, read when first asked.
        self.tree_returns: Mapping[str, Sequence[Template]] = returns or {}
        self._own_returns: dict[str, list[Template]] | None = None
        self.constants: dict[str, Node] = {}
        self.shared = constants
        for statement in root.children:
            if statement.type == "expression_statement" and statement.named_child_count == 1:
                assignment = statement.named_children[0]
                left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
                if assignment.type == "assignment" and left is not None and right is not None \
                        and left.type == "identifier":
                    self.constants[text(left)] = right
        #: ``NAME = "..."`` in the body of a top-level class: ``self.NAME``, ``cls.NAME``, ``Class.NAME``.
        self.attributes = class_constants(root)
        self.bodies = Bodies()
        self._calls: dict[str, list[Node]] | None = None
        #: What :meth:`message` and :meth:`resolve` found, by node (and depth): a name used often, or a value
        #: that reaches many uses, is read once.
        self._messages: dict[tuple[int, int], tuple[Part, ...]] = {}
        self._resolved: dict[int, Node | Template | None] = {}
        self._resolving: set[int] = set()
        self._reading: set[int] = set()
        #: The expressions read so far (bounded by :data:`MAX_OPERATIONS`) and the reads under way.
        self.operations = 0
        self._nesting = 0

    def message(self, node: Node, depth: int = 0) -> tuple[Part, ...]:
        """The parts an expression writes; a Hole for what is not known (or too costly to know: past
        :data:`MAX_NESTING` reads under way, or :data:`MAX_OPERATIONS` in the file)."""
        key = (node.id, depth)
        known = self._messages.get(key)
        if known is not None:
            return known
        if depth > _MAX_DEPTH or self._nesting >= MAX_NESTING or self.operations >= MAX_OPERATIONS \
                or node.id in self._reading:  # an expression whose value holds itself
            return hole(node)
        self.operations += 1
        self._nesting += 1
        self._reading.add(node.id)
        try:
            found = self._messages[key] = self._message(node, depth)
        finally:
            self._nesting -= 1
            self._reading.discard(node.id)
        return found

    def _message(self, node: Node, depth: int) -> tuple[Part, ...]:
        kind = node.type
        if kind in ("string", "concatenated_string"):
            return self.literal(node)
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.message(node.named_children[0], depth + 1)
        if kind == "binary_operator":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            operator = node.child_by_field_name("operator")
            if left is not None and right is not None and operator is not None:
                operands = plus_operands(node, "binary_operator")
                if operands is not None:
                    return join(part for operand in operands for part in self.message(operand, depth + 1))
                if operator.type == "%":
                    return self.formatted(left, "python-percent", depth)
        if kind == "call":
            function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if function is not None and args is not None:
                if function.type == "attribute":
                    attr, obj = function.child_by_field_name("attribute"), function.child_by_field_name("object")
                    if attr is not None and obj is not None and text(attr) == "format":
                        return self.spliced(self.formatted(obj, "str-format", depth),
                                            [a for a in args.named_children if a.type != "comment"], "str-format")
                    if attr is not None and obj is not None and text(attr) == "join" and args.named_children \
                            and obj.type == "string":
                        return self.joined(self.literal(obj), args.named_children[0], depth + 1)
                    if attr is not None and obj is not None and text(attr) in TEXT_METHODS:
                        inner = self.message(obj, depth + 1)
                        return applied(inner, TEXT_METHODS[text(attr)]) or hole(node)
                last = text(function).rsplit(".", 1)[-1]
                first = next((a for a in args.named_children if a.type != "keyword_argument"), None)
                if first is not None and (text(function) in _I18N or last in ("gettext", "_")):
                    return self.message(first, depth + 1)
                if first is not None and last == "dedent":
                    return applied(self.message(first, depth + 1), textwrap.dedent) or hole(node)
                if function.type in ("identifier", "attribute"):
                    template = pick(last, self.own_returns(), self.tree_returns)
                    if template is not None:
                        return template
        if kind == "attribute" and text(node.child_by_field_name("attribute")) in self.attributes \
                and (node.child_by_field_name("object") or node).type == "identifier":
            return self.message(self.attributes[text(node.child_by_field_name("attribute"))], depth + 1)
        if kind == "attribute" and text(node.child_by_field_name("object")) in ("self", "cls"):
            # ``self._undefined_message``: a property of the class, whose returns build the message
            template = pick(text(node.child_by_field_name("attribute")), self.own_returns(), self.tree_returns)
            if template is not None:
                return template
            constructed = self.constructed(node, depth)
            if constructed is not None:
                return constructed
        if kind == "identifier":
            value = self.resolve(node)
            if value is not None:
                return value if isinstance(value, tuple) else self.message(value, depth + 1)
            passed = passed_literals(self.root, node, self.calls()) if is_parameter(node) else None
            if passed is not None and len(passed) > MAX_CHOICES:
                return hole(node)
            options = tuple(dict.fromkeys(join(self.message(p, depth + 1)) for p in passed or ()))
            if options and all(has_literal(o) for o in options):  # ``_log_agreement("HostKey", ...)`` and others
                return chosen(options, node)
        return hole(node)

    def calls(self) -> dict[str, list[Node]]:
        """The file's calls by the name called (:func:`call_index`), made when first asked."""
        if self._calls is None:
            self._calls = call_index(self.root)
        return self._calls

    def own_returns(self) -> Mapping[str, Sequence[Template]]:
        """What this file's functions return, by name (empty while it is being read: no recursion)."""
        if self._own_returns is None:
            self._own_returns = {}
            self._own_returns = returned(self.root, lambda value: () if oversized(value)
                                        else join(self.message(value, 1)))
        return self._own_returns

    def spliced(self, template: Template, arguments: Sequence[Node], style: str = "python-percent") -> Template:
        """A ``%``-formatted (or ``str.format``-ted) template with each ``%s`` (``{}``) whose argument is a
        literal, or a name bound to one in its function (a loop's variable over literals too), replaced by
        that text (``logger.info('%s: %r', debug_log, transport)`` after ``debug_log = f'execute program
        {program!r}'``; ``"{}: {}".format(prefix, value)``). Left as it is unless its holes are plain
        positional conversions, one an argument."""
        holes = [p for p in template if isinstance(p, Hole)]
        plain = "%s" if style == "python-percent" else "{}"
        if len(holes) != len(arguments) or any(not _POSITIONAL[style].fullmatch(p.source) for p in holes) \
                or any(isinstance(p, Choice) for p in template):
            return template
        values = iter(arguments)
        out: list[Part] = []
        for part in template:
            argument = next(values) if isinstance(part, Hole) else None
            known = self.message(argument, 1) if argument is not None and isinstance(part, Hole) \
                and part.source == plain \
                and argument.type in ("identifier", "string", "concatenated_string") else None
            out.extend(known if known is not None and has_literal(known) else (part,))
        return join(out)

    def joined(self, separator: tuple[Part, ...], items: Node, depth: int) -> tuple[Part, ...]:
        """``SEP.join(items)`` of a list literal, a list literal ``+`` more items, or a name bound to one: the
        elements with the separator between them, what follows the known ones a hole."""
        if items.type == "identifier":
            value = self.resolve(items)
            if isinstance(value, tuple):  # ``parts = ["a"]`` or ``parts = ["b"]`` in branches, then appends
                listed = self.reaching_lists(items)
                if listed:
                    first = chosen(tuple(dict.fromkeys(self.joined(separator, v, depth + 1) for v in listed)), items)
                    more = self.grown_after(items, separator)
                    return join((*first, *more))
            if isinstance(value, Node) and value.type == "list" and not value.named_children:
                grown = self.grown(items, separator, depth)  # ``lines = []``, ``lines.append(...)``, join
                if grown is not None:
                    return grown
            rest: tuple[Part, ...] = ()
            if isinstance(value, Node) and value.type == "list":
                scope = items.parent
                while scope is not None and scope.type != "function_definition":
                    scope = scope.parent
                # ``[msg]``, then appends
                if scope is not None and self.bodies.appended(scope, text(items), items.start_byte):
                    rest = (Choice(((*separator, Hole("{" + text(items) + "}")), ())),)
            if isinstance(value, Node) and value.type in ("list", "binary_operator"):
                return join((*self.joined(separator, value, depth + 1), *rest))
        rest = ()
        if items.type == "binary_operator" and text(items.child_by_field_name("operator")) == "+":
            left, right = items.child_by_field_name("left"), items.child_by_field_name("right")
            if left is not None and right is not None and left.type == "list":
                items, rest = left, (Choice(((*separator, *hole(right)), ())),)  # the list added may be empty
        if items.type != "list" or depth > _MAX_DEPTH:
            return hole(items)
        out: list[Part] = []
        for number, element in enumerate(e for e in items.named_children if e.type != "comment"):
            out.extend((*(separator if number else ()), *self.message(element, depth + 1)))
        return join((*out, *rest))

    def constructed(self, node: Node, depth: int) -> Template | None:
        """``self.message`` where the class's ``__init__`` stored a parameter (``self.message = message``): one
        of the literals the file's constructions of the class pass for it (jinja2's ``Failure("Missing end of
        comment tag")``, raised later by the object); None when there is none or one passes something else."""
        wanted = text(node.child_by_field_name("attribute"))
        owner = node.parent
        while owner is not None and owner.type != "class_definition":
            owner = owner.parent
        body = owner.child_by_field_name("body") if owner is not None else None
        init = next((m for m in (body.named_children if body is not None else ()) if m.type == "function_definition"
                     and text(m.child_by_field_name("name")) == "__init__"), None)
        if owner is None or init is None:
            return None
        parameters = init.child_by_field_name("parameters")
        names = [text(p.child_by_field_name("name") if p.child_by_field_name("name") is not None
                      else (p.named_children[0] if p.named_children else p))
                 for p in (parameters.named_children if parameters is not None else ())]
        stored = [value for assignment in self.bodies.assignments(init, f"self.{wanted}", init.end_byte)
                  if (value := assignment.child_by_field_name("right")) is not None and value.type == "identifier"]
        if len(stored) != 1 or text(stored[0]) not in names[1:]:
            return None
        position = names.index(text(stored[0])) - 1
        passed: list[Node] = []
        for call in self.calls().get(text(owner.child_by_field_name("name")), []):
            args = call.child_by_field_name("arguments")
            given = [a for a in (args.named_children if args is not None else ()) if a.type != "comment"]
            if position >= len(given) or given[position].type not in ("string", "concatenated_string"):
                return None
            passed.append(given[position])
        if not passed or len(passed) > MAX_CHOICES:
            return None
        return chosen(tuple(dict.fromkeys(join(self.message(p, depth + 1)) for p in passed)), node)

    def reaching_lists(self, name: Node) -> list[Node]:
        """The list literals that may reach ``name`` in its function, when every value that reaches it is one."""
        scope = name.parent
        while scope is not None and scope.type != "function_definition":
            scope = scope.parent
        if scope is None:
            return []
        values = reaching(self.bodies.assignments(scope, text(name), name.start_byte), name)
        return values if 1 < len(values) <= MAX_CHOICES and all(v.type == "list" for v in values) else []

    def grown_after(self, items: Node, separator: tuple[Part, ...]) -> Template:
        """What the ``items.append(...)`` of its function add to a join of it: the separator and more, or none."""
        scope = items.parent
        while scope is not None and scope.type != "function_definition":
            scope = scope.parent
        if scope is None or not self.bodies.appended(scope, text(items), items.start_byte):
            return ()
        return (Choice(((*separator, Hole("{" + text(items) + "}")), ())),)

    def grown(self, items: Node, separator: tuple[Part, ...], depth: int) -> tuple[Part, ...] | None:
        """``SEP.join(lines)`` of a list its function grows with ``lines.append(...)``: any element first
        (the one a log's first line shows), then maybe more; None when nothing is appended before the join."""
        scope = items.parent
        while scope is not None and scope.type != "function_definition":
            scope = scope.parent
        elements = self.bodies.appended(scope, text(items), items.start_byte) if scope is not None else []
        if len(elements) > MAX_CHOICES:
            return hole(items)
        templates = [join(self.message(e, depth + 1)) for e in elements]
        if not templates or not all(has_literal(t) for t in templates):
            return None
        first = chosen(tuple(dict.fromkeys(templates)), items)
        return join((*first, Choice(((*separator, Hole("{" + text(items) + "}")), ()))))

    def formatted(self, node: Node, style: str, depth: int) -> tuple[Part, ...]:
        """A format string (a literal or a name bound to one) read in ``style`` (each option of a choice too)."""
        return formatted_each(join(self.message(node, depth + 1)), style)

    def literal(self, node: Node) -> tuple[Part, ...]:
        """A string literal (implicitly concatenated, f-strings too) read by Python's own parser; a hole when
        it is too large to read (:func:`oversized`: a constant of 64,000 holes), for Python's parser takes
        time that grows faster than the number of holes."""
        if oversized(node) is not None:
            return hole(node)
        try:
            value = ast.parse("(" + text(node) + "\n)", mode="eval").body  # a literal may span lines
        except (SyntaxError, ValueError):
            return hole(node)
        if isinstance(value, ast.Constant):
            return join([Text(value.value)]) if isinstance(value.value, str) else hole(node)
        if not isinstance(value, ast.JoinedStr):
            return hole(node)
        fields = [c for s in ([node] if node.type == "string" else node.named_children)
                  for c in s.named_children if c.type == "interpolation"]
        out: list[Part] = []
        for item in value.values:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                out.append(Text(item.value))
            elif isinstance(item, ast.FormattedValue):
                source = text(fields.pop(0)) if fields else "{" + ast.unparse(item.value) + "}"
                conversion = chr(item.conversion) if item.conversion > 0 else None
                spec = None
                if isinstance(item.format_spec, ast.JoinedStr):
                    spec = "".join(str(v.value) if isinstance(v, ast.Constant) else "{}"
                                   for v in item.format_spec.values)
                out.append(str_format_field(source, conversion, spec))
        return join(out)

    def resolve(self, name: Node) -> Node | Template | None:
        """What a name holds: what it is assigned earlier in its function (one of several values when the
        last assignment is in a branch: ``if ...: message = "Processing %s" else: message = "Collecting %s"``),
        or a module constant. Read once per name (a name met again while it is being read is unknown)."""
        if name.id in self._resolved:
            return self._resolved[name.id]
        if name.id in self._resolving:
            return None
        self._resolving.add(name.id)
        try:
            found = self._resolved[name.id] = self._resolve(name)
        finally:
            self._resolving.discard(name.id)
        return found

    def _resolve(self, name: Node) -> Node | Template | None:
        wanted = text(name)
        scope = name.parent
        while scope is not None and scope.type not in ("function_definition", "module"):
            scope = scope.parent
        if scope is not None and scope.type == "function_definition":
            found = self.bodies.assignments(scope, wanted, name.start_byte)
            value = self.assigned(reaching(found, name), name)
            grown = self.bodies.augmented(scope, wanted, found[-1].end_byte, name.start_byte) if found else []
            if value is not None:
                return join((*(value if isinstance(value, tuple) else self.message(value, 1)), *self.added(grown))) \
                    if grown else value
        if wanted in self.constants:
            return self.constants[wanted]
        if wanted in self.shared:
            return join([Text(self.shared[wanted])])
        return None

    def assigned(self, values: list[Node], name: Node) -> Node | Template | None:
        """What the assignments that reach a name give it (:meth:`resolve`), or the literals of its loop."""
        values = [v for v in values if v.type != "none"] or values  # ``x = None`` then ``if ...: x = "..."``
        if len(values) == 1:
            return values[0]
        if len(values) > MAX_CHOICES:
            return hole(name)
        if values:
            return (Choice(tuple(join(self.message(v, 1)) for v in values)),)
        looped = loop_values(name)  # ``for prefix, value in (("kex algos", ...), ...)``
        if looped and len(looped) > MAX_CHOICES:
            return hole(name)
        if looped:
            return chosen(tuple(dict.fromkeys(join(self.message(v, 1)) for v in looped)), name)
        return None

    def added(self, grown: list[Node]) -> Template:
        """What ``msg += ...`` statements add after its assignment: each in turn when none is in a branch, one
        of them when they are the arms of one ``if``/``else``, else any one of them or none."""
        if len(grown) > MAX_CHOICES:
            return hole(grown[0])
        parts = [join(self.message(g.child_by_field_name("right") or g, 1)) for g in grown]
        if all(unconditional(g) for g in grown):
            return join([part for template in parts for part in template])
        options = tuple(dict.fromkeys(parts))
        return (Choice(options if arms_of_one_choice(grown) else (*options, ())),)


def chosen(options: tuple[Template, ...], node: Node) -> Template:
    """One template, or a choice of several; a hole for ``node`` past :data:`MAX_CHOICES`."""
    if len(options) > MAX_CHOICES:
        return hole(node)
    return options[0] if len(options) == 1 else (Choice(options),)
