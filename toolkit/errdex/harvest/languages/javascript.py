"""JavaScript and TypeScript: throws, Error subclasses' messages, and console and logger calls.

Sites: ``throw new X(message)`` and ``throw X(message)``; ``super(message)`` in the constructor of a class
that extends an error class (the message a ``throw new XError(...)`` elsewhere writes is built there: the
site is where its text is); log calls through ``console`` and logger objects (``logger.error``,
``this.log.warn``; pino and winston style ``logger.error({obj}, "message")``: the message is the first
argument that writes text). A log call with arguments after its message is read as a ``util.format``
format (``%s``, ``%d``); ``console`` writes the arguments its format does not take after it, space-separated.
In a file that requires npmlog or proc-log, ``log.verbose("title", message, ...)`` writes the title, a space,
then the rest as ``console`` would (npm's debug log: ``12 verbose title npm install``), at npm's levels too
(``notice``, ``verbose``, ``http``, ``silly``, ``timing``).

Messages are read from string literals, ``+`` concatenation, template literals (nested; a conditional
``${cond ? `text` : ""}`` is a :class:`~errdex.harvest.sites.Choice`), i18n wrappers (``t()``, ``_()``,
``i18n.t()``) and names: a ``const NAME = "..."`` of the file, or a local variable assigned earlier in the
same function (``msg = `${msg} (dry-run)``` reads the value before; an assignment in a branch the call is not
in is a choice of both values), and what a called function or method of the tree returns, by name (learned
by :meth:`JavaScriptFinder.survey`). The TypeScript finder reads ``.tsx`` files with the TSX grammar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from errdex.harvest.formats import formatted, join
from errdex.harvest.languages import FileSites, Raiser, TreeFacts
from errdex.harvest.languages._jscontext import (
    assigned_values,
    conditional,
    declared_shape,
    enclosing_function,
    guards,
    is_parameter,
    returned,
)
from errdex.harvest.languages._jsraisers import forwards, raisers
from errdex.harvest.languages._jssinks import (
    I18N,
    TITLED,
    debuggers,
    default_sinks,
    is_title,
    made_loggers,
    method_level,
    sink_for,
    site_query,
    unescape,
    writes_text,
)
from errdex.harvest.languages._pyreturns import pick
from errdex.harvest.languages._tree import (
    KeptTrees,
    compact,
    first_error,
    merged_sinks,
    oversized,
    plus_operands,
    text,
)
from errdex.harvest.pattern import has_literal
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Choice, Hole, Part, Site, SiteKind, Skipped, Template, Text

__all__ = ["FINDERS", "JavaScriptFinder"]

Node = tree_sitter.Node

_MAX_DEPTH = 8
#: Methods of JavaScript's own values: a call of one is never a function of the tree of that name.
_BUILTIN_METHODS = frozenset({"toString", "join", "trim", "slice", "map", "replace", "replaceAll", "format",
                              "toLowerCase", "toUpperCase", "padStart", "padEnd", "substring", "concat", "get",
                              "toFixed", "toISOString", "stringify", "inspect", "repeat", "filter", "split"})
_WRAPPERS = ("parenthesized_expression", "as_expression", "non_null_expression", "satisfies_expression")

_LANGUAGES = {
    "javascript": tree_sitter.Language(tree_sitter_javascript.language()),
    "typescript": tree_sitter.Language(tree_sitter_typescript.language_typescript()),
    "tsx": tree_sitter.Language(tree_sitter_typescript.language_tsx()),
}



def _is_error_class(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.endswith(("Error", "Exception", "Fault"))


class _File:
    """One file being read: its module constants and the sinks asked for."""

    def __init__(self, root: Node, path: str, language: str, sinks: Sequence[Sink], levels: frozenset[str],
                 constants: Mapping[str, str], returns: Mapping[str, Sequence[Template]] | None = None,
                 tree_raisers: Mapping[str, Sequence[Raiser]] | None = None) -> None:
        self.path, self.language, self.levels, self.sinks, self.shared = path, language, levels, sinks, constants
        self.root = root
        #: What the tree's functions return, by name (:meth:`JavaScriptFinder.survey`); the file's own when asked.
        self.tree_returns: Mapping[str, Sequence[Template]] = returns or {}
        self._own_returns: dict[str, list[Template]] | None = None
        self.constants: dict[str, Node] = {}
        for statement in root.children:
            declaration = statement.child_by_field_name("declaration") if statement.type == "export_statement" \
                else statement
            if declaration is not None and declaration.type == "lexical_declaration" \
                    and text(declaration.children[0]) == "const":
                for declarator in declaration.named_children:
                    name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                    if declarator.type == "variable_declarator" and name is not None and value is not None \
                            and name.type == "identifier":
                        self.constants[text(name)] = value
        source = root.text or b""
        self.loggers = made_loggers(root, _LANGUAGES[language])
        #: Names bound to a ``debug`` module logger (``const debug = require("debug")("app:db")``) or to Node's
        #: ``util.debuglog("db")``: called as functions, they log at debug.
        self.debuggers = debuggers(root, _LANGUAGES[language]) if b"debug" in source else frozenset()
        #: The file logs through npmlog or proc-log, whose ``log.verbose(title, message...)`` writes the title,
        #: a space and ``util.format`` of the rest (pino and winston style loggers do not append the rest).
        self.titled = any(f"{quote}{name}{quote}".encode() in source for name in TITLED for quote in "'\"")
        self.found = FileSites()
        #: Messages not harvested, with the class built; kept unless the file's own class writes the text.
        self.unexplained: list[tuple[str, Skipped]] = []
        #: Error classes whose constructor writes the message (``super(`...`)``): their throws are not skips.
        self.writers: set[str] = set()
        #: Functions that throw for their callers (:mod:`._jsraisers`): the file's own, then the tree's that agree.
        self.own_raisers = raisers(root) if b"throw" in source or b"return" in source else {}
        self.raisers: dict[str, Raiser] = dict(self.own_raisers)
        for called, known in (tree_raisers or {}).items():
            if called not in self.raisers and len({(r.position, r.parameter) for r in known}) == 1:
                self.raisers[called] = known[0]

    # --- messages -------------------------------------------------------------------------------------

    def message(self, node: Node, depth: int = 0) -> tuple[Part, ...]:
        """The parts an expression writes; a Hole for what is not known."""
        kind = node.type
        if depth <= _MAX_DEPTH:
            if kind == "string":
                return join(Text(text(c) if c.type == "string_fragment" else unescape(text(c)))
                            for c in node.named_children)
            if kind == "template_string":
                return self.template(node, depth)
            if kind in _WRAPPERS and node.named_child_count:
                return self.message(node.named_children[0], depth + 1)
            operands = plus_operands(node, "binary_expression") if kind == "binary_expression" else None
            if operands is not None:
                return join(part for operand in operands for part in self.message(operand, depth + 1))
            if kind == "ternary_expression":
                choice = self.choice(node, depth)
                if choice is not None:
                    return (choice,)
            if kind == "call_expression":
                function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
                if function is not None and args is not None and text(function) in I18N and args.named_children:
                    return self.message(args.named_children[0], depth + 1)
                if function is not None and args is not None and args.named_children \
                        and text(function) in ("util.format", "require('util').format"):
                    message, *after = [a for a in args.named_children if a.type != "comment"]
                    return self.formatted(message, after, depth=depth + 1)
                called = self.called(function)
                if called is not None:
                    return called
            if kind == "identifier":
                return self.named(node, depth)
        return (Hole("${" + compact(node) + "}"),)

    def formatted(self, message: Node, after: Sequence[Node], style: str = "util-format", *, appends: bool = True,
                  depth: int = 0) -> Template:
        """``message`` as a format given the arguments ``after`` (none: the text as it is), with the arguments
        its conversions do not take written after it, each after a space, when ``appends``."""
        template = join(self.message(message, depth))
        if after:
            template = formatted(template, style)
        if appends:
            left = len(after) - sum(isinstance(p, Hole) and p.source.startswith("%") for p in template)  # conversions
            template = join([*template, *(part for extra in after[len(after) - left:] if left > 0
                                          for part in (Text(" "), Hole("${" + compact(extra) + "}")))])
        return template

    def called(self, function: Node | None) -> Template | None:
        """What a call of a function or method of the tree returns (``log.error("", this.npm.exitErrorMessage())``:
        the templates of its ``return`` statements, several as a choice); None when unknown or ambiguous."""
        if function is None or function.type not in ("identifier", "member_expression"):
            return None
        name = text(function).rsplit(".", 1)[-1]
        if name in _BUILTIN_METHODS:
            return None
        return pick(name, self.own_returns(), self.tree_returns)

    def own_returns(self) -> Mapping[str, Sequence[Template]]:
        """Function name -> the distinct templates the file's functions of that name return (a return with no
        literal text of its own left out)."""
        if self._own_returns is None:
            self._own_returns = {}  # a function calling itself reads this while it is built: unknown
            found = returned(self.root, lambda value: () if oversized(value) else join(self.message(value, 1)))
            self._own_returns = found
        return self._own_returns

    def template(self, node: Node, depth: int) -> tuple[Part, ...]:
        out: list[Part] = []
        for child in node.named_children:
            if child.type == "string_fragment":
                out.append(Text(text(child)))
            elif child.type == "escape_sequence":
                out.append(Text(unescape(text(child))))
            elif child.type == "template_substitution" and child.named_child_count:
                out.extend(self.message(child.named_children[0], depth + 1))
        return join(out)

    def choice(self, node: Node, depth: int) -> Choice | None:
        """``cond ? a : b`` as one of its branches, when a branch writes literal text."""
        branches = [node.child_by_field_name("consequence"), node.child_by_field_name("alternative")]
        if any(b is None for b in branches):
            return None
        options = tuple(self.message(b, depth + 1) for b in branches if b is not None)
        if not any(any(isinstance(p, (Text, Choice)) for p in o) for o in options):
            return None
        return Choice(options)

    def resolve(self, name: Node) -> Node | Template | None:
        """What a name holds: a literal assigned to it earlier in its function, or a file's ``const``."""
        assigned = assigned_values(name)
        if assigned:
            return assigned[-1]
        wanted = text(name)
        if wanted in self.constants:
            return self.constants[wanted]
        if wanted in self.shared:
            return join([Text(self.shared[wanted])])
        return None

    def named(self, node: Node, depth: int) -> tuple[Part, ...]:
        """What a name writes: its last value before it; when that assignment is conditional (in an ``if`` the
        name is not in: ``if (dryRun) msg = `${msg} (dry-run)```), a choice of it and the value before it."""
        assigned = assigned_values(node)
        if len(assigned) > 1 and conditional(assigned[-1], node):
            return (Choice((self.message(assigned[-2], depth + 1), self.message(assigned[-1], depth + 1))),)
        value = self.resolve(node)
        if value is not None:
            return value if isinstance(value, tuple) else self.message(value, depth + 1)
        return (Hole("${" + compact(node) + "}", declared_shape(node)),)

    # --- sites ----------------------------------------------------------------------------------------

    def add(self, node: Node, statement: Node, kind: SiteKind, message: Node, *, level: str | None,
            error_class: str, after: Sequence[Node] = (), appends: bool = False, style: str = "util-format",
            title: Node | None = None) -> None:
        """A site writing ``message``; ``after``: the arguments that follow it, which ``util.format`` reads
        into the message's conversions; ``appends``: the rest are written after it, each after a space
        (``console.error("failed:", err)``); ``title``: written first, then a space, unless it is empty
        (npmlog's and proc-log's ``log.verbose("title", message)``)."""
        line = statement.start_point.row + 1
        too_large = oversized(node)
        if too_large is not None:
            self.found.skipped.append(Skipped(self.path, line, "too-large", too_large))
            return
        template = self.formatted(message, after, style, appends=appends)
        if title is not None:
            heading = join(self.message(title))
            if heading:
                template = join([*heading, Text(" "), *template])
        if not has_literal(template):
            lone_name = message.type == "identifier" and self.resolve(message) is None \
                and not is_parameter(message)
            skip = Skipped(self.path, line, "unresolved-constant" if lone_name else "no-literal", text(message)[:200])
            self.unexplained.append((error_class, skip))
            return
        self.found.sites.append(Site(
            path=self.path, language=self.language, kind=kind, line=line,
            end_line=statement.end_point.row + 1, template=template, level=level, error_class=error_class,
            function=enclosing_function(node), guards=guards(node)))

    def throw_site(self, node: Node) -> None:
        if not node.named_children:
            return
        built = node.named_children[0]
        if built.type == "new_expression":
            callee = built.child_by_field_name("constructor")
        elif built.type == "call_expression":
            callee = built.child_by_field_name("function")
        else:
            return
        args = built.child_by_field_name("arguments")
        if callee is None or args is None or not args.named_children:
            return
        if forwards(node, args.named_children[0], self.own_raisers):
            # ``fail(message) { throw new SyntaxError(message) }``: its callers' calls are the sites
            self.unexplained.append((text(callee), Skipped(self.path, node.start_point.row + 1, "no-literal",
                                                           text(args.named_children[0])[:200])))
            return
        maker = self.raisers.get(text(callee).rsplit(".", 1)[-1]) if built.type == "call_expression" else None
        error_class = maker.error_class if maker is not None and maker.returns else text(callee)
        self.add(node, node, "throw", args.named_children[0], level=None, error_class=error_class)

    def raiser_site(self, node: Node, raiser: Raiser) -> None:
        """A call of a raiser (``this.fail("Unexpected token")``): a throw site at the call's statement."""
        args = node.child_by_field_name("arguments")
        positional = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if raiser.position >= len(positional) or forwards(node, positional[raiser.position], self.own_raisers):
            return
        statement = node.parent if node.parent is not None and node.parent.type == "expression_statement" else node
        self.add(node, statement, "throw", positional[raiser.position], level=None, error_class=raiser.error_class)

    def value_site(self, node: Node) -> None:
        """``new XError(message)`` not thrown where it is built (rejected, returned, given to a callback)."""
        callee, args = node.child_by_field_name("constructor"), node.child_by_field_name("arguments")
        parent = node.parent
        if callee is None or args is None or not args.named_children or not _is_error_class(text(callee)) \
                or (parent is not None and parent.type == "throw_statement"):
            return
        self.add(node, node, "return-error", args.named_children[0], level=None,
                 error_class=text(callee))

    def super_site(self, node: Node) -> None:
        """``super(message)`` in the constructor of an error class."""
        args = node.child_by_field_name("arguments")
        owner = node.parent
        while owner is not None and owner.type not in ("class_declaration", "class", "abstract_class_declaration"):
            owner = owner.parent
        if args is None or not args.named_children or owner is None:
            return
        heritage = next((c for c in owner.children if c.type == "class_heritage"), None)
        parent = text(heritage).removeprefix("extends").strip().split()[0] if heritage is not None else ""
        name = owner.child_by_field_name("name")
        if not (_is_error_class(parent.split("<")[0]) or (name is not None and _is_error_class(text(name)))):
            return
        statement = node.parent if node.parent is not None and node.parent.type == "expression_statement" else node
        self.writers.add(text(name) if name is not None else parent)
        self.add(node, statement, "throw", args.named_children[0], level=None,
                 error_class=text(name) if name is not None else parent)

    def call_site(self, node: Node) -> None:
        function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or args is None:
            return
        callee = text(function)
        sink = Sink("debug", level="debug", style="plain") if callee in self.debuggers \
            else sink_for(self.sinks, callee, self.loggers)
        if sink is None:
            raiser = self.raisers.get(callee.rsplit(".", 1)[-1])
            if raiser is not None and not raiser.returns and node.parent is not None \
                    and node.parent.type == "expression_statement":
                self.raiser_site(node, raiser)
            return
        positional = [a for a in args.named_children if a.type != "comment"]
        level = sink.level
        if callee.endswith(".log") and not callee.startswith("console.") and len(positional) > 1 \
                and positional[0].type == "string" and normal_level(text(positional[0]).strip("'\"")):
            # winston's logger.log("warn", message, ...): the level, then the message
            level, positional = normal_level(text(positional[0]).strip("'\"")), positional[1:]
            sink = Sink("log", level=level, style="plain")
        if sink.level_arg is not None:
            if sink.level_arg >= len(positional):
                return
            level = normal_level(text(positional[sink.level_arg]).strip("'\"`").rsplit(".", 1)[-1])
        if level is None or level not in self.levels:
            return
        index = sink.format_arg
        if sink.name.startswith("logger."):  # pino/winston: an object first, the message after it
            index = next((i for i, a in enumerate(positional) if writes_text(a)), len(positional))
        if index >= len(positional):
            return
        named = sink.name.startswith("logger.") and sink.level_arg is None
        console = callee.startswith("console.")
        title = positional[0] if self.titled and named and not console and index == 0 and is_title(positional) \
            else None
        if title is not None:
            index = 1
        statement = node.parent if node.parent is not None and node.parent.type == "expression_statement" else node
        self.add(node, statement, "log", positional[index], after=positional[index + 1:], title=title,
                 appends=console or title is not None or callee in self.debuggers,
                 style="util-format" if sink.style == "plain" else sink.style,
                 level=method_level(callee, level) if named else level,
                 error_class=callee.rsplit(".", 1)[0] if "." in callee else callee)


