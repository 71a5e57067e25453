"""The portable subset: what keeps a pattern from meaning the same in every engine.

See the package docstring (:mod:`errdex.patterns`) for the exact subset.
"""

from __future__ import annotations

from functools import lru_cache

from . import charset as cs
from .nodefacts import NodeFacts, snippet
from .nodes import (
    Alternation,
    Anchor,
    Any,
    Backreference,
    CharClass,
    Group,
    Literal,
    Lookaround,
    Node,
    Pattern,
    PatternSyntaxError,
    Repeat,
    Sequence,
    class_set,
)
from .parser import parse
from .problem import PatternProblem

__all__ = [
    "EMPTY_MATCH",
    "MAX_DEPTH",
    "MAX_REPEAT",
    "is_portable",
    "matches_every_line",
    "portability",
    "portability_problems",
]

MAX_REPEAT = 1000
MAX_DEPTH = 50

_NOTE_MESSAGES = {
    "unicode_escape": "\\u escapes are rejected by RE2/DuckDB/hyperscan; write the character itself",
    "property_escape": "\\p{...}/\\P{...} property classes are not portable; use an explicit class "
                       "such as [A-Za-z]",
    "control_escape": "\\cX control escapes are not portable; use \\xHH",
    "nul_escape": "\\0 is not portable (RE2 rejects it); write \\x00",
    "space_class": "\\s/\\S differ between engines (Python and JavaScript count NBSP and other "
                   "Unicode spaces, RE2 and hyperscan do not); use [ \\t] or ' +' (for \\S: [^ \\t])",
    "empty_class": "[] never matches and [^] is not portable; use . for any character",
    "surrogate": "lone surrogate code points cannot be encoded as UTF-8; remove them",
}


class _Ctx:
    __slots__ = (
        "after",
        "before",
        "depth",
        "in_repeat",
        "next",
        "next_eos",
        "prev",
        "prev_bos",
        "product",
        "risky",
    )

    def __init__(self, depth: int, before: bool, after: bool, prev: cs.Ranges, prev_bos: bool,
                 next: cs.Ranges, next_eos: bool, product: int, in_repeat: bool = False,
                 risky: bool = False) -> None:
        self.depth = depth
        self.before = before        # text may have been consumed before this point
        self.after = after          # text may be consumed after this point
        self.prev = prev            # characters that may come right before (over-approximation)
        self.prev_bos = prev_bos    # the start of the line may come right before
        self.next = next            # characters that may come right after (over-approximation)
        self.next_eos = next_eos    # the end of the line may come right after
        self.product = product      # product of enclosing repeat counts (RE2's limit)
        self.in_repeat = in_repeat  # inside a repeat that can iterate more than once
        self.risky = risky          # a capture here may be skipped by an iteration

    def with_(self, **changes: object) -> _Ctx:
        c = _Ctx(self.depth, self.before, self.after, self.prev, self.prev_bos, self.next,
                 self.next_eos, self.product, self.in_repeat, self.risky)
        for k, v in changes.items():
            setattr(c, k, v)
        return c


def _boundary_possible(kind: str, ctx: _Ctx) -> bool:
    pw = cs.intersects(ctx.prev, cs.WORD)
    pn = cs.intersects(ctx.prev, cs.NOT_WORD) or ctx.prev_bos
    nw = cs.intersects(ctx.next, cs.WORD)
    nn = cs.intersects(ctx.next, cs.NOT_WORD) or ctx.next_eos
    if kind == "\\b":
        return (pw and nn) or (pn and nw)
    return (pw and nw) or (pn and nn)


