"""Java: ``throw new X(msg)`` and log calls through SLF4J, log4j, JUL and commons-logging objects.

A message is read from string literals, ``+`` concatenation (a non-literal operand is a Hole), ternaries
with literal branches (a Choice), ``String.format`` and ``MessageFormat.format``, SLF4J ``{}`` with
arguments, and the constants it names (``static final String`` of the file, or of the tree through
:meth:`JavaFinder.survey` as ``Class.NAME`` and ``NAME``, and a local ``String x = "..."`` earlier in the
method). Log calls count when the receiver is a logger (:mod:`.java_loggers`: a field of the usual names,
one declared as a Logger or set from a logger factory, in this class, a superclass or another class of the
tree, ``NameNode.stateChangeLog``, or a method returning one); a project sink (not one of
:data:`DEFAULT_SINKS`) matches any call of that method name. A site's function is ``Class.method`` with the
class as the JVM names it (``Outer$Inner``, ``Outer$1``), as log4j prints it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

import tree_sitter
import tree_sitter_java

from errdex.harvest.languages import FileSites, Parameter, TreeFacts
from errdex.harvest.languages._shared import Piece, Raw, broken, finish, has_text, nodes, sink_table, unescape
from errdex.harvest.languages._tree import KeptTrees, oversized, plus_operands
from errdex.harvest.languages.java_calls import Forwarded, one_of, passed
from errdex.harvest.languages.java_loggers import Loggers, binary_name
from errdex.harvest.languages.java_loggers import survey as survey_loggers
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Choice, Hole, Site, SiteKind, Skipped, Text

__all__ = ["DEFAULT_SINKS", "FINDER", "JavaFinder"]

_LANGUAGE = tree_sitter.Language(tree_sitter_java.language())
_PARSER = tree_sitter.Parser(_LANGUAGE)
#: The constants pass's trees, kept for the sites pass.
_TREES = KeptTrees(_PARSER)
Node = tree_sitter.Node

#: Log methods of SLF4J, log4j, commons-logging and JUL, each on errdex's level scale; ``log`` is JUL's
#: ``log(Level.X, msg, ...)`` (the level is argument 0).
DEFAULT_SINKS: tuple[Sink, ...] = (
    *(Sink(name, 0, normal_level(name), "slf4j")
      for name in ("fatal", "error", "warn", "info", "debug", "trace",
                   "severe", "warning", "config", "fine", "finer", "finest")),
    Sink("log", 1, None, "slf4j", level_arg=0),
    Sink("println", 0, "info", "plain"),
    Sink("print", 0, "info", "plain"),
    Sink("printf", 0, "info", "printf"),  # read as Java's String.format
)
#: The same, for membership tests by hash (a sink is a frozen dataclass).
_DEFAULT_SET: frozenset[Sink] = frozenset(DEFAULT_SINKS)
#: ``System.err.println(...)`` is an error, ``System.out.println(...)`` information.
_STREAMS = {"System.err": "error", "System.out": "info"}
_PRINTS = frozenset({"println", "print", "printf"})
_MESSAGE_FORMAT = re.compile(r"\{[0-9]")
_HEX_CALLS = frozenset({"Long.toHexString", "Integer.toHexString", "Long.toString"})
_FUNCTION_NODES = ("method_declaration", "constructor_declaration")
_CLASS_NODES = ("class_declaration", "enum_declaration", "interface_declaration", "record_declaration")


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _named_args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [child for child in args.named_children if child.type != "comment"] if args is not None else []


class _File:
    """One file's lookups: its constants, its logger fields, its sinks."""

    def __init__(self, root: Node, path: str, sinks: Sequence[Sink], levels: frozenset[str],
                 facts: TreeFacts, offered: tuple[dict[str, str], dict[Parameter, list[str]]] | None = None,
                 ) -> None:
        self.path = path
        self.levels = levels
        own, calls = offered if offered is not None else (_file_constants(root), passed(root))
        self.constants = {**facts.constants, **own}
        own_loggers = survey_loggers(root)
        self.loggers = Loggers(root, TreeFacts(loggers=facts.loggers | own_loggers.loggers,
                                               parents={**own_loggers.parents, **facts.parents}))
        self.sinks, self.logger_only = sink_table(sinks, _DEFAULT_SET)
        self.forwarded = Forwarded(facts.passed, calls)
        self.result = FileSites()

    # -- messages ----------------------------------------------------------------------------------------
    def pieces(self, node: Node, locals_: Mapping[str, str]) -> list[Piece]:
        """The parts of an expression that builds a message (Text, Hole, Choice, or a Raw format)."""
        kind = node.type
        if kind in ("string_literal", "text_block"):
            body = _text(node)
            quote = 3 if body.startswith('"""') else 1
            return [Text(unescape(body[quote:-quote]))]
        if kind == "character_literal":
            return [Text(unescape(_text(node)[1:-1]))]
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            inner = node.named_children[0]
            return self.pieces(inner, locals_)
        operands = plus_operands(node, "binary_expression") if kind == "binary_expression" else None
        if operands is not None:
            return [piece for operand in operands for piece in self.pieces(operand, locals_)]
        if kind == "ternary_expression":
            return self._ternary(node, locals_)
        if kind in ("identifier", "field_access"):
            name = _text(node)
            value = locals_.get(name, self.constants.get(name))
            if value is None and kind == "field_access":
                value = self.constants.get(name.rsplit(".", 1)[-1]) if name.startswith("this.") else None
            return [Text(value)] if value is not None else [Hole(name)]
        if kind == "method_invocation":
            return self._invocation(node, locals_)
        return [Hole(_text(node))]

    def _ternary(self, node: Node, locals_: Mapping[str, str]) -> list[Piece]:
        branches = [node.child_by_field_name(name) for name in ("consequence", "alternative")]
        options = [self.pieces(branch, locals_) for branch in branches if branch is not None]
        if len(options) == 2 and any(has_text(option) for option in options):
            return [Choice(tuple(finish(option) for option in options))]
        return [Hole(_text(node))]

    def _invocation(self, node: Node, locals_: Mapping[str, str]) -> list[Piece]:
        name = _text(node.child_by_field_name("name"))
        qualified = f"{_text(node.child_by_field_name('object'))}.{name}"
        args = _named_args(node)
        style = {"String.format": "java-format", "MessageFormat.format": "message-format"}.get(qualified)
        if style is not None and args:
            # String.format(Locale, fmt, ...) names its locale first
            fmt = args[1] if len(args) > 1 and _text(args[0]).startswith("Locale") else args[0]
            return [Raw(p.text, style) if isinstance(p, Text) else p for p in self.pieces(fmt, locals_)]
        if qualified in _HEX_CALLS and name == "toHexString":
            return [Hole(_text(node), "hex")]
        return [Hole(_text(node))]

    # -- sites -------------------------------------------------------------------------------------------
    def add(self, node: Node, kind: SiteKind, message: Node | None, *, level: str | None,
            error_class: str, style: str | None, locals_: Mapping[str, str]) -> None:
        """A site of ``message``; its literal text read as a format of ``style`` (None: as it is)."""
        line = node.start_point[0] + 1
        if message is None:
            self.result.skipped.append(Skipped(self.path, line, "no-literal", _text(node)[:80]))
            return
        too_large = oversized(node)
        if too_large is not None:
            self.result.skipped.append(Skipped(self.path, line, "too-large", too_large))
            return
        parts = self.pieces(message, locals_)
        if kind == "log":
            parts = self._from_callers(message, parts)
        if style == "slf4j" and any(isinstance(p, Text) and _MESSAGE_FORMAT.search(p.text) for p in parts) \
                and not any(isinstance(p, Text) and "{}" in p.text for p in parts):
            style = "message-format"  # JUL's log(Level, "x {0}", param) reads its message as MessageFormat
        if style is not None:
            parts = [Raw(p.text, style) if isinstance(p, Text) else p for p in parts]
        if not has_text(parts):
            self.result.skipped.append(Skipped(self.path, line, "no-literal", _text(message)[:80]))
            return
        function, guards = _context(node)
        self.result.sites.append(Site(
            path=self.path, language="java", kind=kind, line=line, end_line=node.end_point[0] + 1,
            template=finish(parts), level=level, error_class=error_class, function=function, guards=guards))

    def _from_callers(self, message: Node, parts: list[Piece]) -> list[Piece]:
        """A message that starts with a ``String`` parameter of its method (``log.info(msg + e)``) starts
        with the literals the method's callers pass for it (see :func:`~errdex.harvest.languages.java_calls.one_of`)."""
        first: Node | None = message
        while first is not None and first.type in ("binary_expression", "parenthesized_expression"):
            if first.type == "binary_expression" and _text(first.child_by_field_name("operator")) != "+":
                return parts
            first = first.child_by_field_name("left") if first.type == "binary_expression" \
                else (first.named_children[0] if first.named_child_count == 1 else None)
        if first is None or first.type != "identifier" or not parts or parts[0] != Hole(_text(first)):
            return parts
        literals = self.forwarded.literals(first)
        if not literals:
            return parts
        return [*one_of(literals), *parts[1:]]

    def throw(self, node: Node, locals_: Mapping[str, str]) -> None:
        created = next((c for c in node.named_children if c.type == "object_creation_expression"), None)
        if created is None:
            return
        args = _named_args(created)
        error_class = _text(created.child_by_field_name("type"))
        message = args[0] if args and _stringy(args[0]) else None
        self.add(node, "throw", message, level=None, error_class=error_class, style=None, locals_=locals_)

    def call(self, node: Node, locals_: Mapping[str, str]) -> None:
        name = _text(node.child_by_field_name("name"))
        sink = self.sinks.get(name)
        if sink is None:
            return
        receiver = node.child_by_field_name("object")
        receiver_name = _text(receiver).removeprefix("this.")
        args = _named_args(node)
        level = sink.level
        if name in self.logger_only:
            if name in _PRINTS:
                level = _STREAMS.get(receiver_name)
                if level is None:
                    return
            elif not self.loggers.receiver(receiver):
                return
        if sink.level_arg is not None:
            level_node = args[sink.level_arg] if len(args) > sink.level_arg else None
            level = normal_level(_text(level_node).rsplit(".", 1)[-1]) if level_node is not None else None
        if level is None or level not in self.levels:
            return
        message = args[sink.format_arg] if len(args) > sink.format_arg else None
        extra = len(args) > sink.format_arg + 1
        style: str | None = "java-format" if sink.style == "printf" else sink.style  # Java's printf
        if style == "plain" or (style == "slf4j" and not extra):
            style = None
        self.add(node, "log", message, level=level, error_class=receiver_name or name, style=style,
                 locals_=locals_)


