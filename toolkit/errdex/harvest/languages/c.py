"""C: calls of the printf family and of a project's own printf-like sinks.

A call ``NAME(..., fmt, ...)`` of a sink is a site when its format argument (``Sink.format_arg``) is built
from string literals: adjacent literals concatenated, macros ``#define NAME "text"`` and ``#define NAME "a"
OTHER "b"`` of the same file or of the tree's headers (:meth:`CFinder.constants`), the ``<inttypes.h>``
macros (``PRIu64``...), i18n wrappers (``_()``, ``gettext()``, ``N_()``), a ternary of literals (a Choice),
and a local ``char *fmt = "..."`` earlier in the function. The format is read as printf. An argument that
is ``__func__`` prints the function's name: its conversion's hole is shaped ``word``.

The level of a sink with ``level_arg`` is read from that argument's ``LOG_*`` / ``SYSLOG_LEVEL_*`` names
(the most severe one named, for a conditional level); when none can be read, the sink's ``level`` is used.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache

import tree_sitter
import tree_sitter_c

from errdex.harvest.languages import FileSites, c_sinks
from errdex.harvest.languages._shared import Piece, Raw, broken, finish, has_text, nodes, unescape
from errdex.harvest.sinks import LEVELS, Sink, normal_level
from errdex.harvest.sites import Choice, Hole, Part, Site, Skipped, Template, Text

__all__ = ["DEFAULT_SINKS", "FINDER", "CFinder", "macro_value"]

_LANGUAGE = tree_sitter.Language(tree_sitter_c.language())
_PARSER = tree_sitter.Parser(_LANGUAGE)
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

_FUNC_NAMES = frozenset({"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"})
_I18N = frozenset({"_", "gettext", "N_", "dgettext", "ngettext"})
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
    raw = _text(node)
    return unescape(raw[raw.index('"') + 1:raw.rindex('"')]) if raw.count('"') >= 2 else ""


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

    def pieces(self, node: Node, locals_: Mapping[str, str]) -> list[Piece]:
        """The parts of a format expression, literal text still unread (see :meth:`message`)."""
        kind = node.type
        if kind == "string_literal":
            return [Text(_string_body(node))]
        if kind == "concatenated_string":
            return [piece for child in node.named_children for piece in self.pieces(child, locals_)]
        if kind == "identifier":
            name = _text(node)
            value = locals_.get(name, self.constants.get(name, _INTTYPES.get(name)))
            return [Text(value)] if value is not None else [Hole(name)]
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.pieces(node.named_children[0], locals_)
        if kind == "call_expression" and _text(node.child_by_field_name("function")) in _I18N:
            args = _arguments(node)
            return self.pieces(args[0], locals_) if args else [Hole(_text(node))]
        if kind == "conditional_expression":
            branches = [node.child_by_field_name(name) for name in ("consequence", "alternative")]
            options = [self.message(branch, locals_) for branch in branches if branch is not None]
            if len(options) == 2 and any(has_text(option) for option in options):
                return [Choice(tuple(options))]
        return [Hole(_text(node))]

    def message(self, node: Node, locals_: Mapping[str, str], style: str = "printf") -> Template:
        """A format expression's template: adjacent literal text joined, then read as ``style``."""
        joined: list[Piece] = []
        for piece in self.pieces(node, locals_):
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
        if len(args) <= sink.format_arg:
            self.result.skipped.append(Skipped(self.path, line, "no-literal", _text(node)[:80]))
            return
        fmt = args[sink.format_arg]
        template = self.message(fmt, locals_, sink.style)
        if not has_text(template):
            macro = fmt.type == "identifier" and _text(fmt).isupper()
            self.result.skipped.append(Skipped(self.path, line, "unresolved-constant" if macro else "no-literal",
                                               _text(fmt)[:80]))
            return
        template = _collapse(_fill_arguments(template, args[sink.format_arg + 1:]))
        function, guards = _context(node)
        self.result.sites.append(Site(
            path=self.path, language="c", kind="log", line=line, end_line=node.end_point[0] + 1,
            template=template, level=level, error_class=sink.name, function=function, guards=guards))


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [child for child in args.named_children if child.type != "comment"] if args is not None else []


