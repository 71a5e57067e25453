"""C sinks that are preprocessor macros, read from the tree's own ``#define``s with no configuration.

A function-like macro is a sink when its body (a call, ``if (...) call(...)``, ``do { ... } while (0)``) calls
a sink, a default one (``fprintf``), one found by its declaration (:mod:`c_sinks`), another macro that is one,
or a printf-like function of the tree (:mod:`c_printers`) whose name or the macro's reads as logging, and hands
the call's format on from its own parameters. Then, with ``a`` the call's arguments:

- the format: ``a[format]`` is the macro's parameter ``P`` (its index), or lies at or after ``__VA_ARGS__``
  (the index of the variadic parameter plus the distance); ``"x: " P "!"`` makes ``x: `` a prefix and ``!`` a
  suffix;
- the level: ``a[level]`` is the macro's parameter (the level is then read at each call, as
  ``serverLog(LL_WARNING, ...)``), else the level constant the body writes (``SYSLOG_LEVEL_ERROR``,
  ``NGX_LOG_DEBUG``), else the level the macro's name says (``debug3_f``), else the called sink's;
- the prefix and suffix: the called macro's, and what the called function prints around the message
  (:func:`c_printers.arounds`) when the macro's arguments switch it on (a flag other than the literal ``0``,
  a suffix other than ``NULL``): an argument ``__func__`` prints ``{function}``, the name of the function that
  calls the macro; a string literal its text; anything else a ``%s``.

What a callee appends without those rules (nginx's `` (%d: %s)`` of an errno, the ``, client: ...`` its log
handler adds) is not part of the template: a pattern is found anywhere in a line, so text after it does not
stop a match.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import tree_sitter
import tree_sitter_c
from tree_sitter import Node

from errdex.harvest.languages import Macro, Printer
from errdex.harvest.languages._shared import nodes, unescape
from errdex.harvest.languages.c_printers import arounds, builds_by_name
from errdex.harvest.languages.c_sinks import LEVEL_WORDS, LOG_WORDS, name_words
from errdex.harvest.sinks import LEVELS, Sink, normal_level

__all__ = ["FUNCTION", "loggish", "macros", "printer_sinks", "resolve"]

_LANGUAGE = tree_sitter.Language(tree_sitter_c.language())
_PARSER = tree_sitter.Parser(_LANGUAGE)
#: How a prefix or suffix names the function that calls the sink.
FUNCTION = "{function}"
_FUNC_NAMES = frozenset({"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"})
_NULLS = frozenset({"NULL", "0", "nullptr", "((void *)0)", "(void *)0"})
_PARAMS = re.compile(r"\(([^()]*)\)")
_STRING = r'(?:L|u8|u|U)?"(?:[^"\\\n]|\\.)*"'
_AROUND_FORMAT = re.compile(rf"((?:{_STRING}\s*)*)([A-Za-z_]\w*)((?:\s*{_STRING})*)")
_LITERALS = re.compile(_STRING)
_LEVEL_NAME = re.compile(r"\b[A-Z][A-Z0-9_]*_([A-Z]+[0-9]?)\b")
#: A macro over macros over ... this deep is not followed further.
_DEPTH = 8


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


#: A log word run into others (``sshlog``, ``logdie``, ``dbglog``), not ``login``, ``logic``, ``dialog``.
_RUN_IN = re.compile(r"(?i)(?<!ia)(?<!ta)log(?!in|ic|o)|die$|^die|warn|fatal|debug|panic")


def loggish(name: str) -> bool:
    """Whether a name reads as logging: a word such as ``log``, ``error``, ``warn``, ``debug``, or one of
    them run into the others (``sshlog``, ``logdie``)."""
    return any(word in LOG_WORDS for word in name_words(name)) or _RUN_IN.search(name) is not None


def _level_of(text: str) -> str | None:
    named = [normal_level(name) for name in _LEVEL_NAME.findall(text)]
    found = [level for level in named if level is not None]
    return min(found, key=LEVELS.index) if found else None


_RUN_IN_LEVEL = re.compile(r"(?i)(debug|dbg|trace|warn|err|fatal|panic|die)")


def _name_level(name: str) -> str | None:
    """The level a name says: one of its words (``debug3_f``), else a level word run into others (``debugf``,
    ``logdie``)."""
    found = next((LEVEL_WORDS[word] for word in name_words(name) if word in LEVEL_WORDS), None)
    if found is None:
        run_in = _RUN_IN_LEVEL.search(name)
        found = LEVEL_WORDS.get(run_in.group(1).lower()) if run_in is not None else None
    return found


def macros(root: Node) -> dict[str, Macro]:
    """The file's function-like macros whose body calls something, by name (a later one replaces an earlier)."""
    found: dict[str, Macro] = {}
    for define in nodes(_LANGUAGE, root, ("preproc_function_def",)):
        body = _text(define.child_by_field_name("value")).replace("\\\n", " ").strip()
        params = _PARAMS.match(_text(define.child_by_field_name("parameters")).strip())
        if "(" not in body or params is None:
            continue
        names = [p.strip() for p in params.group(1).split(",") if p.strip()]
        variadic = bool(names) and names[-1].endswith("...")
        if variadic:
            names[-1] = names[-1].removesuffix("...").strip() or "__VA_ARGS__"
        found[_text(define.child_by_field_name("name"))] = Macro(tuple(names), variadic, body)
    return found


