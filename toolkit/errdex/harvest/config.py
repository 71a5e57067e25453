"""A project's harvest settings: its own sinks, and defaults for the command's options.

Read from ``[tool.errdex.harvest]`` of the harvested folder's ``pyproject.toml``, or from a ``--config`` file
(TOML; the same keys at its top level or under ``[tool.errdex.harvest]``)::

    log-levels = "all"                  # as --log-levels (a string, or a list of levels)
    exclude = ["contrib/*", "regress"]  # added to --exclude
    include-tests = false               # as --include-tests

    [[sinks]]                           # in pyproject.toml: [[tool.errdex.harvest.sinks]]
    name = "do_log2"
    format-arg = 1
    level = "from-arg"                  # or a level: error, warning, fatal...
    level-arg = 0
    style = "printf"
    prefix = "{function}: "             # C: written before the message ({function}: the caller's name)
    suffix = ": %s"                     # C: written after it (printf text); both default to none

A sink's keys are those of :class:`~errdex.harvest.sinks.Sink` (see :mod:`errdex.harvest.sinks`). Every value is
checked: a sink's ``name`` is an identifier or a dotted name (``do_log2``, ``log.Printf``, ``$log``; at most
:data:`MAX_NAME` characters), ``format-arg`` and ``level-arg`` argument indexes from 0 to :data:`MAX_ARG`, levels
and styles known ones, ``prefix`` and ``suffix`` printable text of at most :data:`MAX_NAME` characters,
``exclude`` a list of at most :data:`MAX_GLOBS` globs of printable characters. Anything else
is a :class:`~errdex.errors.ConfigError` of one line naming the file and the key (exit 2). A harvested folder's
``pyproject.toml`` is read only when it lies in that folder (not through a symbolic link out of it).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, get_args

from errdex._files import read_toml
from errdex.errors import ConfigError
from errdex.harvest.sinks import FormatStyle, Sink, normal_level, parse_levels

__all__ = ["HarvestConfig", "load_harvest_config"]

MAX_CONFIG_BYTES = 1024 * 1024
#: Bounds of a sink's values and of the exclude list.
MAX_NAME, MAX_ARG, MAX_GLOBS, MAX_GLOB = 200, 255, 1000, 1000
#: A sink's name: identifiers (letters, digits, ``_``, ``$``; not starting with a digit), joined by dots.
_NAME = re.compile(r"(?:[^\W\d]|\$)[\w$]*(?:\.(?:[^\W\d]|\$)[\w$]*)*")
_KEYS = frozenset({"sinks", "log-levels", "exclude", "include-tests"})
_SINK_KEYS = frozenset({"name", "format-arg", "level", "level-arg", "style", "prefix", "suffix"})
_STYLES: tuple[str, ...] = get_args(FormatStyle)


@dataclass(frozen=True)
class HarvestConfig:
    """What a configuration says; ``source`` names where it came from ("" for none)."""

    sinks: tuple[Sink, ...] = ()
    log_levels: str | None = None
    exclude: tuple[str, ...] = ()
    include_tests: bool | None = None
    source: str = ""


def _read_toml(path: Path) -> dict[str, Any]:
    return read_toml(path, limit=MAX_CONFIG_BYTES, what="a harvest configuration")


def _shown(value: Any) -> str:
    """A value as one short line of a message (a hostile one may be long, or hold line breaks)."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _index(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ARG:
        raise ConfigError(f"{where}: must be an argument index from 0 to {MAX_ARG} (got {_shown(value)})")
    return value


