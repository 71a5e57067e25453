"""C files tree-sitter cannot parse whole: the preprocessor's choices, made the two ways, parsed again.

tree-sitter reads a C file as it is written, preprocessor conditionals included. A conditional that splits an
expression, an initializer or a function's head (``void\\n#if X\\nf(int a)\\n#else\\nf(a)\\n#endif\\n{``, ``&& a\\n#if
X\\n&& b\\n#endif``) is a syntax error, and the error node it leaves can swallow the functions around it: their
calls are then misread, or lost.

:func:`variants` gives the file as the preprocessor could see it: every ``#if``/``#ifdef``/``#elif``/``#else``/
``#endif`` line blanked, and in each conditional only one branch kept (the first branch of each, then the last
branch of each: an ``#else`` is read in the second), the others blanked too. Blanking replaces every byte but the
line breaks with a space, so every byte keeps its offset and every site its line and column.

The finder parses the file whole, then, when that tree holds an error, each variant; a call is taken from the
first tree that reads it outside any error node and inside a function (:func:`misread`), else from the whole
file's tree as it was.
"""

from __future__ import annotations

import itertools
import re

from tree_sitter import Node

__all__ = ["misread", "variants"]

_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")


def _lines(source: bytes) -> list[tuple[int, int]]:
    """(start, end) byte offsets of each line, its line break excluded."""
    spans, start = [], 0
    while True:
        end = source.find(b"\n", start)
        if end < 0:
            spans.append((start, len(source)))
            return spans
        spans.append((start, end))
        start = end + 1


def _conditionals(source: bytes, spans: list[tuple[int, int]]) -> tuple[list[int], list[list[int]]]:
    """The lines that are conditional directives (a directive's continuation lines with it), and each closed
    conditional as the lines of its directives (``#if``, each ``#elif``/``#else``, ``#endif``)."""
    directives: list[int] = []
    stack: list[list[int]] = []
    closed: list[list[int]] = []
    number = 0
    while number < len(spans):
        start, end = spans[number]
        match = _DIRECTIVE.match(source, start, end)
        first = number
        while number < len(spans) - 1 and source[spans[number][0]:spans[number][1]].rstrip(b" \t\r").endswith(b"\\"):
            number += 1  # a directive continued on the next line
        if match is not None:
            directives.extend(range(first, number + 1))
            word = match.group(1)
            if word.startswith(b"if"):
                stack.append([first])
            elif stack and word == b"endif":
                stack[-1].append(first)
                closed.append(stack.pop())
            elif stack:
                stack[-1].append(first)
        number += 1
    return directives, closed


def variants(source: bytes) -> list[bytes]:
    """The file with one branch of each conditional kept (the first, then the last), each once and each unlike
    the file; [] when it has no conditional."""
    spans = _lines(source)
    directives, closed = _conditionals(source, spans)
    if not directives:
        return []
    found: list[bytes] = []
    for keep_last in (False, True):
        blank = set(directives)
        for lines in closed:
            branches = list(itertools.pairwise(lines))  # (directive, next directive) of each branch
            kept = len(branches) - 1 if keep_last else 0
            for index, (first, after) in enumerate(branches):
                if index != kept:
                    blank.update(range(first + 1, after))
        out = bytearray(source)
        for number in blank:
            start, end = spans[number]
            out[start:end] = re.sub(rb"[^\r]", b" ", source[start:end])
        variant = bytes(out)
        if variant != source and variant not in found:
            found.append(variant)
    return found


def misread(node: Node) -> bool:
    """Whether tree-sitter read the node in error: it holds a syntax error, lies in an error node, or lies
    in no function (a function whose head the error took leaves its body at the top level)."""
    if node.has_error:
        return True
    parent, in_function = node.parent, False
    while parent is not None:
        if parent.type == "ERROR":
            return True
        in_function = in_function or parent.type == "function_definition"
        parent = parent.parent
    return not in_function
