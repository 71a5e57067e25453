"""The errdex exception hierarchy.

Every error errdex raises on purpose derives from :class:`ErrdexError`, and
lower-level errors (OS, JSON, DuckDB, jsonschema) are translated into one of
these at the boundary where they happen, with ``raise ... from exc``::

    ErrdexError                  anything errdex reports to a user
    ├── UsageError               bad arguments or configuration (CLI exit 2)
    │   └── ConfigError          a broken errdex.toml / [tool.errdex] table
    ├── InputError               an input that cannot be read at all
    │   └── RecordNotFound       no record with that id or slug
    └── DataError                data that was read but is not acceptable
        └── FormatError          a file that is not in canonical form

The CLI prints ``str(error)`` as one line on stderr and exits 2 for a
:class:`UsageError`, 1 for everything else.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DataError",
    "ErrdexError",
    "FormatError",
    "InputError",
    "RecordNotFound",
    "UsageError",
]


class ErrdexError(Exception):
    """Base class of every error errdex reports to its user."""

    exit_code = 1


class UsageError(ErrdexError):
    """The caller asked for something that cannot be done as asked."""

    exit_code = 2


class ConfigError(UsageError):
    """A configuration file or table is invalid."""


class InputError(ErrdexError):
    """An input (file, folder, stream) cannot be read."""


class RecordNotFound(InputError):
    """No record matches the given id, slug or log line."""


class DataError(ErrdexError):
    """Data was read but is not acceptable."""


class FormatError(DataError):
    """A record file is not in canonical form."""
