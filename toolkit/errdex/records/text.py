"""Text helpers shared by every presenter of a record: the terminal, the site and the API."""

from __future__ import annotations

import re

__all__ = ["anchor", "first_sentence"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_NOT_ANCHOR = re.compile(r"[^a-z0-9]+")


def first_sentence(text: str) -> str:
    """The text up to its first sentence end (``.``, ``!`` or ``?`` followed by white space)."""
    match = _SENTENCE_END.search(text)
    return text[: match.start()] if match else text


def anchor(text: str) -> str:
    """A stable fragment id for a heading or an entry: lowercase ASCII letters and digits joined by ``-``."""
    return _NOT_ANCHOR.sub("-", text.lower()).strip("-") or "x"