class _PortabilityWalker:
    def __init__(self, pattern: Pattern) -> None:
        self.source = pattern.source
        self.facts = NodeFacts()
        self.problems: list[PatternProblem] = []
        self.depth_reported = False
        # Neighbour sets only matter for \b and \B (a cheap, conservative test).
        self.need_sets = "\\b" in pattern.source or "\\B" in pattern.source

    def add(self, offset: int, message: str) -> None:
        self.problems.append(PatternProblem(offset, message))

    def visit(self, node: Node, ctx: _Ctx) -> None:
        if isinstance(node, Sequence):
            self.visit_sequence(node, ctx)
        elif isinstance(node, Alternation):
            if ctx.in_repeat and not ctx.risky:
                ctx = ctx.with_(risky=True)
            for b in node.branches:
                self.visit(b, ctx)
        elif isinstance(node, Group):
            if node.name is not None:
                self.add(node.offset, f"named group (?<{node.name}>...) is rejected by Python re and "
                                      "DuckDB; use a plain capturing group (...)")
            if node.capturing and ctx.risky:
                self.add(node.offset, "capturing group inside a repeat whose iterations may skip it "
                                      "or match empty: engines disagree on what it captures "
                                      "(JavaScript resets it each iteration); make it (?:...) or "
                                      "capture the whole repeat")
            self.visit_nested(node, ctx)
        elif isinstance(node, Lookaround):
            what = "lookahead" if node.ahead else "lookbehind"
            self.add(node.offset, f"{what} {snippet(self.source, node, 12)} is not supported by "
                                  "RE2/DuckDB/hyperscan; match the text directly or drop the "
                                  "condition")
            self.visit_nested(node, ctx)
        elif isinstance(node, Backreference):
            ref = f"\\{node.ref}" if isinstance(node.ref, int) else f"\\k<{node.ref}>"
            self.add(node.offset, f"backreference {ref} is not supported by RE2/DuckDB/hyperscan; "
                                  "repeat the group's pattern instead")
        elif isinstance(node, Repeat):
            self.visit_repeat(node, ctx)
        elif isinstance(node, Anchor):
            self.visit_anchor(node, ctx)
        elif isinstance(node, CharClass) and node.items and not class_set(node):
            self.add(node.offset, f"class {snippet(self.source, node)} matches no character, "
                                  "so the pattern can never match (hyperscan rejects it)")

    def visit_nested(self, node: Group | Lookaround, ctx: _Ctx) -> None:
        depth = ctx.depth + 1
        if depth > MAX_DEPTH and not self.depth_reported:
            self.depth_reported = True
            self.add(node.offset, f"groups nested more than {MAX_DEPTH} deep; flatten the pattern")
        self.visit(node.child, ctx.with_(depth=depth))

    def visit_sequence(self, node: Sequence, ctx: _Ctx) -> None:
        if not self.need_sets:
            self.visit_sequence_flags(node, ctx)
            return
        items = node.items
        k = len(items)
        facts = self.facts
        # Right-to-left pass: what may follow each non-literal item.
        nexts: dict[int, tuple[cs.Ranges, bool, bool]] = {}
        nxt, eos, after = ctx.next, ctx.next_eos, ctx.after
        for j in range(k - 1, -1, -1):
            item = items[j]
            if type(item) is Literal:
                o = ord(item.char)
                after, nxt, eos = True, ((o, o),), False
                continue
            nexts[j] = (nxt, eos, after)
            if type(item) is Anchor and item.kind == "$":
                nxt, eos = cs.EMPTY, True
                continue
            f = facts(item)
            if f.zero_width:
                continue
            after = True
            if f.nullable:
                nxt = cs.union(nxt, f.first)
            else:
                nxt, eos = f.first, False
        prv, bos, before = ctx.prev, ctx.prev_bos, ctx.before
        for j in range(k):
            item = items[j]
            if type(item) is Literal:
                o = ord(item.char)
                before, prv, bos = True, ((o, o),), False
                continue
            if type(item) is not Any:
                n_set, n_eos, n_after = nexts[j]
                self.visit(item, _Ctx(ctx.depth, before, n_after, prv, bos, n_set, n_eos,
                                      ctx.product, ctx.in_repeat, ctx.risky))
            if type(item) is Anchor and item.kind == "^":
                prv, bos = cs.EMPTY, True
                continue
            f = facts(item)
            if f.zero_width:
                continue
            before = True
            if f.nullable:
                prv = cs.union(prv, f.last)
            else:
                prv, bos = f.last, False

    def visit_sequence_flags(self, node: Sequence, ctx: _Ctx) -> None:
        """Like :meth:`visit_sequence` when neighbour sets are not needed."""
        items = node.items
        facts = self.facts
        last_consuming = -1
        for j in range(len(items) - 1, -1, -1):
            item = items[j]
            if type(item) is Literal or not facts(item).zero_width:
                last_consuming = j
                break
        before = ctx.before
        for j, item in enumerate(items):
            t = type(item)
            if t is Literal or t is Any:
                before = True
                continue
            self.visit(item, _Ctx(ctx.depth, before, ctx.after or j < last_consuming, ctx.prev,
                                  ctx.prev_bos, ctx.next, ctx.next_eos, ctx.product,
                                  ctx.in_repeat, ctx.risky))
            if not before and not facts(item).zero_width:
                before = True

    def visit_repeat(self, node: Repeat, ctx: _Ctx) -> None:
        q = node.quantifier_offset
        quant = self.source[q:node.end]
        if node.max == 0:
            self.add(q, f"repeat {quant} matches nothing (hyperscan rejects it); delete the "
                        "repeated item")
        big = max(node.min, node.max or 0)
        product = ctx.product
        if big > MAX_REPEAT:
            self.add(q, f"repeat count in {quant} exceeds {MAX_REPEAT} (RE2's limit); use a smaller "
                        "bound or + / *")
        else:
            count = node.max if node.max is not None else node.min
            if count > 0:
                product *= count
                if product > MAX_REPEAT >= ctx.product:
                    self.add(q, f"nested repeat counts multiply to {product}, above RE2's limit of "
                                f"{MAX_REPEAT}; reduce the counts")
        child = node.child
        c = self.facts(child)
        if node.max is None or node.max > 1:
            if self.need_sets:
                prev, nxt = cs.union(ctx.prev, c.last), cs.union(ctx.next, c.first)
            else:
                prev, nxt = ctx.prev, ctx.next
            ctx = _Ctx(ctx.depth, ctx.before or not c.zero_width, ctx.after or not c.zero_width,
                       prev, ctx.prev_bos, nxt, ctx.next_eos, product, True,
                       ctx.risky or c.nullable or (ctx.in_repeat and node.min == 0))
        else:
            ctx = _Ctx(ctx.depth, ctx.before, ctx.after, ctx.prev, ctx.prev_bos, ctx.next,
                       ctx.next_eos, product, ctx.in_repeat,
                       ctx.risky or (node.min == 0 and (ctx.in_repeat or c.nullable)))
        self.visit(child, ctx)

    def visit_anchor(self, node: Anchor, ctx: _Ctx) -> None:
        if node.kind == "^":
            if ctx.before:
                self.add(node.offset, "^ must come first (in the pattern or in an alternative at its "
                                      "start); here text may precede it, so it cannot match "
                                      "portably (hyperscan rejects embedded anchors)")
        elif node.kind == "$":
            if ctx.after:
                self.add(node.offset, "$ must come last (in the pattern or in an alternative at its "
                                      "end); here text may follow it, so it cannot match portably "
                                      "(hyperscan rejects embedded anchors)")
        elif not _boundary_possible(node.kind, ctx):
            between = "word and non-word" if node.kind == "\\B" else "two word (or two non-word)"
            self.add(node.offset, f"{node.kind} sits between {between} characters here, so it can "
                                  "never match (hyperscan rejects it); remove it")