def _stringy(node: Node) -> bool:
    """Whether an argument can be a message (not ``e``, ``cause``, a number)."""
    return node.type in ("string_literal", "text_block", "binary_expression", "ternary_expression",
                         "method_invocation", "identifier", "field_access", "parenthesized_expression")


def _file_constants(root: Node) -> dict[str, str]:
    """``static final String NAME = ...`` whose value is all literal text, as ``Class.NAME`` and ``NAME``."""
    found: dict[str, str] = {}
    for field in _walk(root, "field_declaration"):
        modifiers = next((c for c in field.children if c.type == "modifiers"), None)
        words = set(_text(modifiers).split())
        if not {"static", "final"} <= words or _text(field.child_by_field_name("type")) != "String":
            continue
        owner = _class_name(field)
        for declarator in field.children_by_field_name("declarator"):
            value = declarator.child_by_field_name("value")
            text = _literal_text(value, found) if value is not None else None
            if text is not None:
                name = _text(declarator.child_by_field_name("name"))
                found[name] = text
                if owner:
                    found[f"{owner}.{name}"] = text
    return found


def _literal_text(node: Node, known: Mapping[str, str]) -> str | None:
    """The value of a constant expression made of literals, ``+`` and known names; None otherwise."""
    if node.type == "string_literal":
        return unescape(_text(node)[1:-1])
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _literal_text(node.named_children[0], known)
    operands = plus_operands(node, "binary_expression") if node.type == "binary_expression" else None
    if operands is not None:
        texts = [_literal_text(operand, known) for operand in operands]
        return "".join(t for t in texts if t is not None) if None not in texts else None
    if node.type in ("identifier", "field_access"):
        return known.get(_text(node))
    return None