def _calls(body: str) -> list[list[str]]:
    """Each call of a macro's body as [function, argument...] (texts), outermost first."""
    source = ("void __errdex_macro(void) {\n" + body.replace("##", "  ") + "\n;}").encode()
    tree = _PARSER.parse(source)
    calls = []
    for call in nodes(_LANGUAGE, tree.root_node, ("call_expression",)):
        args = call.child_by_field_name("arguments")
        items = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        calls.append([_text(call.child_by_field_name("function")), *(" ".join(_text(a).split()) for a in items)])
    return calls


class _Resolver:
    def __init__(self, defined: Mapping[str, Macro], printers: Mapping[str, Printer],
                 known: Mapping[str, Sink]) -> None:
        self.defined, self.printers, self.known = defined, printers, known
        self.arounds = arounds(printers)
        self.memo: dict[str, Sink | None] = {}
        self.builders: set[str] = set()

    def target(self, name: str, depth: int) -> tuple[Sink, tuple[tuple[str, str, int, str, int, str], ...],
                                                     bool] | None:
        """(sink, what it prints around the message by its arguments, whether it logs) of a name called."""
        if name in self.defined:
            sink = self.sink(name, depth + 1)
            if sink is not None:
                return sink, (), True
        printer = self.printers.get(name)  # a function, or a macro that reaches no sink but has one's name
        if printer is None or printer.builds or not printer.variadic:
            return (self.known[name], (), True) if name in self.known else None
        sink = Sink(name, printer.format_arg, _name_level(name) or "info", "printf", printer.level_arg)
        return sink, self.arounds.get(name, ()), loggish(name) or name in self.known

    def sink(self, name: str, depth: int = 0) -> Sink | None:
        if name in self.memo:
            return self.memo[name]
        self.memo[name] = None  # a macro that reaches itself is no sink through that path
        macro = self.defined.get(name)
        if macro is not None and depth <= _DEPTH:
            for call in _calls(macro.body):
                found = self.target(call[0], depth)
                if found is not None and call[0] != name:
                    sink = _through(name, macro, call[1:], *found)
                    if sink is not None:
                        self.memo[name] = sink
                        break
                elif macro.variadic and self.builds(call[0]) and len(call) > 1 and \
                        _index(call[1], macro, 0, call[1:]) is not None:
                    self.builders.add(name)  # builds a string into the buffer its caller gives: no log
                    break
        return self.memo[name]

    def builds(self, name: str) -> bool:
        printer = self.printers.get(name)
        return printer.builds if printer is not None else builds_by_name(name)


def _index(arg: str, macro: Macro, at: int, args: list[str]) -> int | None:
    """The macro's argument index that arrives as the call's argument ``at`` (None: none of its own)."""
    fixed = macro.parameters[:-1] if macro.variadic else macro.parameters
    bare = arg.strip("() ")
    if bare in fixed and arg.replace("(", "").replace(")", "").strip() == bare:
        return fixed.index(bare)
    if macro.variadic:
        spread = next((i for i, a in enumerate(args) if a == macro.parameters[-1]), None)
        if spread is not None and at >= spread:
            return len(fixed) + at - spread
    return None


