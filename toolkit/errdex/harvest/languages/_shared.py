"""What the Java, C and Go finders share: a format string kept whole until it is read, and C-like escapes.

A finder builds a message as a list of pieces: the parts of :mod:`errdex.harvest.sites` plus :class:`Raw`,
literal text that is a format string in some style (``%s`` of printf, ``{}`` of SLF4J, Go verbs).
:func:`finish` reads each Raw with :func:`errdex.harvest.formats.parts` and returns a plain template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tree_sitter import Language, Node, Query, QueryCursor

from errdex.harvest.formats import join, parts
from errdex.harvest.languages._tree import first_error
from errdex.harvest.sinks import Sink
from errdex.harvest.sites import Choice, Hole, Part, Template, Text

__all__ = ["Piece", "Raw", "broken", "finish", "has_text", "nodes", "own_nodes", "prime", "sink_table", "unescape"]


@dataclass(frozen=True)
class Raw:
    """Literal text that is a format string in ``style`` (a :data:`~errdex.harvest.sinks.FormatStyle`, or
    ``java-format``); :func:`finish` turns it into Text and Holes."""

    text: str
    style: str


Piece = Text | Hole | Choice | Raw


def _read(raw: Raw) -> Template:
    return parts(raw.text, raw.style)


def finish(pieces: Iterable[Piece]) -> Template:
    """The template of a message: Raw formats read, adjacent texts merged, empty texts dropped."""
    return join(part for piece in pieces for part in (_read(piece) if isinstance(piece, Raw) else (piece,)))


def has_text(pieces: Iterable[Piece | Part]) -> bool:
    """Whether a message has any literal text (a Choice counts when one of its options has)."""
    for piece in pieces:
        if isinstance(piece, Text | Raw) and piece.text:
            if not isinstance(piece, Raw) or any(isinstance(p, Text) for p in _read(piece)):
                return True
        elif isinstance(piece, Choice) and any(has_text(option) for option in piece.options):
            return True
    return False


_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "e": "\x1b",
           "s": " "}
_ESCAPE = re.compile(r"\\(u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)",
                     re.DOTALL)


def _one(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "uU" and len(code) > 1:
        return chr(int(code[1:].strip("{}"), 16))
    if code[0] == "x" and len(code) > 1:
        return chr(int(code[1:], 16))
    if code[0] in "01234567":
        return chr(int(code, 8))
    if code == "\n":  # a line continuation inside a C string
        return ""
    return _SIMPLE.get(code, code)


def unescape(body: str) -> str:
    """A string literal's body (without quotes) as the program sees it: C, Java and Go escapes read."""
    return _ESCAPE.sub(_one, body) if "\\" in body else body


def broken(root: Node) -> str | None:
    """A parse error worth listing: the tree is mostly error nodes. tree-sitter recovers from local errors
    (in C, a macro it cannot expand is one), and the sites outside them are still read, so those are not
    listed."""
    if not root.has_error:
        return None
    size = max(root.end_byte - root.start_byte, 1)
    errors = sum(child.end_byte - child.start_byte for child in root.children if child.type == "ERROR")
    if root.type == "ERROR" or errors * 2 > size:
        return first_error(root)
    return None


_QUERIES: dict[tuple[int, tuple[str, ...]], Query] = {}


def _ordered(found: Iterable[Node]) -> list[Node]:
    return sorted(found, key=lambda node: (node.start_byte, -node.end_byte))


def nodes(language: Language, root: Node, kinds: tuple[str, ...]) -> list[Node]:
    """Every node of ``kinds`` under ``root``, in source order (an outer node before those inside it). A
    tree-sitter query finds them in C, several times faster than walking the tree in Python; the kinds
    :func:`prime` gathered for the same root are not searched for again."""
    primed = _PRIMED.get("root")
    if primed is not None and primed == root and all(kind in _PRIMED["kinds"] for kind in kinds):
        by_kind: dict[str, list[Node]] = _PRIMED["kinds"]
        return list(by_kind[kinds[0]]) if len(kinds) == 1 else _ordered(n for kind in kinds for n in by_kind[kind])
    key = (id(language), kinds)
    query = _QUERIES.get(key)
    if query is None:
        query = _QUERIES[key] = Query(language, " ".join(f"({kind}) @n" for kind in kinds))
    return _ordered(QueryCursor(query).captures(root).get("n", []))


#: What :func:`prime` gathered: the root (``root``) and its nodes by kind (``kinds``), for the last root only.
_PRIMED: dict[str, Any] = {}


def prime(language: Language, root: Node, kinds: tuple[str, ...]) -> None:
    """Find every node of ``kinds`` under ``root`` in one search, so that the :func:`nodes` calls a pass makes
    for those kinds on that root (several readers of one file) read them from there."""
    key = (id(language), ("primed", *kinds))
    query = _QUERIES.get(key)
    if query is None:
        query = _QUERIES[key] = Query(language, " ".join(f"({kind}) @{kind}" for kind in kinds))
    captured = QueryCursor(query).captures(root)
    _PRIMED.clear()
    _PRIMED.update(root=root, kinds={kind: _ordered(captured.get(kind, [])) for kind in kinds})


_TABLES: dict[tuple[int, int], tuple[Sequence[Sink], frozenset[Sink], Mapping[str, Sink], frozenset[str]]] = {}


def own_nodes(function: Node, kinds: tuple[str, ...], scopes: Iterable[str]) -> Iterator[Node]:
    """The nodes of ``kinds`` in a function's own body: not inside the functions and classes (``scopes``, the node
    kinds that open one) it holds."""
    closed = frozenset(scopes)
    stack = [function.child_by_field_name("body")]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        if current.type in kinds:
            yield current
        if current.type not in closed:
            stack.extend(current.children)


def sink_table(sinks: Sequence[Sink], defaults: frozenset[Sink]) -> tuple[Mapping[str, Sink], frozenset[str]]:
    """Name -> sink (a later sink, a project's after the defaults, replaces an earlier one of its name), and
    the names whose sink is one of ``defaults``. Built once per ``sinks`` object: a harvest hands a finder the
    same one for every file, and hashing every sink of it per file was a cost of its own."""
    key = (id(sinks), id(defaults))
    kept = _TABLES.get(key)
    if kept is not None and kept[0] is sinks and kept[1] is defaults:
        return kept[2], kept[3]
    table: dict[str, Sink] = {}
    for sink in sinks:
        table[sink.name] = sink
    default_names = frozenset(name for name, sink in table.items() if sink in defaults)
    if len(_TABLES) > 64:
        _TABLES.clear()
    _TABLES[key] = (sinks, defaults, table, default_names)
    return table, default_names