#: The portability problem of a pattern that can match the empty string.
EMPTY_MATCH = ("pattern can match the empty string, so it would match every line (hyperscan rejects it); "
               "make at least one character required")


def matches_every_line(pattern: str) -> bool:
    """True when the pattern's only portability problem is that it can match the empty string.

    Such a pattern occurs in every line; matchers can still run it (RE2 and
    DuckDB accept it, it just needs no prefilter), though validation rejects it.
    """
    problems = portability(pattern)
    return bool(problems) and all(p.message == EMPTY_MATCH for p in problems)


@lru_cache(maxsize=65536)
def portability(pattern: str) -> tuple[PatternProblem, ...]:
    try:
        parsed = parse(pattern)
    except PatternSyntaxError as e:
        return (PatternProblem(e.offset, e.message),)
    w = _PortabilityWalker(parsed)
    for note in parsed.notes:
        w.add(note.offset, _NOTE_MESSAGES[note.kind])
    root = parsed.root
    w.visit(root, _Ctx(0, False, False, cs.ALL, True, cs.ALL, True, 1))
    if w.facts(root).nullable:
        w.add(0, EMPTY_MATCH)
    seen: set[PatternProblem] = set()
    out: list[PatternProblem] = []
    for p in sorted(w.problems, key=lambda p: p.offset):
        if p not in seen:
            seen.add(p)
            out.append(p)
    return tuple(out)


def portability_problems(pattern: str) -> list[PatternProblem]:
    """Problems that keep ``pattern`` out of the portable subset (empty list: portable).

    Syntax errors are reported as a single problem (the first error).
    """
    return list(portability(pattern))


def is_portable(pattern: str) -> bool:
    """True if :func:`portability_problems` finds nothing."""
    return not portability(pattern)
