"""C: calls of the printf family and of a project's own printf-like sinks.

A call ``NAME(..., fmt, ...)`` of a sink is a site when its format argument (``Sink.format_arg``) is built
from string literals: adjacent literals concatenated, macros ``#define NAME "text"`` and ``#define NAME "a"
OTHER "b"`` of the same file or of the tree's headers (:meth:`CFinder.survey`), the ``<inttypes.h>``
macros (``PRIu64``...), i18n wrappers (``_()``, ``gettext()``, ``N_()``), a ternary of literals (a Choice),
and a local ``char *fmt = "..."`` earlier in the function. The format is read as printf. An argument that
is ``__func__`` prints the function's name: its conversion's hole is shaped ``word``.

The level of a sink with ``level_arg`` is read from that argument's ``LOG_*`` / ``SYSLOG_LEVEL_*`` names
(the most severe one named, for a conditional level); when none can be read, the sink's ``level`` is used.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

import tree_sitter
import tree_sitter_c

from errdex.harvest.formats import PROJECT_PRINTF, join, parts
from errdex.harvest.languages import (
    FileSites,
    TreeFacts,
    Unparsable,
    c_dialect,
    c_macros,
    c_printers,
    c_recover,
    c_sinks,
    c_values,
)
from errdex.harvest.languages._shared import Piece, Raw, broken, finish, has_text, nodes, prime, unescape
from errdex.harvest.languages._tree import KeptTrees, first_error, oversized, parse
from errdex.harvest.languages.c_arguments import I18N, collapse, fill_arguments, i18n_text, literal_choices, string_body
from errdex.harvest.sinks import LEVELS, Sink, normal_level
from errdex.harvest.sites import Choice, Hole, Part, Site, Skipped, Template, Text

__all__ = ["DEFAULT_SINKS", "FINDER", "CFinder", "macro_value"]

_LANGUAGE = tree_sitter.Language(tree_sitter_c.language())
_PARSER = tree_sitter.Parser(_LANGUAGE)
#: The constants pass's trees, kept for the sites pass.
_TREES = KeptTrees(_PARSER)
Node = tree_sitter.Node

#: printf, fprintf (to stderr, as an error), syslog (level from its first argument), perror, BSD err/warn.
DEFAULT_SINKS: tuple[Sink, ...] = (
    Sink("printf", 0, "info"),
    Sink("fprintf", 1, "error"),
    Sink("vfprintf", 1, "error"),
    Sink("syslog", 1, "info", level_arg=0),
    Sink("perror", 0, "error", "plain"),
    Sink("err", 1, "fatal"),
    Sink("errx", 1, "fatal"),
    Sink("verr", 1, "fatal"),
    Sink("warn", 0, "warning"),
    Sink("warnx", 0, "warning"),
)
#: The same, for membership tests by hash (a sink is a frozen dataclass).
_DEFAULT_SET: frozenset[Sink] = frozenset(DEFAULT_SINKS)

_INTTYPES = {f"PRI{conv}{size}": f"{length}{conv}"
             for size, length in (("8", "hh"), ("16", "h"), ("32", ""), ("64", "ll"), ("MAX", "j"), ("PTR", "l"))
             for conv in "diouxX"}
_TOKEN = re.compile(r'\s*(?:(L|u8|u|U)?"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*))', re.DOTALL)
#: A level constant: its last word (LOG_ERR, SYSLOG_LEVEL_INFO, LL_WARNING, G_LOG_LEVEL_DEBUG).
_LEVEL_NAME = re.compile(r"\b[A-Z][A-Z0-9_]*_([A-Z]+[0-9]?)\b")


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def macro_value(definition: str, known: Mapping[str, str]) -> str | None:
    """The string a ``#define`` body stands for: string literals and names of known string macros, side by
    side (``"a" OTHER "b"``); None when it is anything else or names an unknown macro."""
    text, position, out = definition.strip(), 0, []
    if not text:
        return None
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return None
        if match.group(3) is not None:
            value = known.get(match.group(3), _INTTYPES.get(match.group(3)))
            if value is None:
                return None
            out.append(value)
        else:
            out.append(unescape(match.group(2)))
        position = match.end()
        while position < len(text) and text[position] in " \t\\\n":
            position += 1
    return "".join(out)


def _defines(root: Node, known: Mapping[str, str]) -> dict[str, str]:
    """The file's string macros, each resolved against the file's earlier ones and ``known``."""
    found: dict[str, str] = {}
    for define in _walk(root, "preproc_def"):
        value_node = define.child_by_field_name("value")
        if value_node is None:
            continue
        value = macro_value(_text(value_node), {**known, **found})
        if value is not None:
            found[_text(define.child_by_field_name("name"))] = value
    return found


def _walk(node: Node, kind: str) -> Iterator[Node]:
    return iter(nodes(_LANGUAGE, node, (kind,)))


def _string_body(node: Node) -> str:
    return string_body(_text(node))


class _File:
    def __init__(self, root: Node, path: str, sinks: Sequence[Sink], levels: frozenset[str],
                 tree_constants: Mapping[str, str]) -> None:
        self.path = path
        self.levels = levels
        self.constants = {**tree_constants, **_defines(root, tree_constants)}
        self.sinks: dict[str, Sink] = {}
        for sink in sinks:  # a project's sink (after the defaults) replaces a default of its name
            self.sinks[sink.name] = sink
        self.result = FileSites()
        self.dialect = PROJECT_PRINTF

    def pieces(self, node: Node, locals_: Mapping[str, str], style: str = "printf") -> list[Piece]:
        """The parts of a format expression, literal text still unread (see :meth:`message`)."""
        kind = node.type
        if kind == "string_literal":
            return [Text(_string_body(node))]
        if kind == "concatenated_string":
            return [piece for child in node.named_children for piece in self.pieces(child, locals_, style)]
        if kind == "identifier":
            name = _text(node)
            value = locals_.get(name, self.constants.get(name, _INTTYPES.get(name)))
            if value is not None:
                return [Text(value)]
            held = literal_choices(node)  # a local assigned only literals: one of them
            if held is not None and len(held) == 1:
                return [Text(held[0])]
            if held is not None:
                return [Choice(tuple(finish([Raw(text, style)]) for text in held))]
            return [Hole(name)]
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.pieces(node.named_children[0], locals_, style)
        if kind == "call_expression" and _text(node.child_by_field_name("function")) in I18N:
            wrapped = i18n_text(node)
            return self.pieces(wrapped, locals_, style) if wrapped is not None else [Hole(_text(node))]
        if kind == "conditional_expression":
            branches = [node.child_by_field_name(name) for name in ("consequence", "alternative")]
            options = [self.message(branch, locals_) for branch in branches if branch is not None]
            if len(options) == 2 and any(has_text(option) for option in options):
                return [Choice(tuple(options))]
        if kind == "subscript_expression" and (table := c_values.values(node)):  # a table of messages
            return [Choice(tuple(finish(Raw(p.text, "printf") if isinstance(p, Text) else p for p in option)
                                 for option in table))]
        return [Hole(_text(node))]

    def message(self, node: Node, locals_: Mapping[str, str], style: str = "printf") -> Template:
        """A format expression's template: adjacent literal text joined, then read as ``style``."""
        joined: list[Piece] = []
        for piece in self.pieces(node, locals_, style):
            if isinstance(piece, Text) and joined and isinstance(joined[-1], Text):
                joined[-1] = Text(joined[-1].text + piece.text)
            else:
                joined.append(piece)
        return finish(Raw(p.text, style) if isinstance(p, Text) else p for p in joined)

    def call(self, node: Node, locals_: Mapping[str, str]) -> None:
        sink = self.sinks.get(_text(node.child_by_field_name("function")))
        if sink is None:
            return
        args = _arguments(node)
        level = sink.level
        if sink.level_arg is not None and len(args) > sink.level_arg:
            level = _level_of(_text(args[sink.level_arg])) or sink.level
        level = level or "info"
        if level not in self.levels:
            return
        line = node.start_point[0] + 1
        too_large = oversized(node)
        if too_large is not None:
            self.result.skipped.append(Skipped(self.path, line, "too-large", too_large))
            return
        if len(args) <= sink.format_arg:
            self.result.skipped.append(Skipped(self.path, line, "no-literal", _text(node)[:80]))
            return
        fmt = args[sink.format_arg]
        project = sink.style == "printf" and sink not in _DEFAULT_SET  # the tree's own printf: its dialect
        template = self.message(fmt, locals_, self.dialect if project else sink.style)
        if not has_text(template):
            macro = fmt.type == "identifier" and _text(fmt).isupper()
            self.result.skipped.append(Skipped(self.path, line, "unresolved-constant" if macro else "no-literal",
                                               _text(fmt)[:80]))
            return
        function, guards = _context(node)
        template = join(collapse(fill_arguments(template, args[sink.format_arg + 1:], function)))
        if sink.prefix or sink.suffix:
            template = join([*_around(sink.prefix, function), *template, *_around(sink.suffix, function)])
        self.result.sites.append(Site(
            path=self.path, language="c", kind="log", line=line, end_line=node.end_point[0] + 1,
            template=template, level=level, error_class=sink.name, function=function, guards=guards))


