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

A sink's keys are those of :class:`~errdex.harvest.sinks.Sink` (see :mod:`errdex.harvest.sinks`). Anything
else is a :class:`~errdex.errors.ConfigError` of one line naming the file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, get_args

from errdex._files import read_toml
from errdex.errors import ConfigError
from errdex.harvest.sinks import FormatStyle, Sink, normal_level, parse_levels

__all__ = ["HarvestConfig", "load_harvest_config"]

MAX_CONFIG_BYTES = 1024 * 1024
_KEYS = frozenset({"sinks", "log-levels", "exclude", "include-tests"})
_SINK_KEYS = frozenset({"name", "format-arg", "level", "level-arg", "style"})
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


def _index(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: must be an argument index, 0 or more (got {value!r})")
    return value


def _sink(value: Any, where: str) -> Sink:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table with name, format-arg, level, style")
    unknown = sorted(set(value) - _SINK_KEYS)
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]}: unknown key; known keys: {', '.join(sorted(_SINK_KEYS))}")
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}.name: must be the name of the function called (a non-empty string)")
    format_arg = _index(value.get("format-arg", 0), f"{where}.format-arg")
    style = value.get("style", "printf")
    if style not in _STYLES:
        raise ConfigError(f"{where}.style: {style!r} is not one of {', '.join(_STYLES)}")
    level_text = value.get("level", "error")
    level_arg = None
    if level_text == "from-arg":
        if "level-arg" not in value:
            raise ConfigError(f"{where}.level-arg: needed with level = \"from-arg\" (the argument holding the level)")
        level, level_arg = None, _index(value["level-arg"], f"{where}.level-arg")
    else:
        level = normal_level(level_text) if isinstance(level_text, str) else None
        if level is None:
            raise ConfigError(f"{where}.level: {level_text!r} is no level (fatal, error, warning, info, debug, "
                              "trace, or \"from-arg\")")
        if "level-arg" in value:
            raise ConfigError(f"{where}.level-arg: only with level = \"from-arg\"")
    return Sink(name.strip(), format_arg, level, cast(FormatStyle, style), level_arg)


def _levels(value: Any, where: str) -> str:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        value = ",".join(value)
    if not isinstance(value, str):
        raise ConfigError(f"{where}: must be a string (\"all\", \"warning\") or a list of levels")
    try:
        parse_levels(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return value


def _table(data: dict[str, Any], where: str) -> HarvestConfig:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(_KEYS))}")
    sinks = data.get("sinks", [])
    if not isinstance(sinks, list):
        raise ConfigError(f"{where} sinks: must be an array of tables ([[sinks]])")
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(glob, str) and glob for glob in exclude):
        raise ConfigError(f"{where} exclude: must be a list of globs (strings)")
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
    if folder is None or not (Path(folder) / "pyproject.toml").is_file():
        return HarvestConfig()
    path = Path(folder) / "pyproject.toml"
    section = _section(_read_toml(path))
    return HarvestConfig() if section is None else _from_section(path, section)
