"""Python: ``raise X(message)`` and log calls through ``logging`` and the usual logger names.

Messages are read from string literals (implicit and ``+`` concatenation, f-strings: Python's own parser
reads a literal's value, so escapes, raw and f-strings mean what they mean to Python), ``%`` formatting,
``str.format``, i18n wrappers (``_()``, ``gettext()``...) and names: a module constant of the file
(``NAME = "..."``) or a local variable assigned a literal earlier in the same function. A log call with
arguments after the message is ``%``-formatted by ``logging``; one without prints its message as it is.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

import tree_sitter
import tree_sitter_python

from errdex.harvest.formats import formatted, join, str_format_field
from errdex.harvest.languages import FileSites, TreeFacts
from errdex.harvest.languages._pycontext import (
    assignments,
    class_constants,
    enclosing_function,
    guards,
    is_parameter,
    reaching,
)
from errdex.harvest.languages._pysinks import LOGGER_MAKERS, aliases, default_sinks, is_logger, wrappers
from errdex.harvest.languages._tree import compact, first_error, merged_sinks, query_strings, text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Choice, Hole, Part, Site, Skipped, Template, Text

__all__ = ["FINDER", "PythonFinder"]

Node = tree_sitter.Node

_I18N = frozenset({"_", "gettext", "ugettext", "gettext_lazy", "ugettext_lazy", "lazy_gettext", "t", "_t",
                   "_LI", "_LE", "_LW", "_LC", "N_", "pgettext"})
#: Keyword arguments that hold an exception's message when it is given no positional one.
_MAX_DEPTH = 8
_MESSAGE_KEYWORDS = frozenset({"message", "msg", "detail", "reason", "description", "text", "error"})
_LANGUAGE = tree_sitter.Language(tree_sitter_python.language())



class _File:
    """One file being read: its module constants and the sinks asked for."""

    def __init__(self, root: Node, path: str, sinks: Sequence[Sink], levels: frozenset[str],
                 constants: Mapping[str, str]) -> None:
        self.path, self.levels = path, levels
        self.sinks = list(sinks)
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
        source = root.text or b""
        made = tree_sitter.QueryCursor(_MADE_LOGGERS).matches(root) \
            if any(m.encode() in source for m in LOGGER_MAKERS) else []  # the query costs; most files make none
        self.loggers = frozenset(text(target) for target, maker in _pairs(made)
                                 if text(maker).rsplit(".", 1)[-1] in LOGGER_MAKERS)
        self.found = FileSites()
        #: ``meth = logger.debug`` (then ``meth("...", x)``): a name bound to a logger's method, and that method.
        self.aliases = aliases(source, self.loggers)

    # --- messages -------------------------------------------------------------------------------------

    def message(self, node: Node, depth: int = 0) -> tuple[Part, ...]:
        """The parts an expression writes; a Hole for what is not known."""
        kind = node.type
        if depth > _MAX_DEPTH:
            return _hole(node)
        if kind in ("string", "concatenated_string"):
            return self.literal(node)
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.message(node.named_children[0], depth + 1)
        if kind == "binary_operator":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            operator = node.child_by_field_name("operator")
            if left is not None and right is not None and operator is not None:
                if operator.type == "+":
                    return join((*self.message(left, depth + 1), *self.message(right, depth + 1)))
                if operator.type == "%":
                    return self.formatted(left, "python-percent", depth)
        if kind == "call":
            function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if function is not None and args is not None:
                if function.type == "attribute":
                    attr, obj = function.child_by_field_name("attribute"), function.child_by_field_name("object")
                    if attr is not None and obj is not None and text(attr) == "format":
                        return self.formatted(obj, "str-format", depth)
                    if attr is not None and obj is not None and text(attr) == "join" and args.named_children \
                            and obj.type == "string":
                        return self.joined(self.literal(obj), args.named_children[0], depth + 1)
                    if attr is not None and obj is not None and text(attr) in _TEXT_METHODS:
                        inner = self.message(obj, depth + 1)
                        return _applied(inner, _TEXT_METHODS[text(attr)]) or _hole(node)
                last = text(function).rsplit(".", 1)[-1]
                first = next((a for a in args.named_children if a.type != "keyword_argument"), None)
                if first is not None and (text(function) in _I18N or last in ("gettext", "_")):
                    return self.message(first, depth + 1)
                if first is not None and last == "dedent":
                    return _applied(self.message(first, depth + 1), textwrap.dedent) or _hole(node)
        if kind == "attribute" and text(node.child_by_field_name("attribute")) in self.attributes \
                and (node.child_by_field_name("object") or node).type == "identifier":
            return self.message(self.attributes[text(node.child_by_field_name("attribute"))], depth + 1)
        if kind == "identifier":
            value = self.resolve(node)
            if value is not None:
                return value if isinstance(value, tuple) else self.message(value, depth + 1)
        return _hole(node)

    def spliced(self, template: Template, arguments: Sequence[Node]) -> Template:
        """A ``%``-formatted template with each ``%s`` whose argument is a literal, or a name bound to one
        in its function, replaced by that text (``logger.info('%s: %r', debug_log, transport)`` after
        ``debug_log = f'execute program {program!r}'``). Left as it is unless its holes are plain positional
        conversions, one an argument."""
        holes = [p for p in template if isinstance(p, Hole)]
        if len(holes) != len(arguments) or any(not p.source.startswith("%") or "(" in p.source or "*" in p.source
                                               for p in holes) or any(isinstance(p, Choice) for p in template):
            return template
        values = iter(arguments)
        out: list[Part] = []
        for part in template:
            argument = next(values) if isinstance(part, Hole) else None
            known = self.message(argument, 1) if argument is not None and isinstance(part, Hole) \
                and part.source == "%s" \
                and argument.type in ("identifier", "string", "concatenated_string") else None
            out.extend(known if known is not None and has_literal(known) else (part,))
        return join(out)

    def joined(self, separator: tuple[Part, ...], items: Node, depth: int) -> tuple[Part, ...]:
        """``SEP.join(items)`` of a list literal, a list literal ``+`` more items, or a name bound to one: the
        elements with the separator between them, what follows the known ones a hole."""
        if items.type == "identifier":
            value = self.resolve(items)
            if isinstance(value, Node) and value.type in ("list", "binary_operator"):
                items = value
        rest: tuple[Part, ...] = ()
        if items.type == "binary_operator" and text(items.child_by_field_name("operator")) == "+":
            left, right = items.child_by_field_name("left"), items.child_by_field_name("right")
            if left is not None and right is not None and left.type == "list":
                items, rest = left, (Choice(((*separator, *_hole(right)), ())),)  # the list added may be empty
        if items.type != "list" or depth > _MAX_DEPTH:
            return _hole(items)
        out: list[Part] = []
        for number, element in enumerate(e for e in items.named_children if e.type != "comment"):
            out.extend((*(separator if number else ()), *self.message(element, depth + 1)))
        return join((*out, *rest))

    def formatted(self, node: Node, style: str, depth: int) -> tuple[Part, ...]:
        """A format string (a literal or a name bound to one) read in ``style`` (each option of a choice too)."""
        return _formatted(join(self.message(node, depth + 1)), style)

    def literal(self, node: Node) -> tuple[Part, ...]:
        """A string literal (implicitly concatenated, f-strings too) read by Python's own parser."""
        try:
            value = ast.parse("(" + text(node) + "\n)", mode="eval").body  # a literal may span lines
        except (SyntaxError, ValueError):
            return _hole(node)
        if isinstance(value, ast.Constant):
            return join([Text(value.value)]) if isinstance(value.value, str) else _hole(node)
        if not isinstance(value, ast.JoinedStr):
            return _hole(node)
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
        or a module constant."""
        wanted = text(name)
        scope = name.parent
        while scope is not None and scope.type not in ("function_definition", "module"):
            scope = scope.parent
        if scope is not None and scope.type == "function_definition":
            values = reaching(assignments(scope, wanted, name.start_byte), name)
            values = [v for v in values if v.type != "none"] or values  # ``x = None`` then ``if ...: x = "..."``
            if len(values) == 1:
                return values[0]
            if values:
                return (Choice(tuple(join(self.message(v, 1)) for v in values)),)
        if wanted in self.constants:
            return self.constants[wanted]
        if wanted in self.shared:
            return join([Text(self.shared[wanted])])
        return None

    # --- sites ----------------------------------------------------------------------------------------

    def add(self, node: Node, statement: Node, kind: str, message: Node | None, *, style: str | None,
            level: str | None, error_class: str, arguments: Sequence[Node] = ()) -> None:
        line = statement.start_point.row + 1
        if message is None:
            return
        if style is not None:
            template = self.formatted(message, style, 0)
            if style == "python-percent":
                template = self.spliced(template, arguments)
        else:
            template = join(self.message(message))
        template = _first_line(template)
        if not has_literal(template):
            lone_name = message.type == "identifier" and self.resolve(message) is None \
                and not is_parameter(message)
            self.found.skipped.append(Skipped(self.path, line, "unresolved-constant" if lone_name else "no-literal",
                                              text(message)[:200]))
            return
        self.found.sites.append(Site(
            path=self.path, language="python", kind="throw" if kind == "throw" else "log", line=line,
            end_line=statement.end_point.row + 1, template=template, level=level, error_class=error_class,
            function=enclosing_function(node), guards=guards(node)))

    def raise_site(self, node: Node) -> None:
        call = node.named_children[0] if node.named_children else None
        if call is None or call.type != "call":
            return
        function, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if function is None or args is None or args.type != "argument_list":
            return
        first = next((a for a in args.named_children if a.type not in ("keyword_argument", "comment")
                      and text(a) not in ("self", "cls")), None)  # ClosedPoolError(self, "Pool is closed.")
        if first is None:  # HTTPException(status_code=404, detail="...")
            first = next((a.child_by_field_name("value") for a in args.named_children if a.type == "keyword_argument"
                          and text(a.child_by_field_name("name")) in _MESSAGE_KEYWORDS), None)
        if first is None:
            return
        self.add(node, node, "throw", first, style=None, level=None, error_class=text(function))

    def call_site(self, node: Node) -> None:
        function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or args is None or args.type != "argument_list":
            return
        callee = text(function)
        callee = self.aliases.get(callee, callee)
        positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
        sink = self.sink_for(callee)
        if sink is None:
            return
        level = sink.level
        if sink.level_arg is not None:
            if sink.level_arg >= len(positional):
                return
            level = normal_level(text(positional[sink.level_arg]).rsplit(".", 1)[-1])
        if level is None or level not in self.levels or sink.format_arg >= len(positional):
            return
        style: str | None = sink.style
        if sink.style == "python-percent" and len(positional) <= sink.format_arg + 1:
            style = None  # logging formats with % only when it is given arguments
        statement = node.parent if node.parent is not None and node.parent.type == "expression_statement" else node
        named = sink.name.startswith("logger.") and sink.level_arg is None
        self.add(node, statement, "log", positional[sink.format_arg], style=style,
                 arguments=positional[sink.format_arg + 1:],
                 level=callee.rsplit(".", 1)[-1].lower() if named else level,
                 error_class=callee.rsplit(".", 1)[0] if "." in callee else callee)

    def sink_for(self, callee: str) -> Sink | None:
        receiver, _, method = callee.rpartition(".")
        for sink in self.sinks:
            if sink.name.startswith("logger."):
                if receiver and method == sink.name[len("logger."):] and is_logger(receiver, self.loggers):
                    return sink
            elif callee == sink.name or ("." not in sink.name and method == sink.name):
                return sink
        return None


_TEXT_METHODS: dict[str, Callable[[str], str]] = {"strip": str.strip, "rstrip": str.rstrip, "lstrip": str.lstrip}


def _first_line(template: Template) -> Template:
    """What a message writes up to its first line break: ``logging`` writes a message of several lines as
    that many lines, and a log is matched line by line, so the first line is the one to find. The template as
    it is when that first line has no literal text of its own (``"%s:\\n--hash=%s"``)."""
    for number, part in enumerate(template):
        if isinstance(part, Text) and "\n" in part.text.rstrip("\r\n"):
            head = (*template[:number], Text(part.text.split("\n", 1)[0]))
            return join(head) if has_literal(head) else template
    return template


def _formatted(template: Template, style: str) -> Template:
    """:func:`formatted`, and the texts of each choice's options read in ``style`` too."""
    return formatted(tuple(Choice(tuple(_formatted(o, style) for o in p.options)) if isinstance(p, Choice) else p
                           for p in template), style)






