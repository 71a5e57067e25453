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
from errdex.harvest.languages._tree import compact, first_error, merged_sinks, query_strings, text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Hole, Part, Site, Skipped, Template, Text

__all__ = ["FINDER", "PythonFinder"]

Node = tree_sitter.Node

_LOG_METHODS = ("critical", "fatal", "error", "exception", "warning", "warn", "notice", "info", "verbose",
                "debug", "trace")
_LOGGER_NAMES = frozenset({"logging", "logger", "log", "logger_", "_log", "_logger", "LOG", "LOGGER", "log_"})
_I18N = frozenset({"_", "gettext", "ugettext", "gettext_lazy", "ugettext_lazy", "lazy_gettext", "t", "_t",
                   "_LI", "_LE", "_LW", "_LC", "N_", "pgettext"})
#: Calls whose result is a logger: a name bound to one is a logger too.
_LOGGER_MAKERS = ("getLogger", "get_logger", "getChild", "LoggerAdapter", "get_task_logger", "bind")
_MAX_DEPTH = 8
#: Keyword arguments that hold an exception's message when it is given no positional one.
_MESSAGE_KEYWORDS = frozenset({"message", "msg", "detail", "reason", "description", "text", "error"})
_LANGUAGE = tree_sitter.Language(tree_sitter_python.language())



def _is_logger(receiver: str, made: frozenset[str] = frozenset()) -> bool:
    """``logger``, ``self.logger``, ``LOG``, ``self._audit_log``, ``logging``: a logger by its name; or a name
    the file binds to a logger (``audit = logging.getLogger("audit")``, in ``made``); or
    ``logging.getLogger(...)`` itself."""
    last = receiver.rsplit(".", 1)[-1]
    return last in _LOGGER_NAMES or last.lower().endswith(("logger", "_log")) or receiver in made \
        or any(maker + "(" in receiver for maker in _LOGGER_MAKERS)


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
        source = root.text or b""
        made = tree_sitter.QueryCursor(_MADE_LOGGERS).matches(root) \
            if any(m.encode() in source for m in _LOGGER_MAKERS) else []  # the query costs; most files make none
        self.loggers = frozenset(text(target) for target, maker in _pairs(made)
                                 if text(maker).rsplit(".", 1)[-1] in _LOGGER_MAKERS)
        self.found = FileSites()

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
                    if attr is not None and obj is not None and text(attr) in _TEXT_METHODS:
                        inner = self.message(obj, depth + 1)
                        return _applied(inner, _TEXT_METHODS[text(attr)]) or _hole(node)
                last = text(function).rsplit(".", 1)[-1]
                first = next((a for a in args.named_children if a.type != "keyword_argument"), None)
                if first is not None and (text(function) in _I18N or last in ("gettext", "_")):
                    return self.message(first, depth + 1)
                if first is not None and last == "dedent":
                    return _applied(self.message(first, depth + 1), textwrap.dedent) or _hole(node)
        if kind == "identifier":
            value = self.resolve(node)
            if value is not None:
                return value if isinstance(value, tuple) else self.message(value, depth + 1)
        return _hole(node)

    def formatted(self, node: Node, style: str, depth: int) -> tuple[Part, ...]:
        """A format string (a literal or a name bound to one) read in ``style``."""
        return formatted(join(self.message(node, depth + 1)), style)

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
        """What a name holds: a literal assigned to it earlier in its function, or a module constant."""
        wanted = text(name)
        scope = name.parent
        while scope is not None and scope.type not in ("function_definition", "module"):
            scope = scope.parent
        if scope is not None and scope.type == "function_definition":
            found: Node | None = None
            stack = [scope.child_by_field_name("body")]
            while stack:
                current = stack.pop()
                if current is None or current.start_byte >= name.start_byte:
                    continue
                if current.type == "assignment":
                    left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
                    if left is not None and right is not None and text(left) == wanted \
                            and (found is None or current.start_byte > found.start_byte):
                        found = right
                if current.type not in ("function_definition", "class_definition", "lambda"):
                    stack.extend(current.children)
            if found is not None:
                return found
        if wanted in self.constants:
            return self.constants[wanted]
        if wanted in self.shared:
            return join([Text(self.shared[wanted])])
        return None

    # --- sites ----------------------------------------------------------------------------------------

    def add(self, node: Node, statement: Node, kind: str, message: Node | None, *, style: str | None,
            level: str | None, error_class: str) -> None:
        line = statement.start_point.row + 1
        if message is None:
            return
        if style is not None:
            template = self.formatted(message, style, 0)
        else:
            template = join(self.message(message))
        if not has_literal(template):
            lone_name = message.type == "identifier" and self.resolve(message) is None \
                and not _is_parameter(message)
            self.found.skipped.append(Skipped(self.path, line, "unresolved-constant" if lone_name else "no-literal",
                                              text(message)[:200]))
            return
        self.found.sites.append(Site(
            path=self.path, language="python", kind="throw" if kind == "throw" else "log", line=line,
            end_line=statement.end_point.row + 1, template=template, level=level, error_class=error_class,
            function=_function(node), guards=_guards(node)))

    def raise_site(self, node: Node) -> None:
        call = node.named_children[0] if node.named_children else None
        if call is None or call.type != "call":
            return
        function, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if function is None or args is None or args.type != "argument_list":
            return
        first = next((a for a in args.named_children if a.type not in ("keyword_argument", "comment")), None)
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
                 level=callee.rsplit(".", 1)[-1].lower() if named else level,
                 error_class=callee.rsplit(".", 1)[0] if "." in callee else callee)

    def sink_for(self, callee: str) -> Sink | None:
        receiver, _, method = callee.rpartition(".")
        for sink in self.sinks:
            if sink.name.startswith("logger."):
                if receiver and method == sink.name[len("logger."):] and _is_logger(receiver, self.loggers):
                    return sink
            elif callee == sink.name or ("." not in sink.name and method == sink.name):
                return sink
        return None


