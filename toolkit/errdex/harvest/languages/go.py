"""Go: errors built with a message, panics, and log calls through ``log``, ``slog`` and common loggers.

Sites: ``errors.New("...")`` and ``fmt.Errorf("... %w", err)`` wherever they are built (returned, wrapped,
assigned to a package's ``Err...`` variable: kind ``return-error``); ``panic("...")`` and ``panic`` of a
``fmt.Sprintf``/``errors.New``/``fmt.Errorf`` (one site, kind ``panic``); ``log.Printf/Fatalf/Panicf/Println``
...; ``slog.Error/Warn/Info/Debug("msg", kv...)`` (the message is the first argument, key-values are not part
of it); logger objects (``logger.Errorf``, ``log.Errorf``, ``sugar.Infow``, logrus ``log.WithError(err)
.Error``, ``klog.V(2).Infof``): a ``...f`` method reads its format as Go verbs, the others take their first
argument as the message. Messages come from string literals (raw too), ``+`` concatenation, ``fmt.Sprintf``
and the package's ``const`` strings (of the file, or of the tree through :meth:`GoFinder.survey`).
A project sink (not one of :data:`DEFAULT_SINKS`) matches a call of that name (``pkg.Func`` or ``Func``) or
a method of that name on any receiver.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import tree_sitter
import tree_sitter_go

from errdex.harvest.languages import FileSites, TreeFacts
from errdex.harvest.languages._shared import Piece, Raw, broken, finish, has_text, nodes, sink_table, unescape
from errdex.harvest.languages._tree import KeptTrees, oversized, plus_operands
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Hole, Site, SiteKind, Skipped, Text

__all__ = ["DEFAULT_SINKS", "FINDER", "GoFinder"]

_LANGUAGE = tree_sitter.Language(tree_sitter_go.language())
_PARSER = tree_sitter.Parser(_LANGUAGE)
#: The constants pass's trees, kept for the sites pass.
_TREES = KeptTrees(_PARSER)
Node = tree_sitter.Node

_LOGGERS = frozenset({"log", "logger", "slog", "logrus", "klog", "glog", "zap", "sugar", "zlog", "lg", "Log",
                      "Logger", "l", "logging"})
_METHODS = ("Fatal", "Panic", "Error", "Warn", "Warning", "Info", "Debug", "Trace", "Print", "Notice")


def _method_sinks() -> Iterator[Sink]:
    for base in _METHODS:
        level = "info" if base == "Print" else normal_level(base)
        yield Sink(f"{base}f", 0, level, "go")
        for suffix in ("", "ln", "w", "Context"):
            yield Sink(base + suffix, 1 if suffix == "Context" else 0, level, "plain")


#: The error constructors, panic, and the methods of the standard and common loggers.
DEFAULT_SINKS: tuple[Sink, ...] = (
    Sink("errors.New", 0, None, "plain"),
    Sink("fmt.Errorf", 0, None, "go"),
    Sink("panic", 0, None, "plain"),
    *_method_sinks(),
)
#: The same, for membership tests by hash (a sink is a frozen dataclass).
_DEFAULT_SET: frozenset[Sink] = frozenset(DEFAULT_SINKS)
_KINDS: dict[str, SiteKind] = {"errors.New": "return-error", "fmt.Errorf": "return-error", "panic": "panic"}
_WRAPPERS = {"fmt.Sprintf": "go", "fmt.Errorf": "go", "errors.New": "plain", "fmt.Sprint": "plain",
             "fmt.Sprintln": "plain"}


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [child for child in args.named_children if child.type != "comment"] if args is not None else []


def _walk(node: Node, kind: str) -> Iterator[Node]:
    return iter(nodes(_LANGUAGE, node, (kind,)))


def _root_name(node: Node) -> str:
    """The identifier a receiver chain starts from: ``s.log`` -> ``log``'s owner chain's last field, a call
    chain ``log.WithError(err)`` -> ``log``, ``klog.V(2)`` -> ``klog``."""
    while node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None or function.type != "selector_expression":
            break
        operand = function.child_by_field_name("operand")
        if operand is None:
            break
        node = operand
    if node.type == "selector_expression":
        return _text(node.child_by_field_name("field"))
    return _text(node)


def _constants(root: Node) -> dict[str, str]:
    found: dict[str, str] = {}
    for spec in _walk(root, "const_spec"):
        names = spec.children_by_field_name("name")
        value = spec.child_by_field_name("value")
        values = value.named_children if value is not None and value.type == "expression_list" else [value]
        for name, item in zip(names, values, strict=False):
            text = _literal(item, found) if item is not None else None
            if text is not None:
                found[_text(name)] = text
    return found


def _literal(node: Node, known: Mapping[str, str]) -> str | None:
    if node.type == "interpreted_string_literal":
        return unescape(_text(node)[1:-1])
    if node.type == "raw_string_literal":
        return _text(node)[1:-1].replace("\r", "")
    if node.type == "identifier":
        return known.get(_text(node))
    operands = plus_operands(node, "binary_expression") if node.type == "binary_expression" else None
    if operands is not None:
        texts = [_literal(operand, known) for operand in operands]
        return "".join(t for t in texts if t is not None) if None not in texts else None
    return None


class _File:
    def __init__(self, root: Node, path: str, sinks: Sequence[Sink], levels: frozenset[str],
                 tree_constants: Mapping[str, str]) -> None:
        self.path = path
        self.levels = levels
        self.constants = {**tree_constants, **_constants(root)}
        self.sinks, self.defaults = sink_table(sinks, _DEFAULT_SET)
        self.result = FileSites()
        self.consumed: set[int] = set()

    def pieces(self, node: Node, style: str) -> list[Piece]:
        """The parts of a message expression; literal text becomes a Raw format of ``style``."""
        literal = _literal(node, self.constants)
        if literal is not None:
            return [Raw(literal, style)]
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self.pieces(node.named_children[0], style)
        operands = plus_operands(node, "binary_expression") if node.type == "binary_expression" else None
        if operands is not None:
            return [piece for operand in operands for piece in self.pieces(operand, style)]
        if node.type == "call_expression":
            inner_style = _WRAPPERS.get(_text(node.child_by_field_name("function")))
            args = _arguments(node)
            if inner_style is not None and args:
                self.consumed.add(node.id)
                return self.pieces(args[0], inner_style)
        return [Hole(_text(node))]

    def call(self, node: Node) -> None:
        if node.id in self.consumed:
            return
        function = node.child_by_field_name("function")
        if function is None:
            return
        name = _text(function)
        sink = self.sinks.get(name)
        error_class = name
        if sink is None and function.type == "selector_expression":
            method = _text(function.child_by_field_name("field"))
            sink = self.sinks.get(method)
            operand = function.child_by_field_name("operand")
            receiver = _root_name(operand) if operand is not None else ""
            if sink is not None and method in self.defaults and receiver not in _LOGGERS:
                return
            error_class = receiver or method
        if sink is None:
            return
        kind = _KINDS.get(sink.name, "log") if sink.name in self.defaults else "log"
        level = sink.level if kind == "log" else None
        if kind == "log" and (level or "info") not in self.levels:
            return
        line = node.start_point[0] + 1
        too_large = oversized(node)
        if too_large is not None:
            self.result.skipped.append(Skipped(self.path, line, "too-large", too_large))
            return
        args = _arguments(node)
        message = args[sink.format_arg] if len(args) > sink.format_arg else None
        parts = self.pieces(message, sink.style) if message is not None else []
        if kind == "log" and sink.name.endswith("ln"):
            parts = self._joined(args, " ")
        elif kind == "log" and error_class == "log" and sink.name in ("Print", "Fatal", "Panic"):
            parts = self._joined(args, "")  # the standard log's Sprint of every operand
        if not has_text(parts):
            self.result.skipped.append(Skipped(self.path, line, "no-literal", _text(node)[:80]))
            return
        function_name, guards = _context(node)
        self.result.sites.append(Site(
            path=self.path, language="go", kind=kind, line=line, end_line=node.end_point[0] + 1,
            template=finish(parts), level=level or ("info" if kind == "log" else None),
            error_class=error_class, function=function_name, guards=guards))

    def _joined(self, args: Sequence[Node], separator: str) -> list[Piece]:
        """``log.Println(a, b)``: the operands with ``separator`` between each."""
        out: list[Piece] = []
        for index, arg in enumerate(args):
            if index and separator:
                out.append(Text(separator))
            out.extend(self.pieces(arg, "plain"))
        return out


def _context(node: Node) -> tuple[str | None, tuple[str, ...]]:
    """The enclosing function (``Type.Method`` for a method) and the guards down to ``node``."""
    guards: list[str] = []
    child, parent = node, node.parent
    while parent is not None:
        kind = parent.type
        if kind == "if_statement":
            condition = _text(parent.child_by_field_name("condition")).strip()
            if parent.child_by_field_name("consequence") == child:
                guards.append(condition)
            elif parent.child_by_field_name("alternative") == child:
                guards.append(f"!({condition})")
        elif kind in ("expression_case", "type_case"):
            value = parent.child_by_field_name("value") or parent.child_by_field_name("type")
            guards.append(f"case {_text(value)}")
        elif kind == "function_declaration":
            return _text(parent.child_by_field_name("name")), tuple(reversed(guards))
        elif kind == "method_declaration":
            receiver = parent.child_by_field_name("receiver")
            types = [t for t in _walk(receiver, "type_identifier")] if receiver is not None else []
            name = _text(parent.child_by_field_name("name"))
            return (f"{_text(types[0])}.{name}" if types else name), tuple(reversed(guards))
        child, parent = parent, parent.parent
    return None, tuple(reversed(guards))


class GoFinder:
    """The Go finder (see the module docstring)."""

    name = "go"
    extensions: tuple[str, ...] = (".go",)
    default_sinks: tuple[Sink, ...] = DEFAULT_SINKS
    #: Every Go site is a call of a sink (errors.New, fmt.Errorf and panic are sinks): a file that names none
    #: is not parsed.
    site_words: tuple[bytes, ...] = ()

    def release(self, source: bytes) -> None:
        """Let go of what the constants pass kept for a file that is not searched for sites."""
        _TREES.drop(source)

    def survey(self, source: bytes) -> TreeFacts:
        return TreeFacts(constants=_constants(_TREES.parse(source, keep=True).root_node) if b"const" in source else {})

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        tree = _TREES.parse(source)
        state = _File(tree.root_node, path, sinks, levels, facts.constants)
        state.result.parse_error = broken(tree.root_node)
        for call in _walk(tree.root_node, "call_expression"):
            state.call(call)
        return state.result


FINDER = GoFinder()