def _walk(node: Node, kind: str) -> Iterator[Node]:
    return iter(nodes(_LANGUAGE, node, (kind,)))


def _class_name(node: Node) -> str:
    parent = node.parent
    while parent is not None and parent.type not in _CLASS_NODES:
        parent = parent.parent
    return _text(parent.child_by_field_name("name")) if parent is not None else ""


def _context(node: Node) -> tuple[str | None, tuple[str, ...]]:
    """The enclosing ``Class.method`` and the guards from the method down to ``node`` (innermost last)."""
    guards: list[str] = []
    child, parent = node, node.parent
    function: str | None = None
    while parent is not None:
        if parent.type == "if_statement":
            condition = _text(parent.child_by_field_name("condition")).strip()
            if condition.startswith("(") and condition.endswith(")"):
                condition = condition[1:-1].strip()
            if parent.child_by_field_name("consequence") == child:
                guards.append(condition)
            elif parent.child_by_field_name("alternative") == child:
                guards.append(f"!({condition})")
        elif parent.type == "while_statement":
            guards.append(_text(parent.child_by_field_name("condition")).strip().removeprefix("(")
                          .removesuffix(")"))
        elif parent.type == "catch_clause":
            formal = next((c for c in parent.named_children if c.type == "catch_formal_parameter"), None)
            guards.append(f"catch ({_text(formal)})")
        elif parent.type in _FUNCTION_NODES:
            owner = binary_name(parent)
            name = _text(parent.child_by_field_name("name"))
            function = f"{owner}.{name}" if owner else name
            break
        child, parent = parent, parent.parent
    return function, tuple(reversed(guards))


