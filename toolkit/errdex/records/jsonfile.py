"""Reading a small JSON file a user hands to a command (a fault plan, a proof report), strictly and boundedly.

The file must be a regular file (a FIFO is refused at once instead of
waiting for a writer) of at most :data:`MAX_BYTES`, and strict JSON as
records are (:func:`errdex.records.jsontext.parse_document`: no nesting
deeper than a record's limit, no ``NaN``, no integers past 64 bits, no
duplicate keys). Every problem is an :class:`~errdex.errors.InputError` of
one line that names the file, and the line and column where it can.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex._files import read_regular
from errdex.errors import InputError
from errdex.records.jsontext import parse_document

__all__ = ["MAX_BYTES", "read_json_file"]

#: The largest file read: far more than any plan or proof report needs.
MAX_BYTES = 64 * 1024 * 1024


def read_json_file(path: str | Path, *, hint: str = "") -> Any:
    """The JSON value in the file; ``hint`` ends each message (what the file should be)."""
    tail = f" ({hint})" if hint else ""
    try:
        data = read_regular(Path(path), limit=MAX_BYTES, error=InputError, what="such a file")
    except InputError as exc:
        raise InputError(f"{exc}{tail}") from exc
    parsed = parse_document(data)
    if parsed.problems:
        problem = parsed.problems[0]
        raise InputError(f"{path}:{problem.line}:{problem.column}: {problem.message}{tail}")
    return parsed.value
