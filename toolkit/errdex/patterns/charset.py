"""Sets of Unicode code points as sorted, merged, inclusive ranges.

A set is a tuple of ``(lo, hi)`` pairs with ``lo <= hi``, sorted and with no
two ranges overlapping or touching.  The empty set is ``()``.
"""

from __future__ import annotations

from collections.abc import Iterable

Ranges = tuple[tuple[int, int], ...]

MAX_CODE_POINT = 0x10FFFF

EMPTY: Ranges = ()
ALL: Ranges = ((0, MAX_CODE_POINT),)


def normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sort and merge ranges into canonical form."""
    items = sorted(ranges)
    out: list[tuple[int, int]] = []
    for lo, hi in items:
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def union(*sets: Ranges) -> Ranges:
    """Union of any number of sets."""
    if len(sets) == 1:
        return sets[0]
    return normalize(r for s in sets for r in s)


def negate(s: Ranges) -> Ranges:
    """Complement within ``0..MAX_CODE_POINT``."""
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in s:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE_POINT:
        out.append((nxt, MAX_CODE_POINT))
    return tuple(out)


def intersects(a: Ranges, b: Ranges) -> bool:
    """True if the two sets share at least one code point."""
    if not a or not b:
        return False
    if a is b:
        return True
    i = j = 0
    while i < len(a) and j < len(b):
        alo, ahi = a[i]
        blo, bhi = b[j]
        if alo <= bhi and blo <= ahi:
            return True
        if ahi < bhi:
            i += 1
        else:
            j += 1
    return False


def intersection(a: Ranges, b: Ranges) -> Ranges:
    """Code points in both sets."""
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def size(s: Ranges) -> int:
    """Number of code points in the set."""
    return sum(hi - lo + 1 for lo, hi in s)


DIGIT: Ranges = ((0x30, 0x39),)
WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
# JavaScript \s: WhiteSpace + LineTerminator.
SPACE: Ranges = normalize(
    [(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
     (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF)]
)
NOT_DIGIT: Ranges = negate(DIGIT)
NOT_WORD: Ranges = negate(WORD)
NOT_SPACE: Ranges = negate(SPACE)
# JavaScript ``.`` without the ``s`` flag: anything but a line terminator.
DOT: Ranges = negate(normalize([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]))

SHORTHAND: dict[str, Ranges] = {
    "d": DIGIT, "D": NOT_DIGIT, "w": WORD, "W": NOT_WORD, "s": SPACE, "S": NOT_SPACE,
}
