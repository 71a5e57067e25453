"""Which Python calls write a log line: the ``logging`` methods on anything named like a logger, names bound to
a logger or to one of its methods, and the tree's own module functions that forward their message to one."""

from __future__ import annotations

import re

from errdex.harvest.sinks import Sink, normal_level

__all__ = ["LOGGER_MAKERS", "LOG_METHODS", "aliases", "default_sinks", "is_logger", "wrappers"]

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
    """A file's module-level wrappers of a logger (``def write_output(msg, *args): logger.info(msg, *args)``),
    as sinks by name: the message comes first, at the level the wrapper logs at."""
    if b"def " not in source:
        return {}
    return {m.group(1).decode(): Sink(m.group(1).decode(), level=normal_level(m.group(5).decode()) or "info",
                                      style="python-percent")
            for m in WRAPPER.finditer(source) if is_logger(m.group(4).decode())}


def aliases(source: bytes, made: frozenset[str]) -> dict[str, str]:
    """``meth = logger.debug`` (then ``meth("...", x)``): each name bound to a logger's method, and that method."""
    return {m.group(1).decode(): m.group(2).decode() for m in ALIAS.finditer(source)
            if is_logger(m.group(2).decode().rsplit(".", 1)[0], made)}