_VISITED = (*_FUNCTION_NODES, "local_variable_declaration", "throw_statement", "method_invocation")


def _visit(root: Node, state: _File) -> None:
    """The sites of the file in source order; a method starts its own table of local string constants (a
    stack of (end byte, table), so a method of an anonymous class inside another has its own)."""
    scopes: list[tuple[int, dict[str, str]]] = [(root.end_byte, {})]
    for current in nodes(_LANGUAGE, root, _VISITED):
        while len(scopes) > 1 and scopes[-1][0] <= current.start_byte:
            scopes.pop()
        scope = scopes[-1][1]
        kind = current.type
        if kind in _FUNCTION_NODES:
            scopes.append((current.end_byte, {}))
        elif kind == "local_variable_declaration" and _text(current.child_by_field_name("type")) == "String":
            for declarator in current.children_by_field_name("declarator"):
                value = declarator.child_by_field_name("value")
                text = _literal_text(value, {**state.constants, **scope}) if value is not None else None
                if text is not None:
                    scope[_text(declarator.child_by_field_name("name"))] = text
        elif kind == "throw_statement":
            state.throw(current, scope)
        else:
            state.call(current, scope)


#: id(source) -> (source, its static final Strings, the literals its calls pass), from the constants pass,
#: taken by the sites pass of the same bytes (in this process or a child forked after it).
_OFFERED: dict[int, tuple[bytes, dict[str, str], dict[Parameter, list[str]]]] = {}


class JavaFinder:
    """The Java finder (see the module docstring)."""

    name = "java"
    extensions: tuple[str, ...] = (".java",)
    default_sinks: tuple[Sink, ...] = DEFAULT_SINKS
    #: A Java site is a call of a sink or a ``throw_statement`` (:data:`_VISITED`).
    site_words: tuple[bytes, ...] = (b"throw",)

    def release(self, source: bytes) -> None:
        """Let go of what the constants pass kept for a file that is not searched for sites."""
        _TREES.drop(source)
        _OFFERED.pop(id(source), None)

    def survey(self, source: bytes) -> TreeFacts:
        """The file's ``static final String`` constants and the literals its calls pass to named methods."""
        if b"final" not in source and b'"' not in source and b"extends" not in source and b"Log" not in source:
            return TreeFacts()
        root = _TREES.parse(source, keep=True).root_node
        own, calls = _file_constants(root), passed(root)
        _OFFERED[id(source)] = (source, own, calls)
        loggers = survey_loggers(root)
        return TreeFacts(constants=own, passed=calls, loggers=loggers.loggers, parents=loggers.parents)

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        tree = _TREES.parse(source)
        kept = _OFFERED.pop(id(source), None)  # what the survey read from these very bytes
        offered = kept[1:] if kept is not None and kept[0] is source else None
        state = _File(tree.root_node, path, sinks, levels, facts, offered)
        state.result.parse_error = broken(tree.root_node)
        _visit(tree.root_node, state)
        return state.result


FINDER = JavaFinder()
