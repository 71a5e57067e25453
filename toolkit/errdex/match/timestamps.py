"""When a log line was written: the timestamp near its start, in the formats common logs use.

Recognised (the Loghub samples hold each): ISO 8601 (``2015-10-18 18:01:47,978``, ``2024-05-01T12:00:00Z``),
syslog (``Dec 10 06:55:46``, no year), Apache's ``[Sun Dec 04 04:47:44 2005]``, BGL's
``2005-06-03-15.42.50.675872``, HDFS's ``081109 203615`` and Spark's ``17/06/09 20:10:40``. The stamp is looked
for in the first :data:`SEARCH_CHARS` characters only (a JSON line may put its ``"ts"`` field first, a prefix
such as BGL's epoch may come before it); a line without one gives ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SEARCH_CHARS", "Stamp", "find_stamp", "strip_stamp"]

#: How far into a line a timestamp is looked for.
SEARCH_CHARS = 120
_MONTHS = {name: number for number, name in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_MON = "(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_HMS = r"(?P<h>[01]\d|2[0-3]):(?P<mi>[0-5]\d):(?P<s>[0-5]\d|60)"
_FORMATS = [
    # ISO 8601, with a T or a blank, fractions after . or , and a zone
    re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d)[T ]" + _HMS
               + r"(?P<f>[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?(?!\d)"),
    # Apache: [Sun Dec 04 04:47:44 2005]
    re.compile(r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) " + _MON + r" (?P<d>\d\d) " + _HMS + r" (?P<y>\d{4})\]"),
    # BGL: 2005-06-03-15.42.50.675872
    re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d)-(?P<h>[01]\d|2[0-3])\.(?P<mi>[0-5]\d)\."
               r"(?P<s>[0-5]\d)(?P<f>\.\d{1,9})?(?!\d)"),
    # syslog: Dec 10 06:55:46 (the day may be padded with a blank)
    re.compile(r"(?<![A-Za-z])" + _MON + r" {1,2}(?P<d>\d{1,2}) " + _HMS + r"(?P<f>\.\d{1,9})?(?!\d)"),
    # Spark: 17/06/09 20:10:40 (year first, two digits)
    re.compile(r"^(?P<yy>\d\d)/(?P<mo>\d\d)/(?P<d>\d\d) " + _HMS + r"(?!\d)"),
    # HDFS: 081109 203615 (YYMMDD HHMMSS), only at the start of a line: elsewhere six digits are anything
    re.compile(r"^(?P<yy>\d\d)(?P<mo>\d\d)(?P<d>\d\d) (?P<h>[01]\d|2[0-3])(?P<mi>[0-5]\d)(?P<s>[0-5]\d)(?!\d)"),
]


@dataclass(frozen=True, order=True)
class Stamp:
    """A timestamp: ``key`` orders stamps (year 0 when the format has none, as syslog's), ``text`` is the stamp as
    the line wrote it."""

    key: tuple[int, int, int, int, int, int, str]
    text: str


def _stamp(m: re.Match[str]) -> Stamp | None:
    parts = m.groupdict()
    if parts.get("yy") is not None:
        year = 2000 + int(parts["yy"])
    else:
        year = int(parts["y"]) if parts.get("y") is not None else 0
    month = _MONTHS[parts["mon"]] if parts.get("mon") else int(parts["mo"])
    day = int(parts["d"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    fraction = (parts.get("f") or "")[1:].ljust(9, "0")
    key = (year, month, day, int(parts["h"]), int(parts["mi"]), int(parts["s"]), fraction)
    return Stamp(key, m.group(0).strip("[]"))


def find_stamp(line: str) -> Stamp | None:
    """The first timestamp in the start of ``line`` that any known format reads, else ``None``."""
    head = line[:SEARCH_CHARS]
    found: list[tuple[int, Stamp]] = []
    for pattern in _FORMATS:
        m = pattern.search(head)
        if m is not None:
            stamp = _stamp(m)
            if stamp is not None:
                found.append((m.start(), stamp))
    return min(found, key=lambda item: item[0])[1] if found else None


def strip_stamp(line: str) -> str:
    """``line`` without a timestamp at its very start (and the blanks after it): what stays the same from one
    occurrence of a message to the next."""
    head = line[:SEARCH_CHARS]
    for pattern in _FORMATS:
        m = pattern.match(head)
        if m is not None and _stamp(m) is not None:
            return line[m.end():].lstrip(" \t")
    return line