def _sink(value: Any, where: str) -> Sink:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table with name, format-arg, level, style")
    unknown = sorted(set(value) - _SINK_KEYS)
    if unknown:
        key = unknown[0] if unknown[0].isprintable() and len(unknown[0]) <= 80 else _shown(unknown[0])
        raise ConfigError(f"{where}.{key}: unknown key; known keys: {', '.join(sorted(_SINK_KEYS))}")
    name = value.get("name")
    if not isinstance(name, str) or len(name) > MAX_NAME or not _NAME.fullmatch(name):
        raise ConfigError(f"{where}.name: must be the name of the function called, an identifier or a dotted name "
                          f"of at most {MAX_NAME} characters (got {_shown(name)})")
    format_arg = _index(value.get("format-arg", 0), f"{where}.format-arg")
    style = value.get("style", "printf")
    if not isinstance(style, str) or style not in _STYLES:
        raise ConfigError(f"{where}.style: {_shown(style)} is not one of {', '.join(_STYLES)}")
    level_text = value.get("level", "error")
    level_arg = None
    if level_text == "from-arg":
        if "level-arg" not in value:
            raise ConfigError(f"{where}.level-arg: needed with level = \"from-arg\" (the argument holding the level)")
        level, level_arg = None, _index(value["level-arg"], f"{where}.level-arg")
    else:
        level = normal_level(level_text) if isinstance(level_text, str) else None
        if level is None:
            raise ConfigError(f"{where}.level: {_shown(level_text)} is no level (fatal, error, warning, info, debug, "
                              "trace, or \"from-arg\")")
        if "level-arg" in value:
            raise ConfigError(f"{where}.level-arg: only with level = \"from-arg\"")
    around = [value.get(key, "") for key in ("prefix", "suffix")]
    for key, text in zip(("prefix", "suffix"), around, strict=True):
        if not isinstance(text, str) or len(text) > MAX_NAME or not text.isprintable():
            raise ConfigError(f"{where}.{key}: must be printable text of at most {MAX_NAME} characters "
                              f"(got {_shown(text)})")
    return Sink(name, format_arg, level, cast(FormatStyle, style), level_arg, *around)


def _levels(value: Any, where: str) -> str:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        value = ",".join(value)
    if not isinstance(value, str) or len(value) > MAX_NAME:
        raise ConfigError(f"{where}: must be a string (\"all\", \"warning\") or a list of levels")
    try:
        parse_levels(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return value


def _table(data: dict[str, Any], where: str) -> HarvestConfig:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {_shown(unknown[0])}; known keys: {', '.join(sorted(_KEYS))}")
    sinks = data.get("sinks", [])
    if not isinstance(sinks, list):
        raise ConfigError(f"{where} sinks: must be an array of tables ([[sinks]])")
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or len(exclude) > MAX_GLOBS:
        raise ConfigError(f"{where} exclude: must be a list of at most {MAX_GLOBS} globs (strings)")
    for number, glob in enumerate(exclude):
        if not isinstance(glob, str) or not glob or len(glob) > MAX_GLOB or not glob.isprintable():
            raise ConfigError(f"{where} exclude[{number}]: must be a glob of 1 to {MAX_GLOB} printable characters "
                              f"(got {_shown(glob)})")
    include_tests = data.get("include-tests")
    if include_tests is not None and not isinstance(include_tests, bool):
        raise ConfigError(f"{where} include-tests: must be true or false")
    levels = _levels(data["log-levels"], f"{where} log-levels") if "log-levels" in data else None
    return HarvestConfig(tuple(_sink(sink, f"{where} sinks[{number}]") for number, sink in enumerate(sinks)),
                         levels, tuple(exclude), include_tests, where)


def _section(data: dict[str, Any]) -> Any:
    """``[tool.errdex.harvest]`` of a TOML document, or None when it has none."""
    value: Any = data
    for key in ("tool", "errdex", "harvest"):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _from_section(path: Path, section: Any) -> HarvestConfig:
    if not isinstance(section, dict):
        raise ConfigError(f"{path} [tool.errdex.harvest]: must be a table")
    return _table(section, f"{path} [tool.errdex.harvest]")


def load_harvest_config(*, config: Path | None = None, folder: Path | None = None) -> HarvestConfig:
    """The settings of ``config`` (a TOML file), else of ``folder/pyproject.toml``'s ``[tool.errdex.harvest]``;
    empty settings when neither names any."""
    if config is not None:
        path = Path(config)
        data = _read_toml(path)
        section = _section(data)
        if section is not None:
            return _from_section(path, section)
        return _table({key: value for key, value in data.items() if key != "tool"}, str(path))
    path = Path(folder or ".") / "pyproject.toml"
    if folder is None or not path.is_file():
        return HarvestConfig()
    real, root = os.path.realpath(path), os.path.realpath(folder)
    if not real.startswith(root.rstrip(os.sep) + os.sep):
        raise ConfigError(f"{path}: a symbolic link to {real}, outside {folder}; harvest reads the folder's own "
                          "settings (name that file with --config)")
    section = _section(_read_toml(path))
    return HarvestConfig() if section is None else _from_section(path, section)
