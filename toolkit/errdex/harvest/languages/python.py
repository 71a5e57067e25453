"""Python: ``raise X(message)`` and log calls through ``logging``, the usual logger names and the tree's own
wrappers of a logger (:mod:`._pysinks`).

Messages are read by :class:`~errdex.harvest.languages._pymessages.Messages`: string literals, ``%``
formatting, ``str.format``, joins, i18n wrappers, constants, locals, loop variables, the literals callers
pass for a parameter, and what a called function returns (learned by :meth:`PythonFinder.survey`). A log
call with arguments after the message is ``%``-formatted by ``logging``; one without prints its message as
it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import tree_sitter
import tree_sitter_python

from errdex.harvest.formats import join
from errdex.harvest.languages import FileSites, Raiser, TreeFacts
from errdex.harvest.languages._pycontext import (
    enclosing_function,
    guards,
    is_parameter,
)
from errdex.harvest.languages._pymessages import Messages
from errdex.harvest.languages._pyraisers import argument, class_messages, forwards, message_argument, raisers
from errdex.harvest.languages._pysinks import LOGGER_MAKERS, aliases, default_sinks, is_logger, wrappers
from errdex.harvest.languages._pytext import first_line
from errdex.harvest.languages._tree import first_error, merged_sinks, oversized, parse, query_strings, text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Site, Skipped, Template

__all__ = ["FINDER", "MAX_INDENT_WIDTHS", "PythonFinder", "too_deep"]

Node = tree_sitter.Node

_LANGUAGE = tree_sitter.Language(tree_sitter_python.language())

#: Distinct indentations a Python file may hold to be parsed. tree-sitter-python keeps the widths of the
#: open blocks in a fixed buffer and overflows it, killing the process, at some 500 nested blocks; CPython
#: itself refuses more than 100 levels, and real files hold at most a few dozen distinct indentations.
MAX_INDENT_WIDTHS = 200
_INDENTATION = re.compile(rb"(?:^|[\n\r\f])([ \t]*)")


def too_deep(source: bytes) -> str | None:
    """Why tree-sitter-python must not parse ``source``: more distinct indentations than
    :data:`MAX_INDENT_WIDTHS` (the blocks open at once are never more than the distinct indentations, so one
    cheap pass bounds them); None when it may."""
    widths = len(set(_INDENTATION.findall(source)))
    if widths <= MAX_INDENT_WIDTHS:
        return None
    return (f"{widths} distinct indentations, over the {MAX_INDENT_WIDTHS} errdex parses (blocks nested that "
            "deep crash the Python parser)")


class _File(Messages):
    """One file being read: its messages (:class:`Messages`), its loggers and the sinks asked for."""

    def __init__(self, root: Node, path: str, sinks: Sequence[Sink], levels: frozenset[str],
                 constants: Mapping[str, str], returns: Mapping[str, Sequence[Template]] | None = None,
                 facts: TreeFacts | None = None) -> None:
        super().__init__(root, constants, returns)
        self.path, self.levels = path, levels
        self.sinks = list(sinks)
        source = root.text or b""
        made = tree_sitter.QueryCursor(_MADE_LOGGERS).matches(root) \
            if any(m.encode() in source for m in LOGGER_MAKERS) else []  # the query costs; most files make none
        self.loggers = frozenset(text(target) for target, maker in _pairs(made)
                                 if text(maker).rsplit(".", 1)[-1] in LOGGER_MAKERS)
        self.found = FileSites()
        #: ``meth = logger.debug`` (then ``meth("...", x)``): a name bound to a logger's method, and that method.
        self.aliases = aliases(source, self.loggers)
        #: The file's own raisers (:mod:`._pyraisers`), then the tree's that all agree on their message's place.
        self.own_raisers = raisers(root) if b"raise" in source else {}
        self.raisers: dict[str, Raiser] = dict(self.own_raisers)
        for name, found in (facts.raisers if facts is not None else {}).items():
            if name not in self.raisers and len({(r.position, r.parameter) for r in found}) == 1:
                self.raisers[name] = found[0]
        self.class_messages: dict[str, Template] = {
            name: found[0] for name, found in (facts.class_messages if facts is not None else {}).items()
            if len(found) == 1}
        # a helper raising a class that writes its own message hands it a value, not the message
        self.raisers = {name: r for name, r in self.raisers.items()
                        if r.error_class.rsplit(".", 1)[-1] not in self.class_messages}
        self.own_raisers = {name: r for name, r in self.own_raisers.items() if name in self.raisers}

    # --- sites ----------------------------------------------------------------------------------------

    def add(self, node: Node, statement: Node, kind: str, message: Node | None, *, style: str | None,
            level: str | None, error_class: str, arguments: Sequence[Node] = (),
            fallback: Template | None = None) -> None:
        line = statement.start_point.row + 1
        if message is None and fallback is None:
            return
        too_large = oversized(node)
        if too_large is not None:
            self.found.skipped.append(Skipped(self.path, line, "too-large", too_large))
            return
        if message is None:
            template: Template = ()
        elif style is not None:
            template = self.formatted(message, style, 0)
            if style == "python-percent":
                template = self.spliced(template, arguments)
        else:
            template = join(self.message(message))
        if not has_literal(template) and fallback is not None:
            template = fallback  # the class writes its own message (a ``__str__``)
        template = first_line(template)
        if not has_literal(template):
            assert message is not None  # a fallback has literal text
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
        first = message_argument(args)  # ClosedPoolError(self, "Pool is closed."); HTTPException(detail="...")
        if first is not None and forwards(_function_of(node), first, self.own_raisers):
            # ``def fail(self, msg): raise exc(msg)``: its callers' calls are the sites, it has no text of its own
            self.found.skipped.append(Skipped(self.path, node.start_point.row + 1, "no-literal", text(first)[:200]))
            return
        name = text(function)
        maker = self.raisers.get(name.rsplit(".", 1)[-1])
        if maker is not None and maker.returns:  # ``raise self._error("...")``: the class _error builds
            name = maker.error_class
        fallback = self.class_messages.get(name.rsplit(".", 1)[-1])
        if first is None and fallback is None:
            return
        self.add(node, node, "throw", first, style=None, level=None, error_class=name, fallback=fallback)

    def raiser_site(self, node: Node, raiser: Raiser) -> None:
        """A call of a raiser (``self.fail("expected call", lineno)``): a raise site at the call's statement."""
        args = node.child_by_field_name("arguments")
        if args is None or args.type != "argument_list":
            return
        message = argument(args, raiser.position, raiser.parameter)
        if message is None or forwards(_function_of(node), message, self.own_raisers):
            return
        error_class = raiser.error_class
        if raiser.class_position is not None:
            given = argument(args, raiser.class_position, raiser.class_parameter or "")
            error_class = text(given) if given is not None else error_class
        statement = node.parent if node.parent is not None and node.parent.type == "expression_statement" else node
        self.add(node, statement, "throw", message, style=None, level=None, error_class=error_class)

    def call_site(self, node: Node) -> None:
        function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or args is None or args.type != "argument_list":
            return
        callee = text(function)
        callee = self.aliases.get(callee, callee)
        positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
        sink = self.sink_for(callee)
        if sink is None:
            raiser = self.raisers.get(callee.rsplit(".", 1)[-1])
            if raiser is not None and not raiser.returns and node.parent is not None \
                    and node.parent.type == "expression_statement":
                self.raiser_site(node, raiser)
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
        *args)``), as sinks by name: their callers in every file are log calls; and the messages its functions
        return, by name (``logger.info(finder.describe())`` in another file). Module constants resolve within
        their file."""
        if b"return" not in source and b"raise" not in source and b"class" not in source:
            return TreeFacts(sinks=wrappers(source))
        root = parse(self._parser, source, too_deep).root_node
        file = _File(root, "", (), frozenset(), {})
        returns = {name: list(found) for name, found in file.own_returns().items()} if b"return" in source else {}
        found = raisers(root) if b"raise" in source else {}
        messages = class_messages(root, lambda value: join(file.message(value, 1))) if b"class" in source else {}
        return TreeFacts(sinks=wrappers(source), returns=returns,
                         raisers={name: [raiser] for name, raiser in found.items()},
                         class_messages={name: [template] for name, template in messages.items()})

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        tree = parse(self._parser, source, too_deep)
        root = tree.root_node
        wanted = merged_sinks((*self.default_sinks, *facts.sinks.values()), sinks)
        file = _File(root, path, wanted, levels, facts.constants, facts.returns, facts)
        if root.has_error:
            file.found.parse_error = first_error(root)
        names = frozenset(s.name.rsplit(".", 1)[-1] for s in wanted) | frozenset(file.aliases) \
            | frozenset(name for name, raiser in file.raisers.items() if not raiser.returns)
        captures = tree_sitter.QueryCursor(_query(names)).captures(root)
        for node in sorted(captures.get("raise", []) + captures.get("call", []), key=lambda n: n.start_byte):
            if node.type == "raise_statement":
                file.raise_site(node)
            else:
                file.call_site(node)
        file.found.sites.sort(key=lambda s: (s.line, s.end_line))
        return file.found


def _function_of(node: Node) -> Node | None:
    """The function ``node`` is in (the innermost), or None at the top level of a class or module."""
    current = node.parent
    while current is not None and current.type not in ("function_definition", "class_definition"):
        current = current.parent
    return current if current is not None and current.type == "function_definition" else None


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