def _level_of(text: str) -> str | None:
    named = [normal_level(name) for name in _LEVEL_NAME.findall(text)]
    found = [level for level in named if level is not None]
    return min(found, key=LEVELS.index) if found else None


_STRING_CONVERSION = re.compile(r"%(?:\.([0-9]+))?s")


def _fill_arguments(template: Template, args: Sequence[Node]) -> Template:
    """Holes whose argument is known: ``__func__`` prints a function's name (a word); a ``%s`` fed a string
    literal, a ternary of literals or a local variable only ever assigned literals prints those (Text or a
    Choice). Matched to the arguments only when there is one argument per hole (no ``*`` width, no Choice
    in the format)."""
    holes = [i for i, part in enumerate(template) if isinstance(part, Hole)]
    if any(isinstance(part, Choice) for part in template) or len(holes) != len(args):
        return template
    out: list[Part] = list(template)
    for index, arg in zip(holes, args, strict=True):
        part = out[index]
        if not isinstance(part, Hole):  # holes holds the indexes of Holes only
            continue
        if _text(arg) in _FUNC_NAMES:
            out[index] = Hole(part.source, "word")
            continue
        conversion = _STRING_CONVERSION.fullmatch(part.source)
        if conversion is None:
            continue
        options = _string_values(arg, 0)
        if options is None:
            continue
        limit = int(conversion.group(1)) if conversion.group(1) else None
        cut = [tuple(Text(p.text[:limit]) if isinstance(p, Text) and limit is not None else p for p in o)
               for o in options]
        unique = tuple(dict.fromkeys(() if o == (Text(""),) else o for o in cut))
        out[index] = Choice(unique) if len(unique) > 1 else (unique[0][0] if unique[0] else Text(""))
        if len(unique) == 1 and len(unique[0]) > 1:
            out[index] = Choice(unique)
    return tuple(part for part in out if part != Text(""))


def _optional(part: Part) -> bool:
    return isinstance(part, Choice) and () in part.options


def _collapse(template: Template) -> Template:
    """A hole, then only optional parts (choices that may print nothing), then a hole or an optional part
    holding one, is one hole: nothing required tells them apart (``%s%s%s`` of ``method, submethod ? "/" :
    "", submethod ? submethod : ""``), and a pattern with two holes there backtracks."""
    out: list[Part] = []
    index = 0
    while index < len(template):
        part = template[index]
        end = index
        if isinstance(part, Hole):
            scan = index + 1
            while scan < len(template) and (_optional(template[scan]) or isinstance(template[scan], Hole)):
                scan += 1
            holding = [i for i in range(index + 1, scan) if _holds_hole(template[i])]
            end = holding[-1] if holding else index
        if end > index:
            out.append(Hole("".join(_source(p) for p in template[index:end + 1])))
            index = end + 1
            continue
        out.append(part)
        index += 1
    return tuple(out)


def _holds_hole(part: Part) -> bool:
    if isinstance(part, Choice):
        return any(_holds_hole(p) for option in part.options for p in option)
    return isinstance(part, Hole)


def _source(part: Part) -> str:
    if isinstance(part, Text):
        return part.text
    if isinstance(part, Hole):
        return part.source
    longest = max(part.options, key=lambda option: len("".join(_source(p) for p in option)))
    return "".join(_source(p) for p in longest)


def _string_values(node: Node, depth: int) -> list[tuple[Part, ...]] | None:
    """What a string argument can print: each literal it can be, a Hole for a branch that is not one; None
    when nothing about it is literal."""
    if depth > 4:
        return None
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _string_values(node.named_children[0], depth + 1)
    if node.type == "string_literal":
        return [(Text(_string_body(node)),)]
    if node.type == "conditional_expression":
        options: list[tuple[Part, ...]] = []
        for field in ("consequence", "alternative"):
            branch = node.child_by_field_name(field)
            if branch is None:
                return None
            values = _string_values(branch, depth + 1)
            options.extend(values if values is not None else [(Hole(_text(branch)),)])
        return options if any(o and isinstance(o[0], Text) for o in options) else None
    if node.type == "identifier":
        return _assigned_values(node, depth)
    return None


