"""A statement's fingerprint: what it calls and how, without its message, and the function it sits in.

The call text (the statement's lines) loses its string literals (the message, which a rewording changes) and
all white space (so that re-indentation and re-wrapping do not matter); the enclosing function is put in
front. Two statements with one fingerprint make the same call with the same arguments in the same function:
when one record's message is gone and such a statement writes a similar one, the record was reworded.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

__all__ = ["SIMILAR", "fingerprint", "normalise", "similarity", "statement_text"]

#: How alike two messages must be (difflib's ratio) for a statement that writes the new one to be the old
#: statement reworded.
SIMILAR = 0.6

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`', re.DOTALL)
_SPACE = re.compile(r"\s+")


def statement_text(lines: Sequence[str], first: int, last: int) -> str:
    """The statement's lines (1-based, ``first``..``last``) as one text; "" when they are not in the file."""
    if first < 1 or first > len(lines):
        return ""
    return "\n".join(lines[first - 1 : max(first, last)])


def normalise(text: str) -> str:
    """The call text without its string literals (each left as ``""``) and without white space."""
    return _SPACE.sub("", _STRING.sub('""', text))


def fingerprint(function: str | None, text: str) -> str:
    """The fingerprint of a statement whose text is ``text`` in ``function`` (None: the top level)."""
    return f"{function or ''}\x00{normalise(text)}"


def similarity(old: str, new: str) -> float:
    """How alike two messages are, 0..1 (difflib's ratio)."""
    return difflib.SequenceMatcher(None, old, new, autojunk=False).ratio()
