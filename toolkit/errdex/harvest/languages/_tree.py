"""Small tree-sitter helpers the language finders share (node text, the first syntax error, sink lists, the
trees kept from the constants pass, and the one guarded way to parse a file)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence

import tree_sitter

from errdex.harvest.languages import Unparsable
from errdex.harvest.sinks import Sink

__all__ = ["MAX_SITE_NODES", "PARSE_SECONDS", "KeptTrees", "compact", "first_error", "merged_sinks", "oversized",
           "parse", "plus_operands", "query_strings", "text"]

#: CPU seconds one file's parse may take; past them the parser gives up and the file is skipped. Files
#: under the harvest's size bound parse in well under a second each.
PARSE_SECONDS = 20.0


#: (id of the parser, id of the source) -> (source, why): files already refused, so that the sites pass does
#: not spend the time bound again on a file the constants pass gave up on. Few, and bounded.
_REFUSED: dict[tuple[int, int], tuple[bytes, str]] = {}


def parse(parser: tree_sitter.Parser, source: bytes,
          check: Callable[[bytes], str | None] | None = None) -> tree_sitter.Tree:
    """The tree of ``source``, or :class:`Unparsable`: when ``check(source)`` names why the parser must not
    see it (a shape that crashes the grammar's own code, which no Python handler could catch), or when the
    parse takes more than :data:`PARSE_SECONDS` of CPU time."""
    key = (id(parser), id(source))
    refused = _REFUSED.get(key)
    if refused is not None and refused[0] is source:
        raise Unparsable(refused[1])
    why = check(source) if check is not None else None
    if why is None:
        clock = time.process_time
        deadline = clock() + PARSE_SECONDS
        try:  # the progress callback is only called when the source is read through a callable
            timed = parser.parse(lambda at, _point: source[at:at + (1 << 20)],
                                 progress_callback=lambda _at, _error: clock() > deadline)
            # A tree read through a callable calls it again for each node's text (slow, and from C: deep in
            # a finder's recursion, that overflowed the stack). Parsed again from the bytes with the old tree,
            # which is all reused, it holds them.
            return parser.parse(source, old_tree=timed)
        except ValueError:  # py-tree-sitter's "Parsing failed": the callback cancelled the parse
            parser.reset()  # or the next parse would resume this one
            why = f"the parser gave up after {PARSE_SECONDS:g} s of CPU time"
    if len(_REFUSED) >= 64:
        del _REFUSED[next(iter(_REFUSED))]
    _REFUSED[key] = (source, why)
    raise Unparsable(why)

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


def plus_operands(node: tree_sitter.Node, kind: str) -> list[tree_sitter.Node] | None:
    """The operands of a chain of ``+`` (``"a " + x + "b"``, a tree of ``kind`` nodes that leans left), left to
    right: read along the left side in a loop, so that a chain of any length is read whole, at one depth, and
    no recursion grows with it. None when ``node`` is not a ``+``."""
    rights: list[tree_sitter.Node] = []
    while node.type == kind:
        left, operator, right = (node.child_by_field_name(name) for name in ("left", "operator", "right"))
        if left is None or right is None or operator is None or operator.type != "+":
            break
        rights.append(right)
        node = left
    if not rights:
        return None
    return [node, *reversed(rights)]


def merged_sinks(defaults: Sequence[Sink], given: Sequence[Sink]) -> list[Sink]:
    """A project's sinks and the language's, a project's first (it may give a logger method its own level),
    each once."""
    return list(dict.fromkeys([*given, *defaults]))


def query_strings(names: Iterable[str]) -> str:
    """Names as the quoted strings of a tree-sitter ``#any-of?`` predicate, sorted."""
    return " ".join('"' + n.replace("\\", "\\\\").replace('"', '\\"') + '"' for n in sorted(set(names)))


#: Syntax nodes a statement that writes a message may hold for errdex to read it (its call with every argument,
#: or its throw). A real one holds a few dozen; one with thousands (an f-string of 64,000 holes, a call of
#: 10,000 arguments) could not give a pattern the matchers take, and reading it would cost time that grows
#: faster than its size. The site is skipped as ``too-large`` instead.
MAX_SITE_NODES = 2000


def oversized(node: tree_sitter.Node) -> str | None:
    """Why the statement at ``node`` is not read (the detail of its ``too-large`` skip), or None."""
    count = node.descendant_count
    if count <= MAX_SITE_NODES:
        return None
    return f"the statement holds {count:,} syntax nodes, over the {MAX_SITE_NODES:,} errdex reads: {compact(node)[:80]}"


class KeptTrees:
    """A parser that keeps the trees the constants pass parses, so that the sites pass of the same file (in
    the same process, or a child forked after it) does not parse it again.

    A tree is found by the identity of its source bytes (the harvest holds each file's bytes for both
    passes), and is handed out once. At most ``budget`` bytes of source are kept: the oldest trees go first.
    """

    def __init__(self, parser: tree_sitter.Parser, budget: int = 8 << 20,
                 check: Callable[[bytes], str | None] | None = None) -> None:
        self._parser, self._budget, self._check = parser, budget, check
        self._trees: dict[int, tuple[bytes, tree_sitter.Tree]] = {}
        self._held = 0

    def drop(self, source: bytes) -> None:
        """Let go of the tree kept for ``source``, if any."""
        kept = self._trees.pop(id(source), None)
        if kept is not None:
            self._held -= len(kept[0])

    def parse(self, source: bytes, *, keep: bool = False) -> tree_sitter.Tree:
        """The tree of ``source``: the kept one if there is one (and it is then let go), else parsed (by
        :func:`parse`, with the ``check`` given: :class:`Unparsable` when it is refused), and kept when
        ``keep``."""
        kept = self._trees.pop(id(source), None)
        if kept is not None:
            self._held -= len(kept[0])
            if kept[0] is source:
                return kept[1]
        tree = parse(self._parser, source, self._check)
        if keep and len(source) <= self._budget:
            while self._trees and self._held + len(source) > self._budget:
                oldest = next(iter(self._trees))
                self._held -= len(self._trees.pop(oldest)[0])
            self._trees[id(source)] = (source, tree)
            self._held += len(source)
        return tree
