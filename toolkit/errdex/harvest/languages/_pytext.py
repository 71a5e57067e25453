"""Python message helpers that need no tree: a message's first line, a format read in each option of a choice,
an unknown expression as a hole, and text methods applied to a literal."""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter

from errdex.harvest.formats import formatted, join
from errdex.harvest.languages._tree import compact
from errdex.harvest.pattern import has_literal
from errdex.harvest.sites import Choice, Hole, Part, Template, Text

__all__ = ["TEXT_METHODS", "applied", "first_line", "formatted_each", "hole"]

Node = tree_sitter.Node

TEXT_METHODS: dict[str, Callable[[str], str]] = {"strip": str.strip, "rstrip": str.rstrip, "lstrip": str.lstrip}


def first_line(template: Template) -> Template:
    """What a message writes up to its first line break: ``logging`` writes a message of several lines as
    that many lines, and a log is matched line by line, so the first line is the one to find. The template as
    it is when that first line has no literal text of its own (``"%s:\\n--hash=%s"``)."""
    for number, part in enumerate(template):
        if isinstance(part, Text) and "\n" in part.text.rstrip("\r\n"):
            head = (*template[:number], Text(part.text.split("\n", 1)[0]))
            return join(head) if has_literal(head) else template
    return template


def formatted_each(template: Template, style: str) -> Template:
    """:func:`formatted`, and the texts of each choice's options read in ``style`` too."""
    return formatted(tuple(Choice(tuple(formatted_each(o, style) for o in p.options)) if isinstance(p, Choice) else p
                           for p in template), style)


def hole(node: Node) -> tuple[Part, ...]:
    """An expression whose text is not known, shown as an f-string writes it (``{name}``)."""
    return (Hole("{" + compact(node) + "}"),)


def applied(parts: tuple[Part, ...], change: Callable[[str], str]) -> tuple[Part, ...] | None:
    """A text-only message changed by ``change`` (``"...".strip()``, ``dedent("...")``); None otherwise."""
    if not all(isinstance(p, Text) for p in parts):
        return None
    return join([Text(change("".join(p.text for p in parts if isinstance(p, Text))))])