_TEXT_METHODS: dict[str, Callable[[str], str]] = {"strip": str.strip, "rstrip": str.rstrip, "lstrip": str.lstrip}


def _hole(node: Node) -> tuple[Part, ...]:
    """An expression whose text is not known, shown as an f-string writes it (``{name}``)."""
    return (Hole("{" + compact(node) + "}"),)


def _applied(parts: tuple[Part, ...], change: Callable[[str], str]) -> tuple[Part, ...] | None:
    """A text-only message changed by ``change`` (``"...".strip()``, ``dedent("...")``); None otherwise."""
    if not all(isinstance(p, Text) for p in parts):
        return None
    return join([Text(change("".join(p.text for p in parts if isinstance(p, Text))))])


def _is_parameter(name: Node) -> bool:
    """Whether a name is a parameter of its function (not a constant left unresolved, but a value)."""
    scope = name.parent
    while scope is not None and scope.type != "function_definition":
        scope = scope.parent
    parameters = scope.child_by_field_name("parameters") if scope is not None else None
    wanted = text(name)
    return parameters is not None and any(
        text(p) == wanted or text(p.child_by_field_name("name")) == wanted or
        (p.named_children and text(p.named_children[0]) == wanted) for p in parameters.named_children)


def _function(node: Node) -> str | None:
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


def _guards(node: Node) -> tuple[str, ...]:
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


def _default_sinks() -> tuple[Sink, ...]:
    sinks = [Sink(f"logger.{m}", level=normal_level(m), style="python-percent") for m in _LOG_METHODS]
    sinks.append(Sink("logger.log", format_arg=1, level=None, level_arg=0, style="python-percent"))
    sinks.append(Sink("warnings.warn", level="warning", style="plain"))  # printed on stderr by default
    return tuple(sinks)


class PythonFinder:
    """Finds raise and log sites in Python files."""

    name = "python"
    extensions: tuple[str, ...] = (".py",)
    default_sinks: tuple[Sink, ...] = _default_sinks()

    def __init__(self) -> None:
        self._parser = tree_sitter.Parser(_LANGUAGE)

    #: Its constants resolve within the file: the harvest's constants pass skips its files.
    offers_constants = False

    def survey(self, source: bytes) -> TreeFacts:
        """Python names no constants to other files (module constants resolve within their file)."""
        return TreeFacts()

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        tree = self._parser.parse(source)
        root = tree.root_node
        wanted = merged_sinks(self.default_sinks, sinks)
        file = _File(root, path, wanted, levels, facts.constants)
        if root.has_error:
            file.found.parse_error = first_error(root)
        captures = tree_sitter.QueryCursor(_query(frozenset(s.name.rsplit(".", 1)[-1] for s in wanted))
                                           ).captures(root)
        for node in sorted(captures.get("raise", []) + captures.get("call", []), key=lambda n: n.start_byte):
            if node.type == "raise_statement":
                file.raise_site(node)
            else:
                file.call_site(node)
        file.found.sites.sort(key=lambda s: (s.line, s.end_line))
        return file.found


_MADE_LOGGERS = tree_sitter.Query(_LANGUAGE, f"""(assignment left: (_) @target right: (call function: [
  (identifier) @maker (attribute attribute: (identifier) @maker)]
  (#any-of? @maker {query_strings(_LOGGER_MAKERS)})))""")


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
