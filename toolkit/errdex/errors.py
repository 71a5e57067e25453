"""The errdex exception hierarchy: one tree, rooted at :class:`ErrdexError`.

Every error errdex raises on purpose derives from :class:`ErrdexError`, and
lower-level errors (OS, JSON, DuckDB, jsonschema) are translated into one of
these at the boundary where they happen, with ``raise ... from exc``::

    ErrdexError                  anything errdex reports to a user
    ├── UsageError               bad arguments or configuration (CLI exit 2)
    │   └── ConfigError          a broken errdex.toml / [tool.errdex] table
    ├── InputError               an input that cannot be read at all
    │   └── RecordNotFound       no record with that id or slug
    ├── DataError                data that was read but is not acceptable
    │   └── FormatError          a file that is not in canonical form
    └── CreateosError            the modelled CreateOS client failed (errdex.executor.createos.errors)
        ├── CreateosConnectionError, CreateosApiError, CreateosCleanupError
        └── CreateosTimeoutError, CreateosCancelledError

The CreateOS branch models the errors of an upstream TypeScript client: its
class names and messages are the ones error records describe, and each class
carries the upstream class name in ``error_class``. They are still errdex's
errors (a proof that raises one reports it like any other), so they hang
from the same root; an executor family adds its own branch the same way.

The CLI prints ``str(error)`` as one line on stderr and exits 2 for a
:class:`UsageError`, 1 for everything else. :class:`Stopped` is no
``ErrdexError`` (no ``except ErrdexError`` may swallow it): a signal that asks
errdex to stop, raised so that every ``finally`` on the way out runs; the CLI
exits 128 + the signal's number. :func:`from_oserror` is the one
place an ``OSError`` becomes words a user reads.
"""

from __future__ import annotations

import errno
import os
from typing import TypeVar, overload

__all__ = [
    "ConfigError",
    "DataError",
    "ErrdexError",
    "FormatError",
    "InputError",
    "RecordNotFound",
    "Stopped",
    "UsageError",
    "address_space_limit",
    "from_oserror",
    "os_reason",
    "out_of_memory",
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


class Stopped(BaseException):
    """A signal (SIGTERM, SIGHUP) asked errdex to stop while it held something to clean up (an sshd, an account).

    A ``BaseException``, as ``KeyboardInterrupt`` is: it unwinds through every ``finally`` (which removes what
    the run made) and past every handler of errdex's own errors, up to the CLI, which exits 128 + ``signum``.
    """

    def __init__(self, signum: int) -> None:
        import signal  # here: start-up time of every command that never sees this

        self.signum = signum
        self.name = signal.Signals(signum).name
        super().__init__(f"stopped by {self.name}")


#: What an OS error number means, in errdex's words (the others fall back to the system's text, lowercased).
_REASONS = {
    errno.ENOENT: "no such file or folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EISDIR: "it is a folder, not a file",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EIO: "the disk or file system reported an input/output error (a failing disk, a lost network mount?)",
    errno.ENOSPC: "no space left on the device",
    errno.EROFS: "the file system is read-only",
    errno.ELOOP: "a loop of symbolic links",
    errno.ENAMETOOLONG: "the name is too long",
    errno.EEXIST: "it exists already",
    errno.EMFILE: "too many files are open",
    errno.ENXIO: "no reader or device at the other end (a FIFO without a writer?)",
    errno.ETXTBSY: "the file is busy",
    errno.EDQUOT: "the disk quota is used up",
}


def os_reason(exc: BaseException) -> str:
    """What went wrong, in a few plain words, for an OSError (or any exception: its message)."""
    if isinstance(exc, OSError):
        if exc.errno in _REASONS:
            return _REASONS[exc.errno]
        if exc.strerror:
            return exc.strerror.lower()
        if exc.errno:
            return os.strerror(exc.errno).lower()
    return str(exc) or type(exc).__name__


_E = TypeVar("_E", bound=ErrdexError)


@overload
def from_oserror(exc: OSError, path: object = None, *, action: str = "") -> InputError: ...


@overload
def from_oserror(exc: OSError, path: object = None, *, action: str = "", error: type[_E]) -> _E: ...


def from_oserror(exc: OSError, path: object = None, *, action: str = "",
                 error: type[ErrdexError] = InputError) -> ErrdexError:
    """The error to raise (``from exc``) for an OSError: it names the file (``path``, else the error's own file
    name) and says what went wrong in our words, e.g. ``x.json: cannot read: permission denied``.

    It is an :class:`InputError` unless ``error`` names another class (a caller for whom an unreadable file is
    bad data, say).
    """
    where = path if path is not None else exc.filename
    verb = f"cannot {action}: " if action else ""
    reason = os_reason(exc)
    return error(f"{where}: {verb}{reason}" if where is not None else f"{verb}{reason}")


def address_space_limit() -> int | None:
    """The bytes of address space this process may use when the system limits it (``ulimit -v``), else None."""
    try:
        import resource  # Unix only

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    return None if limit == resource.RLIM_INFINITY else limit


def out_of_memory() -> str:
    """The one line for work that ran out of memory, naming the system's limit on this process when one is set
    (``ulimit -v``): raising an errdex setting does not help then."""
    limit = address_space_limit()
    if limit is None:
        return "out of memory: the work is too large for the memory this process may use"
    return (f"out of memory: the work is too large for the {limit >> 20} MiB of address space this process may "
            "use (ulimit -v)")
