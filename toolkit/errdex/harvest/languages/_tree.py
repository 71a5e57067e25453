"""Small tree-sitter helpers the language finders share (node text, the first syntax error, sink lists)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import tree_sitter

from errdex.harvest.sinks import Sink

__all__ = ["compact", "first_error", "merged_sinks", "query_strings", "text"]

_LINE_BREAK = re.compile(r"[ \t]*\r?\n[ \t]*")


def text(node: tree_sitter.Node | None) -> str:
    """A node's source text (invalid UTF-8 replaced); "" for no node."""
    return "" if node is None else (node.text or b"").decode("utf-8", "replace")


def compact(node: tree_sitter.Node) -> str:
    """A node's source on one line (each line break and the indentation around it as one space): how an
    expression that spans lines is shown in a message."""
    return _LINE_BREAK.sub(" ", text(node))


def first_error(root: tree_sitter.Node) -> str:
    """Where the first syntax error of a tree is, in words (``syntax error at line 3``)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return f"syntax error at line {node.start_point.row + 1}"
        stack.extend(reversed(node.children))
    return "syntax error"


def merged_sinks(defaults: Sequence[Sink], given: Sequence[Sink]) -> list[Sink]:
    """A project's sinks and the language's, a project's first (it may give a logger method its own level),
    each once."""
    return list(dict.fromkeys([*given, *defaults]))


def query_strings(names: Iterable[str]) -> str:
    """Names as the quoted strings of a tree-sitter ``#any-of?`` predicate, sorted."""
    return " ".join('"' + n.replace("\\", "\\\\").replace('"', '\\"') + '"' for n in sorted(set(names)))