def _assigned_values(node: Node, depth: int) -> list[tuple[Part, ...]] | None:
    """The literals a local variable is assigned in its function (every assignment must be one); None for a
    parameter, a variable assigned anything else, or one never assigned."""
    definition = node.parent
    while definition is not None and definition.type != "function_definition":
        definition = definition.parent
    if definition is None:
        return None
    name = _text(node)
    declarator = definition.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if parameters is not None and any(_text(i) == name for i in _walk(parameters, "identifier")):
        return None
    options: list[tuple[Part, ...]] = []
    for value in _assignments(definition).get(name, ()):
        values = _string_values(value, depth + 1) if value is not None else None
        if values is None or any(not o or not isinstance(o[0], Text) for o in values):
            return None
        options.extend(values)
    return options or None


@lru_cache(maxsize=64)
def _assignments(definition: Node) -> dict[str, list[Node | None]]:
    """Each name a function assigns or initialises -> the values (None: declared without one counts not)."""
    found: dict[str, list[Node | None]] = {}
    body = definition.child_by_field_name("body")
    for assignment in nodes(_LANGUAGE, body, ("assignment_expression", "init_declarator")) if body else ():
        plain = assignment.type == "assignment_expression"
        target = assignment.child_by_field_name("left" if plain else "declarator")
        while target is not None and target.type == "pointer_declarator":
            target = target.child_by_field_name("declarator")
        if target is not None:
            found.setdefault(_text(target), []).append(assignment.child_by_field_name("right" if plain else "value"))
    return found


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
            condition = _text(parent.child_by_field_name("condition")).strip()
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
        if value is not None and value.type in ("string_literal", "concatenated_string"):
            text = macro_value(_text(value), known)
            name = declarator.child_by_field_name("declarator")
            while name is not None and name.type != "identifier":
                name = name.child_by_field_name("declarator")
            if text is not None and name is not None:
                found[_text(name)] = text
    return found


class CFinder:
    """The C finder (see the module docstring)."""

    name = "c"
    extensions: tuple[str, ...] = (".c", ".h")
    default_sinks: tuple[Sink, ...] = DEFAULT_SINKS

    def constants(self, source: bytes) -> dict[str, str]:
        if b"#define" not in source and b"..." not in source:
            return {}  # neither a macro nor a variadic function: nothing to parse for
        root = _PARSER.parse(source).root_node
        return {**_defines(root, {}), **c_sinks.declared(root)}

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             constants: Mapping[str, str]) -> FileSites:
        tree: tree_sitter.Tree | None = None
        if all(sink in DEFAULT_SINKS for sink in sinks):
            # no project sinks: the tree's own printf-like log functions are found by their declarations
            own = c_sinks.sinks_of(constants)
            if b"..." in source:
                tree = _PARSER.parse(source)
                own += c_sinks.sinks_of(c_sinks.declared(tree.root_node))
            sinks = [*own, *sinks]
        if not any(sink.name.encode() in source for sink in sinks):
            return FileSites()  # no sink is named here: no site, and no need to parse
        tree = tree or _PARSER.parse(source)
        state = _File(tree.root_node, path, sinks, levels, constants)
        state.result.parse_error = broken(tree.root_node)
        for call in _walk(tree.root_node, "call_expression"):
            sink = state.sinks.get(_text(call.child_by_field_name("function")))
            if sink is None:
                continue
            args = _arguments(call)
            fmt = args[sink.format_arg] if len(args) > sink.format_arg else None
            # local strings are looked up only for a format that names a variable (a walk of the body)
            body = _enclosing_body(call) if fmt is not None and fmt.type == "identifier" else None
            locals_ = _local_strings(body, call.start_byte, state.constants) if body is not None else {}
            state.call(call, locals_)
        return state.result


def _enclosing_body(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        parent = parent.parent
    return parent.child_by_field_name("body") if parent is not None else None


FINDER = CFinder()
