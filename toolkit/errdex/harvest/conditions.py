"""A guard's condition as the code writes it, read as words for a drafted ``triggerScenarios``.

``not isinstance(x, str) and y is None`` reads "x is not a str and y is None"; ``creationMayHaveSucceeded &&
!processId`` reads "creationMayHaveSucceeded is set and processId is not set". The same rules serve every
language: ``and``/``&&``, ``or``/``||``, ``not``/``!``, comparisons (``==``/``===`` "is", ``!=``/``!==`` "is not",
``<`` "is less than"...), ``in``/``not in``, ``isinstance``/``instanceof``, ``hasattr``, ``startswith``/
``endswith``. What no rule reads is kept as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["in_words"]

_SPACE = re.compile(r"\s+")
#: Operators that join clauses, outside brackets and strings: (pattern, word).
_JOINERS = ((re.compile(r"\s*\|\|\s*|\s+or\s+"), " or "), (re.compile(r"\s*&&\s*|\s+and\s+"), " and "))
_COMPARISONS = (("!==", "is not"), ("===", "is"), ("!=", "is not"), ("==", "is"), ("<=", "is at most"),
                (">=", "is at least"), ("<", "is less than"), (">", "is greater than"), (" is not ", "is not"),
                (" not in ", "is not in"), (" in ", "is in"), (" instanceof ", "is a"))
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->|\?\.)[A-Za-z_$][\w$]*)*")
_ISINSTANCE = re.compile(r"isinstance\((.+?),\s*\(?([\w., ]+?)\)?\)")
_HASATTR = re.compile(r"hasattr\((.+?),\s*['\"](\w+)['\"]\)")
_AFFIX = re.compile(r"(.+)\.(startswith|endswith|startsWith|endsWith)\((.+)\)")
#: The most text a condition may hold to be read; a longer one is kept as written.
MAX_CONDITION = 400


def in_words(condition: str) -> str:
    """The condition in words (see the module's docstring); as written when it is too long to read."""
    condition = _SPACE.sub(" ", condition).strip()
    if len(condition) > MAX_CONDITION:
        return condition
    return _words(condition)


def _words(text: str) -> str:
    text = _unwrapped(text.strip())
    for pattern, word in _JOINERS:
        parts = _split(text, pattern)
        if len(parts) > 1:
            read = [_words(part) for part in parts]
            return word.join(f"({part})" if word == " and " and " or " in part else part for part in read)
    negated = _negated(text)
    if negated is not None:
        return _negation(_words(negated))
    return _atom(text)


def _negated(text: str) -> str | None:
    if text.startswith("not ") or text.startswith("not("):
        return text[3:].strip()
    if text.startswith("!") and not text.startswith("!="):
        return text[1:].strip()
    return None


def _negation(words: str) -> str:
    for positive, negative in ((" is not ", " is "), (" has no ", " has "), (" does not start with ", " starts with "),
                               (" does not end with ", " ends with ")):
        if negative in words and positive not in words and " and " not in words and " or " not in words:
            return words.replace(negative, positive, 1)
    if words.endswith(" is not set"):
        return words[:-len(" is not set")] + " is set"
    if " and " in words or " or " in words:
        return f"not ({words})"
    return f"{words} is false" if "(" in words else f"not {words}"


def _atom(text: str) -> str:
    match = _ISINSTANCE.fullmatch(text)
    if match is not None:
        kinds = [kind.strip() for kind in match.group(2).split(",") if kind.strip()]
        if kinds:
            return f"{match.group(1)} is {_article(kinds[0])} {' or '.join(kinds)}"
    match = _HASATTR.fullmatch(text)
    if match is not None:
        return f"{match.group(1)} has {match.group(2)}"
    match = _AFFIX.fullmatch(text)
    if match is not None and _balanced(match.group(3)):
        verb = "starts with" if match.group(2).lower().startswith("starts") else "ends with"
        return f"{match.group(1)} {verb} {match.group(3)}"
    for operator, word in _COMPARISONS:
        if operator not in text:
            continue
        parts = _split(text, re.compile(re.escape(operator)))
        if len(parts) == 2:
            left, right = (part.strip() for part in parts)
            if word == "is a":
                return f"{left} is {_article(right)} {right}"
            return f"{left} {word} {right}"
    if _NAME.fullmatch(text):
        return f"{text} is set"
    return text


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _unwrapped(text: str) -> str:
    """``(a and b)`` without the brackets that hold all of it."""
    while text.startswith("(") and text.endswith(")") and _closing(text, 0) == len(text) - 1:
        text = text[1:-1].strip()
    return text


def _outside(text: str, start: int = 0) -> Iterator[tuple[int, int]]:
    """Each position of ``text`` from ``start`` that is outside a string literal, with the bracket depth before
    its character."""
    depth, quote = 0, ""
    for at in range(start, len(text)):
        char = text[at]
        if quote:
            quote = "" if char == quote and text[at - 1] != "\\" else quote
            continue
        if char in "'\"`":
            quote = char
            continue
        yield at, depth
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1


def _closing(text: str, start: int) -> int:
    """Where the bracket opened at ``start`` closes, or -1."""
    return next((at for at, depth in _outside(text, start) if text[at] in ")]}" and depth == 1), -1)


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")")


def _split(text: str, pattern: re.Pattern[str]) -> list[str]:
    """``text`` cut at each match of ``pattern`` outside brackets and strings."""
    if pattern.search(text) is None:
        return [text]  # nowhere to cut: no need to walk the text
    parts: list[str] = []
    start = 0
    for at, depth in _outside(text):
        if at < start or depth or text[at] in "([{)]}":
            continue
        match = pattern.match(text, at)
        if match is not None and match.end() > at and at > start:
            parts.append(text[start:at])
            start = match.end()
    parts.append(text[start:])
    return [part for part in parts if part.strip()] if len(parts) > 1 else [text]