def _hole(node: Node) -> tuple[Part, ...]:
    """An expression whose text is not known, shown as an f-string writes it (``{name}``)."""
    return (Hole("{" + compact(node) + "}"),)


def _applied(parts: tuple[Part, ...], change: Callable[[str], str]) -> tuple[Part, ...] | None:
    """A text-only message changed by ``change`` (``"...".strip()``, ``dedent("...")``); None otherwise."""
    if not all(isinstance(p, Text) for p in parts):
        return None
    return join([Text(change("".join(p.text for p in parts if isinstance(p, Text))))])










class PythonFinder:
    """Finds raise and log sites in Python files."""

    name = "python"
    extensions: tuple[str, ...] = (".py",)
    default_sinks: tuple[Sink, ...] = default_sinks()

    def __init__(self) -> None:
        self._parser = tree_sitter.Parser(_LANGUAGE)

    #: What the first pass learns from its files: the module functions that forward their message to a logger.
    offers_constants = True
    #: A site is a call of a sink (or of an alias of one, whose assignment names it) or a raise (:func:`_query`).
    site_words: tuple[bytes, ...] = (b"raise",)

    def survey(self, source: bytes) -> TreeFacts:
        """The file's module-level wrappers of a logger (``def write_output(msg, *args): logger.info(msg,
        *args)``), as sinks by name: their callers in every file are log calls. Module constants resolve
        within their file."""
        return TreeFacts(sinks=wrappers(source))

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        tree = self._parser.parse(source)
        root = tree.root_node
        wanted = merged_sinks((*self.default_sinks, *facts.sinks.values()), sinks)
        file = _File(root, path, wanted, levels, facts.constants)
        if root.has_error:
            file.found.parse_error = first_error(root)
        names = frozenset(s.name.rsplit(".", 1)[-1] for s in wanted) | frozenset(file.aliases)
        captures = tree_sitter.QueryCursor(_query(names)).captures(root)
        for node in sorted(captures.get("raise", []) + captures.get("call", []), key=lambda n: n.start_byte):
            if node.type == "raise_statement":
                file.raise_site(node)
            else:
                file.call_site(node)
        file.found.sites.sort(key=lambda s: (s.line, s.end_line))
        return file.found


_MADE_LOGGERS = tree_sitter.Query(_LANGUAGE, f"""(assignment left: (_) @target right: (call function: [
  (identifier) @maker (attribute attribute: (identifier) @maker)]
  (#any-of? @maker {query_strings(LOGGER_MAKERS)})))""")


def _pairs(matches: list[tuple[int, dict[str, list[Node]]]]) -> list[tuple[Node, Node]]:
    return [(m["target"][0], m["maker"][0]) for _, m in matches if m.get("target") and m.get("maker")]


@lru_cache(maxsize=64)
def _query(names: frozenset[str]) -> tree_sitter.Query:
    """Raise statements, and calls of a function or method named like one of the sinks."""
    quoted = query_strings(names)
    return tree_sitter.Query(_LANGUAGE, f"""(raise_statement) @raise
(call function: (identifier) @name (#any-of? @name {quoted})) @call
(call function: (attribute attribute: (identifier) @name) (#any-of? @name {quoted})) @call""")



FINDER = PythonFinder()
