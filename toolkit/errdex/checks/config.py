"""Which checks run: --select/--ignore and per-record exclusions from configuration.

Configuration lives in ``errdex.toml`` (top-level keys) or in the
``[tool.errdex]`` table of a ``pyproject.toml``, found in the current folder
or the nearest parent that has one::

    select = ["all"]                 # codes or names; default: all
    ignore = ["EDX135"]
    strict = false                   # warnings count as errors

    [per-record-ignores]             # record id or slug -> codes or names
    "2715d7d48ff9726c" = ["message-in-source"]
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._files import read_regular, read_toml
from errdex.checks.base import Check
from errdex.checks.registry import registry
from errdex.errors import ConfigError, UsageError

__all__ = ["ValidationConfig", "always_runs", "find_config", "load_config", "resolve_checks"]

_KEYS = {"select", "ignore", "strict", "per-record-ignores"}


@dataclass
class ValidationConfig:
    """The resolved configuration of one validation run."""

    select: list[str] = field(default_factory=lambda: ["all"])
    ignore: list[str] = field(default_factory=list)
    strict: bool = False
    per_record_ignores: dict[str, set[str]] = field(default_factory=dict)
    source: str | None = None


def resolve_checks(names: Iterable[str], *, origin: str, error: type[UsageError] = UsageError) -> set[str]:
    """Codes of the checks that codes, names or ``all`` refer to; an unknown one is an error."""
    checks = registry()
    by_name = {cls.name: code for code, cls in checks.items()}
    codes: set[str] = set()
    for raw in names:
        for item in str(raw).split(","):
            item = item.strip()
            if not item:
                continue
            if item.lower() == "all":
                codes.update(checks)
            elif item.upper() in checks:
                codes.add(item.upper())
            elif item.lower() in by_name:
                codes.add(by_name[item.lower()])
            else:
                raise error(f"{origin}: unknown check {item!r}; see 'errdex validate --list-checks'")
    return codes


#: A configuration is a few lines; a larger file is refused rather than read whole.
MAX_CONFIG_BYTES = 1 << 20


def find_config(start: Path) -> Path | None:
    """The nearest errdex.toml, or pyproject.toml with a [tool.errdex] table, at or above ``start``."""
    for folder in (start, *start.parents):
        candidate = folder / "errdex.toml"
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            try:
                raw = read_regular(pyproject, limit=MAX_CONFIG_BYTES, error=ConfigError, what="a pyproject.toml")
                data = tomllib.loads(raw.decode("utf-8-sig"))
            except (ConfigError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
                continue
            if "errdex" in data.get("tool", {}):
                return pyproject
    return None


def _string_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where} must be a list of check codes or names")
    return value


def load_config(path: Path | None) -> ValidationConfig:
    """Read a configuration file (``None``: the defaults)."""
    if path is None:
        return ValidationConfig()
    data: Any = read_toml(path, limit=MAX_CONFIG_BYTES, what="a configuration file")
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("errdex", {})
        where = f"{path} [tool.errdex]"
    else:
        where = str(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: must be a table")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(_KEYS))}")
    config = ValidationConfig(source=str(path))
    if "select" in data:
        config.select = _string_list(data["select"], f"{where}: select")
    config.ignore = _string_list(data.get("ignore", []), f"{where}: ignore")
    strict = data.get("strict", False)
    if not isinstance(strict, bool):
        raise ConfigError(f"{where}: strict must be true or false")
    config.strict = strict
    per_record = data.get("per-record-ignores", {})
    if not isinstance(per_record, dict):
        raise ConfigError(f"{where}: per-record-ignores must be a table of record id or slug to check list")
    for record, names in per_record.items():
        config.per_record_ignores[record] = resolve_checks(
            _string_list(names, f"{where}: per-record-ignores.{record}"), origin=where, error=ConfigError
        )
    resolve_checks(config.select, origin=where, error=ConfigError)
    resolve_checks(config.ignore, origin=where, error=ConfigError)
    return config


def always_runs(code: str) -> bool:
    """Whether a check runs whatever is selected or ignored: the parse and schema findings (EDX001-EDX011),
    which say that a record cannot be loaded by index, export, release, prove or the site at all."""
    cls = registry().get(code)
    return cls is not None and cls.stage == "parse"


def enabled_checks(config: ValidationConfig, select: Sequence[str] | None,
                   ignore: Sequence[str] | None) -> dict[str, type[Check]]:
    """The checks that run: the command line's select/ignore win over the configuration's; the checks that
    :func:`always_runs` names are never left out."""
    chosen = resolve_checks(select if select else config.select,
                            origin="--select" if select else config.source or "select")
    chosen -= resolve_checks(config.ignore, origin=config.source or "ignore")
    chosen -= resolve_checks(ignore or (), origin="--ignore")
    chosen |= {code for code in registry() if always_runs(code)}
    return {code: cls for code, cls in registry().items() if code in chosen}