def _around(text: str, function: str | None) -> list[Part]:
    """A sink's prefix or suffix as parts: printf text, ``{function}`` the calling function's name (a word
    when it is not known)."""
    out: list[Part] = []
    for number, piece in enumerate(text.split(c_macros.FUNCTION)):
        if number:
            out.append(Text(function) if function else Hole("__func__", "word"))
        out.extend(parts(piece, "printf"))
    return out


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [child for child in args.named_children if child.type != "comment"] if args is not None else []


def _level_of(text: str) -> str | None:
    named = [normal_level(name) for name in _LEVEL_NAME.findall(text)]
    found = [level for level in named if level is not None]
    return min(found, key=LEVELS.index) if found else None


def _function_name(definition: Node) -> str | None:
    node = definition.child_by_field_name("declarator")
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator")
    return _text(node) if node is not None else None


def _context(node: Node) -> tuple[str | None, tuple[str, ...]]:
    """The enclosing function and the guards down to ``node``, innermost last: if/else conditions, loops,
    ``case`` labels and preprocessor conditionals."""
    guards: list[str] = []
    child, parent = node, node.parent
    while parent is not None:
        kind = parent.type
        if kind == "if_statement":
            condition = " ".join(_text(parent.child_by_field_name("condition")).split())  # on one line
            condition = condition[1:-1].strip() if condition.startswith("(") else condition
            if parent.child_by_field_name("consequence") == child:
                guards.append(condition)
            elif child.type == "else_clause":
                guards.append(f"!({condition})")
        elif kind in ("while_statement", "do_statement"):
            guards.append(_text(parent.child_by_field_name("condition")).strip().removeprefix("(")
                          .removesuffix(")"))
        elif kind == "case_statement":
            value = parent.child_by_field_name("value")
            guards.append(f"case {_text(value)}" if value is not None else "default")
        elif kind in ("preproc_ifdef", "preproc_if", "preproc_elif"):
            head = _text(parent).split("\n", 1)[0].strip()
            if parent.child_by_field_name("alternative") != child:
                guards.append(head)
        elif kind == "function_definition":
            return _function_name(parent), tuple(reversed(guards))
        child, parent = parent, parent.parent
    return None, tuple(reversed(guards))