class JavaScriptFinder:
    """Finds throw and log sites in JavaScript (``language="javascript"``) or TypeScript files."""

    def __init__(self, language: str, extensions: tuple[str, ...]) -> None:
        self.name = language
        self.extensions = extensions
        self.default_sinks: tuple[Sink, ...] = default_sinks()
        #: One parser per grammar, keeping the trees the survey parses for the sites pass (:class:`KeptTrees`).
        self._trees = {name: KeptTrees(tree_sitter.Parser(lang)) for name, lang in _LANGUAGES.items()}

    #: The first pass learns what the tree's functions return (its constants resolve within the file).
    offers_constants = True
    #: A site is a call of a sink, or one of the query's (:func:`_query`) throw, super(...) and new nodes.
    site_words: tuple[bytes, ...] = (b"throw", b"super", b"new")

    def release(self, source: bytes) -> None:
        """Let go of the tree the survey kept for a file that is not searched for sites."""
        self._trees[self.name].drop(source)

    def survey(self, source: bytes, path: str = "") -> TreeFacts:
        """The messages the file's functions return, by name (``this.npm.exitErrorMessage()`` in another
        file); a ``const`` resolves within its file."""
        if b"return" not in source and b"=>" not in source and b"throw" not in source:
            return TreeFacts()
        root = self._trees[self.name].parse(source, keep=True).root_node  # a .tsx file: read as TypeScript here
        file = _File(root, path, self.name, (), frozenset(), {})
        return TreeFacts(returns={name: list(found) for name, found in file.own_returns().items()},
                         raisers={name: [raiser] for name, raiser in file.own_raisers.items()})

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        grammar = "tsx" if self.name == "typescript" and path.lower().endswith(".tsx") else self.name
        if grammar != self.name:
            self.release(source)  # the survey read it with the TypeScript grammar
        tree = self._trees[grammar].parse(source)
        root = tree.root_node
        wanted = merged_sinks(self.default_sinks, sinks)
        file = _File(root, path, self.name, wanted, levels, facts.constants, facts.returns, facts.raisers)
        if root.has_error:
            file.found.parse_error = first_error(root)
        throwers = frozenset(name for name, raiser in file.raisers.items() if not raiser.returns)
        query = site_query(_LANGUAGES[grammar], frozenset(s.name.rsplit(".", 1)[-1] for s in wanted) | file.debuggers
                           | throwers)
        captures = tree_sitter.QueryCursor(query).captures(root)
        found = [(n, k) for k in ("throw", "super", "new", "call") for n in captures.get(k, [])]
        readers = {"throw": file.throw_site, "super": file.super_site, "new": file.value_site,
                   "call": file.call_site}
        for node, what in sorted(found, key=lambda item: item[0].start_byte):
            readers[what](node)
        file.found.skipped.extend(skip for built, skip in file.unexplained if built not in file.writers)
        file.found.sites.sort(key=lambda s: (s.line, s.end_line))
        return file.found



FINDERS: dict[str, JavaScriptFinder] = {
    "javascript": JavaScriptFinder("javascript", (".js", ".mjs", ".cjs", ".jsx")),
    "typescript": JavaScriptFinder("typescript", (".ts", ".tsx", ".mts", ".cts")),
}
