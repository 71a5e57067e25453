"""What JavaScript's loggers are, how their calls write a message, and the escapes of its strings: the logger
names and methods the finder knows (console, pino, winston, npmlog and proc-log levels), the sink a call is,
whether its first argument is a title the message follows (npm's ``log.verbose("cli", message)``), the names
a file binds to loggers (pino, the ``debug`` module), and the query for a file's sites."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import tree_sitter

from errdex.harvest.languages._tree import query_strings, text
from errdex.harvest.sinks import Sink, normal_level

__all__ = [
    "I18N",
    "LOGGER_MAKERS",
    "TITLED",
    "debuggers",
    "default_sinks",
    "is_title",
    "made_loggers",
    "method_level",
    "sink_for",
    "unescape",
    "writes_text",
]

Node = tree_sitter.Node

_LOG_METHODS = ("fatal", "critical", "error", "warn", "warning", "info", "log", "debug", "trace")
#: npmlog's and proc-log's levels beyond the usual ones (npm, its libraries, and tools built like it).
_NPM_METHODS = {"notice": "info", "verbose": "info", "http": "debug", "silly": "trace", "timing": "trace"}
_LOGGER_NAMES = frozenset({"console", "logger", "log", "LOG", "LOGGER", "_logger", "_log", "logging", "winston"})
#: Calls (or constructors) whose result is a logger: a name bound to one is a logger too.
LOGGER_MAKERS = frozenset({"pino", "createLogger", "getLogger", "child", "Logger", "bunyan", "log4js"})
#: Logging libraries whose calls take a title before the message: ``log.http("fetch", "GET 200 ...")``.
TITLED = ("proc-log", "npmlog")
I18N = frozenset({"t", "_", "__", "gettext", "i18n.t", "i18next.t", "intl.formatMessage", "$t"})
_ESCAPE = re.compile(r"\\(u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|\r\n|[\s\S])")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0",
                   "\n": "", "\r\n": "", "\r": "", "\u2028": "", "\u2029": ""}


def unescape(escape: str) -> str:
    """The character a JavaScript escape sequence stands for (``\\n``, ``\\u{1F600}``, ``\\'``)."""
    m = _ESCAPE.fullmatch(escape)
    if m is None:
        return escape
    body = m[1]
    if body[0] in "ux" and len(body) > 1:
        code = int(body.strip("u{}x") if body[0] == "u" else body[1:], 16)
        return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return _SIMPLE_ESCAPES.get(body, body)


def _is_logger(receiver: str, made: frozenset[str]) -> bool:
    """A logger by its name (``console``, ``this.logger``), or a name the file binds to a new logger
    (``const audit = pino()``, in ``made``)."""
    last = receiver.rsplit(".", 1)[-1]
    return last in _LOGGER_NAMES or last.lower().endswith("logger") or receiver in made


def writes_text(node: Node) -> bool:
    """Whether a logger argument is the message (pino's ``logger.error({ err }, "message")``), not its fields
    or the error itself."""
    return node.type in ("string", "template_string", "binary_expression", "identifier", "call_expression") \
        and not (node.type == "identifier" and text(node) in ("err", "error", "e"))


#: What a logger's second argument is when it is no message: an object of fields (winston's meta), a callback.
_NOT_TEXT = frozenset({"object", "array", "arrow_function", "function_expression", "function", "comment"})


def is_title(arguments: Sequence[Node]) -> bool:
    """Whether a logger call's first argument is a title its message follows (npmlog's and proc-log's
    ``log.verbose("cli", message)``): a string with no conversion, followed by an argument that writes text.
    The line is the title, a space, and ``util.format`` of the rest."""
    return len(arguments) > 1 and arguments[0].type in ("string", "template_string") \
        and "%" not in text(arguments[0]) and arguments[1].type not in _NOT_TEXT


def method_level(callee: str, level: str) -> str:
    """The level a logger method's site records: its own name for the usual methods (``warn``), the level on
    errdex's scale for npm's (``silly``: trace)."""
    method = callee.rsplit(".", 1)[-1].lower()
    return method if method in _LOG_METHODS else level


def sink_for(sinks: Sequence[Sink], callee: str, made: frozenset[str]) -> Sink | None:
    """The sink a call of ``callee`` is: a logger method (``logger.warn`` on a receiver that is a logger), or a
    function named like a project's sink; None for other calls."""
    receiver, _, method = callee.rpartition(".")
    for sink in sinks:
        if sink.name.startswith("logger."):
            if receiver and method == sink.name[len("logger."):] and _is_logger(receiver, made):
                return sink
        elif callee == sink.name or ("." not in sink.name and method == sink.name):
            return sink
    return None


def default_sinks() -> tuple[Sink, ...]:
    """The logger methods every JavaScript file is read for, each at its level."""
    return (*(Sink(f"logger.{m}", level=normal_level(m), style="plain") for m in _LOG_METHODS),
            *(Sink(f"logger.{m}", level=level, style="plain") for m, level in _NPM_METHODS.items()))


def debuggers(root: Node, language: tree_sitter.Language) -> frozenset[str]:
    """The names a file binds to a logger of the ``debug`` module (``require("debug")("app:db")``, or a name
    bound to ``require("debug")`` or imported from ``"debug"`` then called with a namespace) or of Node's
    ``util.debuglog(section)``."""
    factories = {"debuglog", "require('debug')"}
    matches = tree_sitter.QueryCursor(_bindings(language)).matches(root)
    bindings = [(text(m["target"][0]), m["value"][0]) for _, m in matches if m.get("target") and m.get("value")]
    for name, value in bindings:
        if value.type == "call_expression" and text(value).replace('"', "'") == "require('debug')":
            factories.add(name)
    for statement in root.children:
        clause = next((c for c in statement.named_children if c.type == "import_clause"), None) \
            if statement.type == "import_statement" else None
        source = statement.child_by_field_name("source")
        if clause is not None and source is not None and text(source).strip("'\"") == "debug" \
                and clause.named_children and clause.named_children[0].type == "identifier":
            factories.add(text(clause.named_children[0]))
    makers = [(name, text(value.child_by_field_name("function")).replace('"', "'")) for name, value in bindings
              if value.type == "call_expression"]
    return frozenset(name for name, maker in makers if maker in factories or maker.endswith(".debuglog"))


@lru_cache(maxsize=4)
def _bindings(language: tree_sitter.Language) -> tree_sitter.Query:
    """A name declared with a value: ``const debug = require("debug")("x")``."""
    return tree_sitter.Query(language, "(variable_declarator name: (identifier) @target value: (_) @value)")


def made_loggers(root: Node, language: tree_sitter.Language) -> frozenset[str]:
    """The names a file binds to a new logger (``const audit = pino()``, ``this.log = winston.createLogger()``)."""
    source = root.text or b""
    if not any(m.encode() in source for m in LOGGER_MAKERS):
        return frozenset()  # the query costs; most files make none
    made = tree_sitter.QueryCursor(_made(language)).matches(root)
    return frozenset(text(m["target"][0]) for _, m in made if m.get("target") and m.get("maker")
                     and text(m["maker"][0]).rsplit(".", 1)[-1] in LOGGER_MAKERS)


@lru_cache(maxsize=4)
def _made(language: tree_sitter.Language) -> tree_sitter.Query:
    """Names bound to the result of a call or a ``new``: a logger when the callee is a logger maker."""
    name = "[(identifier) @maker (member_expression property: (property_identifier) @maker)]"
    made = (f"[(call_expression function: {name}) (new_expression constructor: {name})]"
            f" (#any-of? @maker {query_strings(LOGGER_MAKERS)})")
    return tree_sitter.Query(language, f"""(variable_declarator name: (_) @target value: {made})
(assignment_expression left: (_) @target right: {made})""")


@lru_cache(maxsize=64)
def site_query(language: tree_sitter.Language, names: frozenset[str]) -> tree_sitter.Query:
    """Throws, ``super(...)`` calls, ``new`` expressions, and calls of a function or method named like one of
    the sinks."""
    quoted = query_strings(names)
    return tree_sitter.Query(language, f"""(throw_statement) @throw
(call_expression function: (super)) @super
(new_expression) @new
(call_expression function: (identifier) @name (#any-of? @name {quoted})) @call
(call_expression function: (member_expression property: (property_identifier) @name)
  (#any-of? @name {quoted})) @call""")
