"""Sinks: the functions a message goes through (loggers, printf-like reporters, a project's own), and levels.

A language module knows its common loggers; a project adds its own in ``[tool.errdex.harvest]`` of its
``pyproject.toml`` or in a ``--config`` file (TOML)::

    [[tool.errdex.harvest.sinks]]
    name = "do_log2"        # the function (or method, or function pointer) called
    format-arg = 1          # which argument (0-based) holds the format or message; default 0
    level = "error"         # the level it logs at; "from-arg" with level-arg = N: the level is that argument
    style = "printf"        # how the format is written: printf, python-percent, str-format, slf4j, go, plain
    prefix = "{function}: " # C: what the sink writes before the message ({function}: the calling function's
    suffix = ": %s"         #    name; %s: a value), and after it (printf text); default none

A C tree's own macros say the same with no configuration (:mod:`errdex.harvest.languages.c_macros`).

Levels are normalised to one scale (:data:`LEVELS`, most severe first), so ``--log-levels warning`` keeps
warnings and everything worse whatever a language calls them (``WARN``, ``warning``, ``SEVERE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["DEFAULT_LEVELS", "LEVELS", "FormatStyle", "Sink", "normal_level", "parse_levels", "severity_of"]

#: The scale every language's level is put on, most severe first.
LEVELS: tuple[str, ...] = ("fatal", "error", "warning", "info", "debug", "trace")
#: What ``--log-levels`` keeps unless told: warning and above.
DEFAULT_LEVELS: frozenset[str] = frozenset({"fatal", "error", "warning"})

FormatStyle = Literal["printf", "python-percent", "str-format", "slf4j", "go", "message-format", "plain"]

_ALIASES = {
    "fatal": "fatal", "critical": "fatal", "crit": "fatal", "panic": "fatal", "emerg": "fatal", "alert": "fatal",
    "severe": "error", "error": "error", "err": "error", "exception": "error",
    "warning": "warning", "warn": "warning",
    "info": "info", "notice": "info", "log": "info", "verbose": "info", "print": "info", "config": "info",
    "debug": "debug", "fine": "debug", "debug1": "debug", "debug2": "trace", "debug3": "trace",
    "trace": "trace", "finer": "trace", "finest": "trace",
}


def normal_level(name: str) -> str | None:
    """A level as a language or logger names it (any case), on errdex's scale; None when it is no level."""
    return _ALIASES.get(name.lower())


def severity_of(level: str | None) -> str:
    """The record severity a site gets: a throw (no level) is an error; fatal is critical."""
    if level is None:
        return "error"
    return {"fatal": "critical", "error": "error", "warning": "warning"}.get(level, "info")


def parse_levels(text: str | None) -> frozenset[str]:
    """``--log-levels``: ``all``, or a comma-separated list of levels; each named level keeps itself and every
    more severe one (``warning`` keeps fatal, error and warning)."""
    if text is None:
        return DEFAULT_LEVELS
    if text.strip().lower() == "all":
        return frozenset(LEVELS)
    kept: set[str] = set()
    for item in filter(None, (part.strip() for part in text.split(","))):
        level = normal_level(item)
        if level is None:
            raise ValueError(f"unknown log level {item!r} (levels: {', '.join(LEVELS)}, or all)")
        kept.update(LEVELS[: LEVELS.index(level) + 1])
    return frozenset(kept)


@dataclass(frozen=True)
class Sink:
    """A function whose call writes a message: ``format_arg`` (0-based) holds the format or message;
    ``level`` its level on errdex's scale, or None when ``level_arg`` names the argument that holds it.
    ``prefix``/``suffix``: what the sink writes before and after the message, printf text in which
    ``{function}`` is the name of the function that calls the sink (C: OpenSSH's ``error_f`` writes
    ``{function}: ``, its ``fatal_fr`` also ``: %s`` after); "" for nothing."""

    name: str
    format_arg: int = 0
    level: str | None = "error"
    style: FormatStyle = "printf"
    level_arg: int | None = None
    prefix: str = ""
    suffix: str = ""
