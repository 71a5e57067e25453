"""Which Python calls write a log line: the ``logging`` methods on anything named like a logger, names bound to
a logger or to one of its methods, and the tree's own module functions that forward their message to one."""

from __future__ import annotations

import re

from errdex.harvest.sinks import Sink, normal_level

__all__ = ["LOGGER_MAKERS", "LOG_METHODS", "aliases", "default_sinks", "is_logger", "level_wrappers", "wrappers"]

LOG_METHODS = ("critical", "fatal", "error", "exception", "warning", "warn", "notice", "info", "verbose",
               "debug", "trace")
LOGGER_NAMES = frozenset({"logging", "logger", "log", "logger_", "_log", "_logger", "LOG", "LOGGER", "log_"})
#: Calls whose result is a logger: a name bound to one is a logger too.
LOGGER_MAKERS = ("getLogger", "get_logger", "getChild", "LoggerAdapter", "get_task_logger", "bind")
#: ``NAME = RECEIVER.METHOD`` on a line of its own.
ALIAS = re.compile(rb"^[ \t]*(\w+)[ \t]*=[ \t]*([\w.]+\.(?:%s))[ \t]*(?:#.*)?$" % "|".join(LOG_METHODS).encode(),
                   re.MULTILINE)


def is_logger(receiver: str, made: frozenset[str] = frozenset()) -> bool:
    """``logger``, ``self.logger``, ``LOG``, ``self._audit_log``, ``logging``: a logger by its name; or a name
    the file binds to a logger (``audit = logging.getLogger("audit")``, in ``made``); or
    ``logging.getLogger(...)`` itself."""
    last = receiver.rsplit(".", 1)[-1]
    return last in LOGGER_NAMES or last.lower().endswith(("logger", "_log")) or receiver in made \
        or any(maker + "(" in receiver for maker in LOGGER_MAKERS)


def default_sinks() -> tuple[Sink, ...]:
    """Each ``logging`` method, ``logger.log(level, ...)`` and ``warnings.warn``."""
    sinks = [Sink(f"logger.{m}", level=normal_level(m), style="python-percent") for m in LOG_METHODS]
    sinks.append(Sink("logger.log", format_arg=1, level=None, level_arg=0, style="python-percent"))
    sinks.append(Sink("warnings.warn", level="warning", style="plain"))  # printed on stderr by default
    return tuple(sinks)


#: A module function whose first parameter is the message it hands a logger with the rest of its arguments.
WRAPPER = re.compile(
    rb"^def (\w+)\(\s*(\w+)\s*(?::[^,)]*)?,\s*\*(?P<args>\w+)[^)]*\)[^:\n]*:[ \t]*\n"  # def f(msg, *args...):
    rb"(?:[ \t]+(?:#.*|\"\"\"[^\n]*)?\n)*"                                         # comments, a docstring line
    rb"[ \t]+(?:return )?([\w.]+)\.(%s)\(\s*\2\s*,\s*\*(?P=args)\b" % "|".join(LOG_METHODS).encode(),
    re.MULTILINE)


def wrappers(source: bytes) -> dict[str, Sink]:
    """A file's wrappers of a logger, as sinks by name: module functions (``def write_output(msg, *args):
    logger.info(msg, *args)``: the message first, at the level the wrapper logs at) and methods or functions
    that take the level too (:func:`level_wrappers`)."""
    if b"def " not in source:
        return {}
    found = {m.group(1).decode(): Sink(m.group(1).decode(), level=normal_level(m.group(5).decode()) or "info",
                                       style="python-percent")
             for m in WRAPPER.finditer(source) if is_logger(m.group(4).decode())}
    for name, sink in level_wrappers(source).items():
        found.setdefault(name, sink)
    return found


#: ``def NAME([self, ]LEVEL, MSG[, *ARGS]):`` at any indentation (a method too).
LEVELLED = re.compile(
    rb"^([ \t]*)def (\w+)\(\s*(?:self\s*,\s*)?(\w+)\s*,\s*(\w+)\s*(?:,\s*\*\w+\s*)?\)[^:\n]*:[ \t]*\n", re.MULTILINE)
#: How many lines of a wrapper's body are read for the call it forwards to.
_BODY_LINES = 12


def level_wrappers(source: bytes) -> dict[str, Sink]:
    """Functions and methods that hand a level and a message on to a logger's ``log`` (paramiko's ``def
    _log(self, level, msg, *args): self.logger.log(level, msg, *args)``) or to another such wrapper
    (``self._transport._log(level, msg)``): their callers (``self._log(DEBUG, "...")``) are log calls whose
    level is their first argument and message their second."""
    found: dict[str, Sink] = {}
    for match in LEVELLED.finditer(source):
        indent, name, level, message = (group.decode() for group in match.groups())
        body: list[str] = []
        for line in source[match.end():].decode("utf-8", "replace").split("\n")[:_BODY_LINES]:
            if line.strip() and not line.startswith(indent + (" " if not indent or indent[-1] == " " else "\t")):
                break
            body.append(line)
        forwards = re.compile(rf"[\w.]+\.\w*log\(\s*{re.escape(level)}\s*,[^\n]*\b{re.escape(message)}\b")
        if any(forwards.search(line) for line in body):
            found[name] = Sink(name, format_arg=1, level=None, level_arg=0, style="python-percent")
    return found


def aliases(source: bytes, made: frozenset[str]) -> dict[str, str]:
    """``meth = logger.debug`` (then ``meth("...", x)``): each name bound to a logger's method, and that method."""
    return {m.group(1).decode(): m.group(2).decode() for m in ALIAS.finditer(source)
            if is_logger(m.group(2).decode().rsplit(".", 1)[0], made)}
