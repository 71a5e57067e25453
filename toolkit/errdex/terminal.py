"""Text meant for a terminal: control characters shown as escapes, so a log line or a record cannot drive it.

A log line, a record field or a file name can hold ESC sequences (retitle or
clear the terminal, hide text), BEL, carriage returns that overwrite what was
printed, or bidirectional overrides that make text read differently than it
is. :func:`safe` writes each of them as a visible escape (``\\x1b``,
``\\u202e``). JSON output needs none of this: JSON escapes them itself.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["safe", "safe_value"]

#: C0 controls but tab and line feed, DEL, C1 controls, and the bidirectional marks, embeddings, overrides and
#: isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_OR_NEWLINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control character escaped but tabs; ``newlines``: keep line feeds as they are, else
    escape them too (for a value printed on one line)."""
    pattern = _UNSAFE if newlines else _UNSAFE_OR_NEWLINE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def safe_value(value: Any) -> Any:
    """A copy of a JSON-like value (a record) with every string in it :func:`safe`."""
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, dict):
        return {safe(key) if isinstance(key, str) else key: safe_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(safe_value(item) for item in value)
    return value