def _local_strings(body: Node, before: int, known: Mapping[str, str]) -> dict[str, str]:
    """``char *x = "..."`` (or ``const char x[] = ...``) declared in a function body before a byte offset."""
    found: dict[str, str] = {}
    for declarator in _walk(body, "init_declarator"):
        if declarator.start_byte >= before:
            break
        value = declarator.child_by_field_name("value")
        value = i18n_text(value) or value if value is not None else None  # char *s = _("...")
        if value is not None and value.type in ("string_literal", "concatenated_string"):
            text = macro_value(_text(value), known)
            name = declarator.child_by_field_name("declarator")
            while name is not None and name.type != "identifier":
                name = name.child_by_field_name("declarator")
            if text is not None and name is not None:
                found[_text(name)] = text
    return found


#: The node kinds the survey's readers search a whole file for (:func:`_defines`, :mod:`.c_sinks`,
#: :mod:`.c_macros`, :mod:`.c_printers`, :mod:`.c_dialect`).
_SURVEYED = ("preproc_def", "preproc_function_def", "function_declarator", "function_definition", "switch_statement")


class CFinder:
    """The C finder (see the module docstring)."""

    name = "c"
    extensions: tuple[str, ...] = (".c", ".h")
    default_sinks: tuple[Sink, ...] = DEFAULT_SINKS
    #: Every C site is a call of a sink: a file that names none is not parsed.
    site_words: tuple[bytes, ...] = ()

    def release(self, source: bytes) -> None:
        """Let go of what the constants pass kept for a file that is not searched for sites."""
        _TREES.drop(source)

    def survey(self, source: bytes) -> TreeFacts:
        """The file's string macros, its printf-like log functions and macros (:func:`c_sinks.declared`), its
        function-like macros and the functions that hand a text parameter on (:mod:`c_macros`), and its
        functions with a format parameter (:mod:`c_printers`)."""
        if b"#define" not in source and b"..." not in source and b"va_list" not in source and b"char" not in source:
            return TreeFacts()  # no macro, no function with a format or a text parameter: nothing to parse for
        root = _TREES.parse(source, keep=True).root_node
        prime(_LANGUAGE, root, _SURVEYED)  # one search for the kinds every reader below looks for
        macros = {**c_printers.forwarders(root), **c_macros.macros(root)}
        return TreeFacts(constants=_defines(root, {}), sinks=c_sinks.declared(root), macros=macros,
                         printers=c_printers.printers(root), dialects=c_dialect.learned(root))

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        tree: tree_sitter.Tree | None = None
        if all(sink in _DEFAULT_SET for sink in sinks):
            # no project sinks: the tree's own printf-like log functions are found by their declarations
            own = list(_tree_sinks(facts).values())
            if b"..." in source or b"#define" in source:
                tree = _TREES.parse(source)
                builders = _TREE_SINKS[0][2]
                own += (sink for sink in c_sinks.declared(tree.root_node).values() if sink.name not in builders)
                own += _file_macros(tree.root_node, facts).values()
            sinks = [*own, *sinks]
        if not any(sink.name.encode() in source for sink in sinks):
            return FileSites()  # no sink is named here: no site, and no need to parse
        tree = tree or _TREES.parse(source)
        state = _File(tree.root_node, path, sinks, levels, facts.constants)
        state.dialect = facts.dialects.get("printf", PROJECT_PRINTF)
        whole = _read_calls(state, tree.root_node, frozenset())
        chosen = {key: found for key, found in whole.items() if not found[0]}
        if len(chosen) < len(whole) or _sink_in_error(state, tree.root_node):  # read again in the variants
            for variant in c_recover.variants(source):
                try:
                    root = parse(_PARSER, variant).root_node
                except Unparsable:
                    continue
                for key, found in _read_calls(state, root, frozenset(chosen)).items():
                    if not found[0]:
                        chosen[key] = found
        recovered = sum(len(found[1].sites) for key, found in chosen.items() if found is not whole.get(key))
        for key, found in whole.items():
            chosen.setdefault(key, found)  # read in error in every tree: as the whole file's tree has it
        result = FileSites()
        for _key, (_, one) in sorted(chosen.items()):
            result.sites.extend(one.sites)
            result.skipped.extend(one.skipped)
        if recovered:
            result.parse_error = f"{first_error(tree.root_node)}; {recovered} site(s) recovered"
        else:
            result.parse_error = broken(tree.root_node)
        return result