def _value(arg: str) -> str:
    """How a prefix or suffix shows an argument's value (printf text)."""
    if arg in _FUNC_NAMES:
        return FUNCTION
    if _LITERALS.fullmatch(arg):
        return unescape(arg[arg.index('"') + 1:-1]).replace("%", "%%")
    return "%s"


def _through(name: str, macro: Macro, args: list[str], target: Sink,
             around: tuple[tuple[str, str, int, str, int, str], ...], logs: bool) -> Sink | None:
    """The macro as a sink through its call ``target(args)``, or None when the call's format is not the
    macro's."""
    if not (logs or loggish(name)) or (target.format_arg >= len(args) and not macro.variadic):
        return None
    fmt_arg = args[target.format_arg] if target.format_arg < len(args) else ""
    fmt = _index(fmt_arg, macro, target.format_arg, args) if fmt_arg else None
    if fmt is None and macro.variadic and args and args[-1] == macro.parameters[-1]:
        spread = len(args) - 1
        fmt = len(macro.parameters) - 1 + target.format_arg - spread if target.format_arg >= spread else None
    prefix, suffix = target.prefix, target.suffix
    if fmt is None:  # "x: " FMT "!": the macro's parameter inside a concatenation of literals
        parts = _AROUND_FORMAT.fullmatch(fmt_arg)
        fixed = macro.parameters[:-1] if macro.variadic else macro.parameters
        if parts is None or parts.group(2) not in fixed:
            return None
        fmt = fixed.index(parts.group(2))
        prefix += "".join(unescape(s[s.index('"') + 1:-1]) for s in _LITERALS.findall(parts.group(1)))
        suffix = "".join(unescape(s[s.index('"') + 1:-1]) for s in _LITERALS.findall(parts.group(3))) + suffix
    level_arg, level = None, None
    if target.level_arg is not None and target.level_arg < len(args):
        level_arg = _index(args[target.level_arg], macro, target.level_arg, args)
        if level_arg is None:
            level = _level_of(args[target.level_arg])
    if level is None:
        unmapped = " ".join(a for i, a in enumerate(args) if _index(a, macro, i, args) is None)
        level = _level_of(unmapped) if level_arg is None else None
    level = level or _name_level(name) or target.level or "info"
    for where, before, value, after, condition, test in around:
        if condition >= 0:
            switch = args[condition] if condition < len(args) else "0"
            if _index(switch, macro, condition, args) is not None or switch in _NULLS or (
                    test == "nonzero" and not switch.isdigit()):
                continue  # off, or known only at each call
        if value >= len(args):
            continue
        shown = before.replace("%", "%%") + _value(args[value]) + after.replace("%", "%%")
        if where == "prefix":
            prefix = shown + prefix
        else:
            suffix += shown
    return Sink(name, fmt, level, "printf", level_arg, prefix, suffix)


def printer_sinks(printers: Mapping[str, Printer]) -> dict[str, Sink]:
    """The tree's variadic printf-like functions that build no string and whose name reads as logging
    (``ngx_conf_log_error(level, cf, err, fmt, ...)``), as sinks called directly."""
    return {name: Sink(name, printer.format_arg, _name_level(name) or "info", "printf", printer.level_arg)
            for name, printer in printers.items() if printer.variadic and not printer.builds and loggish(name)}


def resolve(defined: Mapping[str, Macro], printers: Mapping[str, Printer], known: Mapping[str, Sink],
            names: Mapping[str, Macro] | None = None) -> dict[str, Sink | None]:
    """The sinks among the macros ``names`` (default: all ``defined``), by name, and None for a macro that
    hands its arguments to a function that builds a string (``snprintf``): no sink, whatever its name says;
    ``known``: the sinks a call in a body may reach besides the macros and printers (the defaults, those found
    by their declarations)."""
    resolver = _Resolver(defined, printers, {n: s for n, s in known.items() if n not in defined})
    found: dict[str, Sink | None] = {}
    for name in defined if names is None else names:
        sink = resolver.sink(name)
        if sink is not None or name in resolver.builders:
            found[name] = sink
    return found
