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
from errdex.harvest.languages import FileSites, TreeFacts
from errdex.harvest.languages._pycontext import (
    enclosing_function,
    guards,
    is_parameter,
)
from errdex.harvest.languages._pymessages import Messages
from errdex.harvest.languages._pysinks import LOGGER_MAKERS, aliases, default_sinks, is_logger, wrappers
from errdex.harvest.languages._pytext import first_line
from errdex.harvest.languages._tree import first_error, merged_sinks, oversized, parse, query_strings, text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Site, Skipped, Template

__all__ = ["FINDER", "MAX_INDENT_WIDTHS", "PythonFinder", "too_deep"]

Node = tree_sitter.Node

_MESSAGE_KEYWORDS = frozenset({"message", "msg", "detail", "reason", "description", "text", "error"})
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
                 constants: Mapping[str, str], returns: Mapping[str, Sequence[Template]] | None = None) -> None:
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

    # --- sites ----------------------------------------------------------------------------------------

    def add(self, node: Node, statement: Node, kind: str, message: Node | None, *, style: str | None,
            level: str | None, error_class: str, arguments: Sequence[Node] = ()) -> None:
        line = statement.start_point.row + 1
        if message is None:
            return
        too_large = oversized(node)
        if too_large is not None:
            self.found.skipped.append(Skipped(self.path, line, "too-large", too_large))
            return
        if style is not None:
            template = self.formatted(message, style, 0)
            if style == "python-percent":
                template = self.spliced(template, arguments)
        else:
            template = join(self.message(message))
        template = first_line(template)
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
        if b"return" not in source:
            return TreeFacts(sinks=wrappers(source))
        file = _File(parse(self._parser, source, too_deep).root_node, "", (), frozenset(), {})
        returns = {name: list(found) for name, found in file.own_returns().items()}
        return TreeFacts(sinks=wrappers(source), returns=returns)

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        tree = parse(self._parser, source, too_deep)
        root = tree.root_node
        wanted = merged_sinks((*self.default_sinks, *facts.sinks.values()), sinks)
        file = _File(root, path, wanted, levels, facts.constants, facts.returns)
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