_CALLED = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _sink_in_error(state: _File, root: Node) -> bool:
    """Whether an error node of the tree names a sink before a ``(``: a call the parse did not read as one."""
    if not root.has_error:
        return False
    for error in _walk(root, "ERROR"):
        if any(name.decode("utf-8", "replace") in state.sinks for name in _CALLED.findall(error.text or b"")):
            return True
    return False


def _read_calls(state: _File, root: Node, done: frozenset[tuple[int, int]]
                ) -> dict[tuple[int, int], tuple[bool, FileSites]]:
    """Each sink call under ``root`` but those at ``done`` read; by the call's (line, column): whether it was
    read in error (:func:`c_recover.misread`), and what it gave (sites and skips)."""
    found: dict[tuple[int, int], tuple[bool, FileSites]] = {}
    for call in _walk(root, "call_expression"):
        key = (call.start_point[0], call.start_point[1])
        sink = state.sinks.get(_text(call.child_by_field_name("function")))
        if sink is None or key in done:
            continue
        args = _arguments(call)
        fmt = args[sink.format_arg] if len(args) > sink.format_arg else None
        # local strings are looked up only for a format that names a variable (a walk of the body)
        body = _enclosing_body(call) if fmt is not None and fmt.type == "identifier" else None
        locals_ = _local_strings(body, call.start_byte, state.constants) if body is not None else {}
        state.result = FileSites()
        state.call(call, locals_)
        found[key] = (c_recover.misread(call), state.result)
    return found


#: The sinks of the last tree seen (its facts, what they give, and the macros that build strings): a harvest
#: hands every file the same facts.
_TREE_SINKS: list[tuple[TreeFacts, dict[str, Sink], frozenset[str]]] = []


def _tree_sinks(facts: TreeFacts) -> dict[str, Sink]:
    """The tree's own sinks: its printf-like log functions and log macros found by their names
    (:mod:`c_sinks`, :func:`c_macros.printer_sinks`), and its macros that reach a sink (:mod:`c_macros`),
    which win."""
    if _TREE_SINKS and _TREE_SINKS[0][0] is facts:
        return _TREE_SINKS[0][1]
    declared = {**c_macros.printer_sinks(facts.printers), **facts.sinks}
    known = {**{sink.name: sink for sink in DEFAULT_SINKS}, **declared}
    resolved = c_macros.resolve(facts.macros, facts.printers, known)
    found = {name: sink for name, sink in {**declared, **resolved}.items() if sink is not None}
    _TREE_SINKS[:] = [(facts, found, frozenset(name for name, sink in resolved.items() if sink is None))]
    return found


def _file_macros(root: Node, facts: TreeFacts) -> dict[str, Sink]:
    """The sinks among the file's own macros that differ from the tree's macro of their name."""
    own = {name: macro for name, macro in c_macros.macros(root).items() if facts.macros.get(name) != macro}
    if not own:
        return {}
    known = {**{sink.name: sink for sink in DEFAULT_SINKS}, **_tree_sinks(facts)}
    resolved = c_macros.resolve({**facts.macros, **own}, facts.printers, known, own)
    return {name: sink for name, sink in resolved.items() if sink is not None}


def _enclosing_body(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        parent = parent.parent
    return parent.child_by_field_name("body") if parent is not None else None


FINDER = CFinder()
