"""RFC 3339 timestamps as records write them."""

from __future__ import annotations

import re
from datetime import datetime

__all__ = ["parse_rfc3339"]

_RFC3339 = re.compile(
    r"(?P<main>[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.(?P<fraction>[0-9]+))?"
    r"(?P<zone>[Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def parse_rfc3339(value: str) -> datetime | None:
    """The aware datetime a timestamp names, or None when it is not RFC 3339."""
    match = _RFC3339.fullmatch(value)
    if not match:
        return None
    fraction = (match["fraction"] or "0")[:6].ljust(6, "0")
    zone = "+00:00" if match["zone"] in "Zz" else match["zone"]
    try:
        return datetime.fromisoformat(f"{match['main'].upper()}.{fraction}{zone}")
    except ValueError:
        return None
