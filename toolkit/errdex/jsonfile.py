"""Reading a small JSON file a user hands to a command (a fault plan, a proof report), strictly and boundedly.

The file must be a regular file (a FIFO is refused at once instead of
waiting for a writer) of at most :data:`MAX_BYTES`, and strict JSON as
records are (:func:`errdex.records.jsontext.parse_document`: no nesting
deeper than a record's limit, no ``NaN``, no integers past 64 bits, no
duplicate keys). Every problem is an :class:`~errdex.errors.InputError` of
one line that names the file, and the line and column where it can.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from errdex.errors import InputError, os_reason

__all__ = ["MAX_BYTES", "read_json_file"]

#: The largest file read: far more than any plan or proof report needs.
MAX_BYTES = 64 * 1024 * 1024


def read_json_file(path: str | Path, *, hint: str = "") -> Any:
    """The JSON value in the file; ``hint`` ends each message (what the file should be)."""
    from errdex.records.jsontext import parse_document

    tail = f" ({hint})" if hint else ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {os_reason(exc)}") from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file{tail}")
        if info.st_size > MAX_BYTES:
            raise InputError(f"{path}: {info.st_size} bytes is more than the {MAX_BYTES} read{tail}")
        try:
            data = handle.read(MAX_BYTES + 1)
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {os_reason(exc)}") from exc
    if len(data) > MAX_BYTES:
        raise InputError(f"{path}: more than the {MAX_BYTES} bytes read{tail}")
    parsed = parse_document(data)
    if parsed.problems:
        problem = parsed.problems[0]
        raise InputError(f"{path}:{problem.line}:{problem.column}: {problem.message}{tail}")
    return parsed.value
