"""Small tree-sitter helpers the language finders share (node text, the first syntax error, sink lists, the
trees kept from the constants pass)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import tree_sitter

from errdex.harvest.sinks import Sink

__all__ = ["KeptTrees", "compact", "first_error", "merged_sinks", "query_strings", "text"]

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


class KeptTrees:
    """A parser that keeps the trees the constants pass parses, so that the sites pass of the same file (in
    the same process, or a child forked after it) does not parse it again.

    A tree is found by the identity of its source bytes (the harvest holds each file's bytes for both
    passes), and is handed out once. At most ``budget`` bytes of source are kept: the oldest trees go first.
    """

    def __init__(self, parser: tree_sitter.Parser, budget: int = 8 << 20) -> None:
        self._parser, self._budget = parser, budget
        self._trees: dict[int, tuple[bytes, tree_sitter.Tree]] = {}
        self._held = 0

    def drop(self, source: bytes) -> None:
        """Let go of the tree kept for ``source``, if any."""
        kept = self._trees.pop(id(source), None)
        if kept is not None:
            self._held -= len(kept[0])

    def parse(self, source: bytes, *, keep: bool = False) -> tree_sitter.Tree:
        """The tree of ``source``: the kept one if there is one (and it is then let go), else parsed, and kept
        when ``keep``."""
        kept = self._trees.pop(id(source), None)
        if kept is not None:
            self._held -= len(kept[0])
            if kept[0] is source:
                return kept[1]
        tree = self._parser.parse(source)
        if keep and len(source) <= self._budget:
            while self._trees and self._held + len(source) > self._budget:
                oldest = next(iter(self._trees))
                self._held -= len(self._trees.pop(oldest)[0])
            self._trees[id(source)] = (source, tree)
            self._held += len(source)
        return tree
