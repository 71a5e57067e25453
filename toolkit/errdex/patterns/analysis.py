"""Static analysis of parsed patterns: portability, backtracking and literals.

See the package docstring (:mod:`errdex.patterns`) for the exact portable
subset and the rules used here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from . import charset as cs
from .syntax import (
    Alternation, Anchor, Any, Backreference, CharClass, Group, Literal, Lookaround, Node, Pattern,
    PatternSyntaxError, Repeat, Sequence, class_set, parse,
)

__all__ = [
    "PatternProblem", "MAX_REPEAT", "MAX_DEPTH", "portability_problems", "backtracking_problems",
    "literal_chars", "variable_parts", "required_literals", "group_count", "is_portable", "linear_time",
]

MAX_REPEAT = 1000
MAX_DEPTH = 50
# Above this many character positions inside one unbounded repeat, the exact
# ambiguity check is replaced by a cheaper syntactic one.
_MAX_GLUSHKOV_POSITIONS = 64
# A counted repeat that may iterate this many times is checked for ambiguity like an unbounded one:
# (?:[a-z]{1,30}){1,30} splits one word in more ways than any line could wait for.
_LOOP_COUNT = 3
# A counted repeat with this much choice in its count (max - min) splits text like an unbounded one:
# .{0,1000}x.{0,1000}y tries a million splits per start position.
_WIDE_COUNT = 10
# Bounds of the separator bookkeeping of the polynomial check (the analysis itself stays linear).
_MAX_OPEN_TAILS = 64
_MAX_SEPARATORS = 16


@dataclass(frozen=True, slots=True)
class PatternProblem:
    """A problem found in a pattern: ``offset`` is a 0-based index into the source."""

    offset: int
    message: str


# ------------------------------------------------------------------ node facts


class _Facts:
    __slots__ = ("nullable", "zero_width", "first", "last")

    def __init__(self, nullable: bool, zero_width: bool, first: cs.Ranges, last: cs.Ranges) -> None:
        self.nullable = nullable      # can match the empty string
        # can match only the empty string and is not \b/\B (hyperscan refuses
        # word-boundary assertions before ^ and after $, so they count as content)
        self.zero_width = zero_width
        self.first = first            # characters that can start a non-empty match
        self.last = last              # characters that can end a non-empty match


_ZERO = _Facts(True, True, cs.EMPTY, cs.EMPTY)
_BOUNDARY = _Facts(True, False, cs.EMPTY, cs.EMPTY)
_DOT_FACTS = _Facts(False, False, cs.DOT, cs.DOT)
_LITERAL_FACTS: dict[str, _Facts] = {}


def _literal_facts(char: str) -> _Facts:
    f = _LITERAL_FACTS.get(char)
    if f is None:
        r = ((ord(char), ord(char)),)
        f = _Facts(False, False, r, r)
        if len(_LITERAL_FACTS) < 4096:
            _LITERAL_FACTS[char] = f
    return f


class _FactsCache:
    """Bottom-up facts, memoised per node object for one analysis run."""

    __slots__ = ("memo", "alpha_memo")

    def __init__(self) -> None:
        self.memo: dict[int, _Facts] = {}
        self.alpha_memo: dict[int, cs.Ranges] = {}

    def __call__(self, node: Node) -> _Facts:
        if type(node) is Literal:
            return _literal_facts(node.char)
        key = id(node)
        f = self.memo.get(key)
        if f is None:
            f = self._compute(node)
            self.memo[key] = f
        return f

    def _compute(self, node: Node) -> _Facts:
        if isinstance(node, CharClass):
            r = class_set(node)
            return _Facts(False, False, r, r)
        if isinstance(node, Any):
            return _DOT_FACTS
        if isinstance(node, Anchor):
            return _ZERO if node.kind in ("^", "$") else _BOUNDARY
        if isinstance(node, Lookaround):
            return _BOUNDARY
        if isinstance(node, Backreference):
            return _Facts(True, False, cs.ALL, cs.ALL)
        if isinstance(node, Group):
            return self(node.child)
        if isinstance(node, Repeat):
            if node.max == 0:
                return _ZERO
            c = self(node.child)
            if node.min == 0 and not c.nullable:
                return _Facts(True, c.zero_width, c.first, c.last)
            return c
        if isinstance(node, Alternation):
            fs = [self(b) for b in node.branches]
            return _Facts(any(f.nullable for f in fs), all(f.zero_width for f in fs),
                          cs.union(*(f.first for f in fs)), cs.union(*(f.last for f in fs)))
        assert isinstance(node, Sequence)
        items = node.items
        if not items:
            return _ZERO
        firsts: list[cs.Ranges] = []
        nullable = True
        zero = True
        for item in items:
            f = self(item)
            if nullable:
                firsts.append(f.first)
            nullable = nullable and f.nullable
            zero = zero and f.zero_width
            if not nullable and not zero:
                break  # neither flag nor the first set can change any more
        lasts: list[cs.Ranges] = []
        for item in reversed(items):
            f = self(item)
            lasts.append(f.last)
            if not f.nullable:
                break
        return _Facts(nullable, zero, cs.union(*firsts), cs.union(*lasts))

    def alphabet(self, node: Node) -> cs.Ranges:
        """Every character the node can consume."""
        key = id(node)
        a = self.alpha_memo.get(key)
        if a is None:
            if isinstance(node, (Literal, CharClass, Any, Backreference)):
                a = self(node).first
            elif isinstance(node, Repeat) and node.max == 0:
                a = cs.EMPTY
            else:
                kids = _children(node)
                a = cs.union(*(self.alphabet(k) for k in kids)) if kids else cs.EMPTY
            self.alpha_memo[key] = a
        return a


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, (Group, Repeat, Lookaround)):
        return (node.child,)
    if isinstance(node, Sequence):
        return node.items
    if isinstance(node, Alternation):
        return node.branches
    return ()


_LEAVES = (Literal, CharClass, Any, Anchor, Backreference)


def _walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal of the non-leaf nodes below and including ``node``."""
    if isinstance(node, _LEAVES):
        return
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in reversed(_children(n)) if not isinstance(c, _LEAVES))


def _snippet(source: str, node: Node, limit: int = 40) -> str:
    text = source[node.offset:node.end]
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ----------------------------------------------------------------- portability

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
    __slots__ = ("depth", "before", "after", "prev", "prev_bos", "next", "next_eos", "product",
                 "in_repeat", "risky")

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
        self.facts = _FactsCache()
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
            self.add(node.offset, f"{what} {_snippet(self.source, node, 12)} is not supported by "
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
        elif isinstance(node, CharClass):
            if node.items and not class_set(node):
                self.add(node.offset, f"class {_snippet(self.source, node)} matches no character, "
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
    problems = _portability(pattern)
    return bool(problems) and all(p.message == EMPTY_MATCH for p in problems)


@lru_cache(maxsize=65536)
def _portability(pattern: str) -> tuple[PatternProblem, ...]:
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
    return list(_portability(pattern))


def is_portable(pattern: str) -> bool:
    """True if :func:`portability_problems` finds nothing."""
    return not _portability(pattern)


# ----------------------------------------------------------------- backtracking


class _Glushkov:
    """Position automaton with parallel edges counted (each repeat adds its own loop edges)."""

    __slots__ = ("facts", "sets", "edges", "loop_counted")

    def __init__(self, facts: _FactsCache, loop_counted: bool = False) -> None:
        self.facts = facts
        self.sets: list[cs.Ranges] = []
        self.edges: dict[tuple[int, int], int] = {}
        # counted repeats of more than _LOOP_COUNT iterations built as unbounded ones (more paths, never fewer)
        self.loop_counted = loop_counted

    def edge(self, p: int, q: int) -> None:
        self.edges[(p, q)] = self.edges.get((p, q), 0) + 1

    def combine(self, parts: list[tuple[bool, list[int], list[int]]]) -> tuple[bool, list[int],
                                                                               list[int]]:
        pending: list[int] = []
        first: list[int] = []
        nullable = True
        for nul, f, last in parts:
            for p in pending:
                for q in f:
                    self.edge(p, q)
            if nullable:
                first = first + f
            pending = pending + last if nul else list(last)
            nullable = nullable and nul
        return nullable, first, pending

    def build(self, node: Node) -> tuple[bool, list[int], list[int]]:
        if isinstance(node, (Literal, CharClass, Any, Backreference)):
            self.sets.append(self.facts.alphabet(node))
            p = len(self.sets) - 1
            return isinstance(node, Backreference), [p], [p]
        if isinstance(node, (Anchor, Lookaround)):
            return True, [], []
        if isinstance(node, Group):
            return self.build(node.child)
        if isinstance(node, Sequence):
            return self.combine([self.build(i) for i in node.items])
        if isinstance(node, Alternation):
            parts = [self.build(b) for b in node.branches]
            return (any(p[0] for p in parts), [q for p in parts for q in p[1]],
                    [q for p in parts for q in p[2]])
        assert isinstance(node, Repeat)
        lo, hi = node.min, node.max
        if hi == 0:
            return True, [], []
        if self.loop_counted and hi is not None and hi > _LOOP_COUNT:
            hi = None
        n1 = min(lo, 3)
        if hi is None:
            parts = [self.build(node.child) for _ in range(max(n1 - 1, 0))]
            nul, first, last = self.build(node.child)
            for p in last:
                for q in first:
                    self.edge(p, q)
            parts.append((nul or lo == 0, first, last))
            return self.combine(parts)
        m1 = n1 if hi == lo else max(min(hi, 3), n1 + 1)
        parts = [self.build(node.child) for _ in range(n1)]
        parts.append(self.optional_chain(node.child, m1 - n1))
        return self.combine(parts)

    def optional_chain(self, child: Node, k: int) -> tuple[bool, list[int], list[int]]:
        """``(x(x(x)?)?)?`` with ``k`` copies of ``x``."""
        if k == 0:
            return True, [], []
        head = self.build(child)
        _, first, last = self.combine([head, self.optional_chain(child, k - 1)])
        return True, first, last


def _exponentially_ambiguous(g: _Glushkov) -> bool:
    """Whether the automaton has a state with two distinct cycles reading the same word.

    Standard test on the squared automaton: some strongly connected component
    contains a diagonal pair (p, p) and either an off-diagonal pair or a
    diagonal step that can be taken along two parallel edges.
    """
    n = len(g.sets)
    sets = g.sets
    succ: list[list[int]] = [[] for _ in range(n)]
    for (p, q) in g.edges:
        succ[p].append(q)
    compat: dict[tuple[int, int], bool] = {}

    def ok(a: int, b: int) -> bool:
        key = (a, b) if a <= b else (b, a)
        v = compat.get(key)
        if v is None:
            v = compat[key] = cs.intersects(sets[a], sets[b])
        return v

    def pair_succ(node: int) -> list[int]:
        p, q = divmod(node, n)
        return [a * n + b for a in succ[p] for b in succ[q] if ok(a, b)]

    # The pairs reachable from diagonal pairs, component by component.
    roots = (start * n + start for start in range(n))
    return any(_component_is_ambiguous(comp, n, g.edges) for comp in _components(roots, pair_succ))


def _component_is_ambiguous(comp: list[int], n: int, edges: dict[tuple[int, int], int]) -> bool:
    diag = [x // n for x in comp if x // n == x % n]
    if not diag:
        return False
    if len(diag) < len(comp):
        return True
    members = set(diag)
    return any(c >= 2 and p in members and q in members for (p, q), c in edges.items())


def _contains(node: Node, kinds: type | tuple[type, ...], pred: Callable[[Node], bool] = lambda n: True
              ) -> bool:
    return any(isinstance(n, kinds) and pred(n) for n in _walk(node))


def _unbounded(node: Node) -> bool:
    return isinstance(node, Repeat) and node.max is None


def _loops(node: Node) -> bool:
    """A repeat that iterates often enough for ambiguity in its body to multiply."""
    return isinstance(node, Repeat) and (node.max is None or node.max >= _LOOP_COUNT)


def _splits(node: Repeat) -> bool:
    """A repeat whose length is free enough for two of them to split text between them in many ways."""
    return node.max is None or node.max - node.min >= _WIDE_COUNT


def _fits(node: Node, chars: cs.Ranges) -> bool:
    """Whether the node can match some text (possibly empty) made only of ``chars``."""
    if isinstance(node, Literal):
        o = ord(node.char)
        return cs.intersects(((o, o),), chars)
    if isinstance(node, CharClass):
        return cs.intersects(class_set(node), chars)
    if isinstance(node, Any):
        return cs.intersects(cs.DOT, chars)
    if isinstance(node, Anchor):
        return node.kind not in ("^", "$")
    if isinstance(node, (Group, Lookaround)):
        return _fits(node.child, chars)
    if isinstance(node, Sequence):
        return all(_fits(item, chars) for item in node.items)
    if isinstance(node, Alternation):
        return any(_fits(branch, chars) for branch in node.branches)
    if isinstance(node, Repeat):
        return node.min == 0 or node.max == 0 or _fits(node.child, chars)
    return True  # backreference


class _Open:
    """A repeat that text may still be split against, and the required items met since it."""

    __slots__ = ("repeat", "alphabet", "separators")

    def __init__(self, repeat: Repeat, alphabet: cs.Ranges, separators: tuple[Node, ...] = ()) -> None:
        self.repeat = repeat
        self.alphabet = alphabet
        self.separators = separators


class _Backtracking:
    def __init__(self, pattern: Pattern) -> None:
        self.source = pattern.source
        self.facts = _FactsCache()
        self.problems: list[PatternProblem] = []
        self.heads_memo: dict[int, list[Repeat]] = {}
        self.tails_memo: dict[int, list[Repeat]] = {}

    # (a) exponential: ambiguity inside unbounded repeats
    def exponential(self, unbounded: list[Repeat]) -> None:
        """Report the innermost unbounded repeats whose body is ambiguous."""
        flagged: list[Repeat] = []
        for node in sorted(unbounded, key=lambda r: r.end - r.offset):
            body = node.child
            if isinstance(body, (Literal, CharClass, Any)):
                continue
            if any(node.offset <= f.offset and f.end <= node.end for f in flagged):
                continue
            if self.ambiguous(node):
                flagged.append(node)

    def ambiguous(self, node: Repeat) -> bool:
        body = node.child
        nested = _contains(body, Repeat, _loops)
        alternation = _contains(body, Alternation)
        g = _Glushkov(self.facts)
        # A counted repeat is judged as its unbounded form: what is ambiguous in one iteration multiplies.
        g.build(node if node.max is None else Repeat(body, node.min, None, node.lazy, node.offset, node.end,
                                                     node.quantifier_offset))
        if len(g.sets) > _MAX_GLUSHKOV_POSITIONS:
            ambiguous = nested or any(
                isinstance(a, Alternation) and _branches_overlap(a, self.facts)
                for a in _walk(body))
        else:
            ambiguous = _exponentially_ambiguous(g)
        if not ambiguous:
            return False
        snippet = _snippet(self.source, node)
        if nested and node.max is not None:
            why = (f"a repeat nested in a repeat of up to {node.max} iterations can split the same text "
                   f"in a number of ways exponential in the {node.max} iterations")
            fix = "drop the inner or the outer count, or separate repetitions by a literal"
        elif nested:
            why = ("a repeat nested in another repeat can split the same text in exponentially "
                   "many ways")
            fix = "drop the inner or the outer quantifier, or separate repetitions by a literal"
        elif alternation:
            why = "alternatives inside this repeat can match the same text"
            fix = "make the alternatives mutually exclusive"
        else:
            why = "the repeated part can match the same text in more than one way"
            fix = "make each repetition unambiguous"
        self.problems.append(PatternProblem(
            node.offset, f"{snippet} backtracks exponentially on lines that almost match: {why}; "
                         f"{fix}"))
        return True

    # (b) polynomial: overlapping unbounded repeats with only optional items between
    def heads(self, node: Node) -> list[Repeat]:
        return self._ends(node, self.heads_memo, front=True)

    def tails(self, node: Node) -> list[Repeat]:
        return self._ends(node, self.tails_memo, front=False)

    def _ends(self, node: Node, memo: dict[int, list[Repeat]], front: bool) -> list[Repeat]:
        got = memo.get(id(node))
        if got is not None:
            return got
        out: list[Repeat]
        if isinstance(node, Repeat):
            if node.max == 0:
                out = []
            elif _splits(node):
                out = [node]
            else:
                out = self._ends(node.child, memo, front)
        elif isinstance(node, Group):
            out = self._ends(node.child, memo, front)
        elif isinstance(node, Alternation):
            out = [r for b in node.branches for r in self._ends(b, memo, front)]
        elif isinstance(node, Sequence):
            out = []
            for item in (node.items if front else reversed(node.items)):
                out += self._ends(item, memo, front)
                if not self.facts(item).nullable:
                    break
        else:
            out = []
        memo[id(node)] = out
        return out

    def required_after(self, root: Node) -> dict[int, bool]:
        """Node id -> whether text is still required after the node (so a match can fail after it)."""
        out: dict[int, bool] = {}
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, after = stack.pop()
            out[id(node)] = after
            if isinstance(node, Sequence):
                later = after
                for item in reversed(node.items):
                    stack.append((item, later))
                    later = later or not self.facts(item).nullable
            elif isinstance(node, Alternation):
                stack.extend((b, after) for b in node.branches)
            elif isinstance(node, (Group, Lookaround)):
                stack.append((node.child, after))
            elif isinstance(node, Repeat):
                stack.append((node.child, after or (node.min >= 2 and not self.facts(node.child).nullable)))
        return out

    def polynomial(self, root: Node) -> None:
        reported: set[int] = set()
        after = self.required_after(root)

        def report(t: Repeat, h: Repeat, across: bool, separators: tuple[Node, ...] = ()) -> None:
            if id(h) in reported:
                return
            reported.add(id(h))
            a, b = _snippet(self.source, t, 20), _snippet(self.source, h, 20)
            if separators:
                between = "".join(self.source[n.offset:n.end] for n in separators)
                if len(between) > 20:
                    between = between[:17] + "..."
                self.problems.append(PatternProblem(
                    h.offset, f"{a} (at {t.offset}) and {b} can both match {between!r} between them, so a match "
                              "that fails later tries every way of splitting the text (polynomial "
                              "backtracking); make one side unable to match the separator (such as "
                              "[^=]* instead of .*? before =) or make their character sets disjoint"))
                return
            if across:
                where = f"{b} repeated back to back"
            else:
                where = f"{a} (at {t.offset}) and {b}"
            self.problems.append(PatternProblem(
                h.offset, f"{where} can match the same characters with only optional items "
                          "between them, so a failing match tries every split (polynomial "
                          "backtracking); put a required literal between them or make their "
                          "character sets disjoint"))

        def meet(open_tails: list[_Open], item: Node) -> None:
            for h in self.heads(item):
                ha = self.facts.alphabet(h)
                for o in open_tails:
                    if o.repeat is h:
                        continue
                    shared = cs.intersection(o.alphabet, ha)
                    if not shared:
                        continue
                    if not o.separators:
                        report(o.repeat, h, False)
                        break
                    if after.get(id(h), False) and all(_fits(n, shared) for n in o.separators):
                        report(o.repeat, h, False, o.separators)
                        break

        def absorbed(open_tails: list[_Open], item: Node) -> list[_Open]:
            """The open repeats that can also match what a required item matches (the item between them)."""
            kept = []
            for o in open_tails:
                if len(o.separators) < _MAX_SEPARATORS and _fits(item, o.alphabet):
                    kept.append(_Open(o.repeat, o.alphabet, (*o.separators, item)))
            return kept

        for node in _walk(root):
            if isinstance(node, Sequence):
                open_tails: list[_Open] = []
                for item in node.items:
                    if isinstance(item, _LEAVES):
                        if open_tails and not isinstance(item, Anchor):
                            open_tails = absorbed(open_tails, item)
                        continue
                    meet(open_tails, item)
                    tails = [_Open(t, self.facts.alphabet(t)) for t in self.tails(item)]
                    if self.facts(item).nullable:
                        open_tails = open_tails + tails
                    else:
                        open_tails = absorbed(open_tails, item) + tails
                    del open_tails[:-_MAX_OPEN_TAILS]
            elif isinstance(node, Repeat) and node.max is not None and node.max > 1:
                for h in self.heads(node.child):
                    ha = self.facts.alphabet(h)
                    for t in self.tails(node.child):
                        if cs.intersects(self.facts.alphabet(t), ha):
                            report(t, h, t is h)
                            break


def _branches_overlap(node: Alternation, facts: _FactsCache) -> bool:
    firsts = [facts(b).first for b in node.branches]
    return any(cs.intersects(firsts[i], firsts[j])
               for i in range(len(firsts)) for j in range(i + 1, len(firsts)))


#: Optional parts in a row that can match the same character (``a?`` written out, or the required iterations of
#: ``(?:a?){n}``): a backtracking engine tries 2^n ways of sharing the text among them at every start position.
_OPTIONAL_RUN = 8


def _optional_runs(parsed: Pattern, facts: _FactsCache) -> list[PatternProblem]:
    """(c) exponential in a count: runs of at least :data:`_OPTIONAL_RUN` optional parts that overlap."""
    problems = []
    for node in _walk(parsed.root):
        if (isinstance(node, Repeat) and node.min >= _OPTIONAL_RUN and facts(node.child).nullable
                and facts.alphabet(node.child)):
            problems.append(PatternProblem(node.offset, (
                f"{_snippet(parsed.source, node)} backtracks exponentially on lines that almost match: each of its "
                f"{node.min} required iterations may match text or nothing, 2^{node.min} ways to try; put the count "
                f"on the inner part (such as a{{0,{node.min}}} for (?:a?){{{node.min}}})")))
        elif isinstance(node, Sequence):
            run, shared, start = 0, cs.EMPTY, 0
            for item in node.items:
                alphabet = facts.alphabet(item)
                if facts(item).nullable and alphabet:
                    common = cs.intersection(shared, alphabet) if run else alphabet
                    run, shared, start = (run + 1, common, start) if common else (1, alphabet, item.offset)
                    if run == _OPTIONAL_RUN:
                        text = parsed.source[start:item.end]
                        text = text if len(text) <= 40 else text[:37] + "..."
                        problems.append(PatternProblem(start, (
                            f"{text} backtracks exponentially on lines that almost match: {run} optional parts in a "
                            f"row can match the same characters, 2^{run} ways to share them; write one counted "
                            "repeat instead (such as [0-9]{0,8} for [0-9]?[0-9]?...)")))
                elif not (run and _fits(item, shared)):  # a required part the optional ones cannot match ends the run
                    run = 0
    return problems


@lru_cache(maxsize=65536)
def _backtracking(pattern: str) -> tuple[PatternProblem, ...]:
    try:
        parsed = parse(pattern)
    except PatternSyntaxError:
        return ()
    runs = _optional_runs(parsed, _FactsCache())
    unbounded: list[Repeat] = []  # repeats checked for exponential ambiguity: unbounded or iterating often
    splitting = 0  # repeats that split text in many ways (unbounded or with a wide count)
    multi = False  # a counted repeat that may iterate twice
    for n in _walk(parsed.root):
        if isinstance(n, Repeat):
            if _loops(n):
                unbounded.append(n)
            if n.max is not None and n.max > 1:
                multi = True
            if _splits(n):
                splitting += 1
    if not unbounded and not splitting:
        return tuple(sorted(set(runs), key=lambda p: (p.offset, p.message)))
    b = _Backtracking(parsed)
    b.exponential(unbounded)
    if splitting > 1 or (splitting and multi):
        b.polynomial(parsed.root)
    return tuple(sorted(set(b.problems + runs), key=lambda p: (p.offset, p.message)))


def backtracking_problems(pattern: str) -> list[PatternProblem]:
    """Shapes that make backtracking engines (Python ``re``, browsers) slow.

    (a) exponential: an unbounded repeat whose body can match the same text in
    more than one way -- nested unbounded repeats such as ``(a+)+`` or
    ``(.*)*``, overlapping alternatives such as ``(\\w|\\d)+`` or ``(a|a)*``,
    ``(a|aa)+`` -- decided exactly on the repeat's position automaton;
    (b) polynomial: two unbounded repeats whose character sets overlap with
    only nullable items between them (``\\d+\\d+``, ``(.*?)(.*?)``,
    ``(\\w+)_?(\\w+)``), also through group boundaries, alternatives and the
    iterations of a counted repeat (``(\\d+){2}``).  A required literal in
    between (``(.*?) foo (.*?)``, ``(\\d+)\\.(\\d+)``) is fine.

    Unparseable patterns give ``[]`` (see :func:`portability_problems`).
    """
    return list(_backtracking(pattern))


# ---------------------------------------------------------------- linear time

#: Patterns with more positions than this are not proven linear (the proof's own cost stays small).
_MAX_LINEAR_POSITIONS = 2000
#: The most paths a backtracking engine may follow at once through the parts of a pattern that do not loop.
_MAX_PATHS = 64


def _most_overlapping(sets: list[cs.Ranges]) -> int:
    """The largest number of the sets that share one character."""
    events: list[tuple[int, int]] = []
    for s in sets:
        for lo, hi in s:
            events.append((lo, 1))
            events.append((hi + 1, -1))
    events.sort()
    best = depth = 0
    for _, step in events:
        depth += step
        best = max(best, depth)
    return best


def _components(roots: Iterable[int], successors: Callable[[int], Iterable[int]]) -> Iterator[list[int]]:
    """The strongly connected components of the graph reachable from ``roots`` (iterative Tarjan, so deep
    graphs cannot exhaust Python's stack), each as soon as it is complete; a caller may stop early."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    counter = 0
    for root in roots:
        if root in index:
            continue
        work: list[tuple[int, Iterator[int]]] = [(root, iter(successors(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(successors(w))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                yield comp


def _in_cycles(n: int, succ: list[list[int]]) -> set[int]:
    """The positions that lie on a cycle (strongly connected components of more than one, or a self-loop)."""
    looping: set[int] = set()
    for comp in _components(range(n), succ.__getitem__):
        if len(comp) > 1 or comp[0] in succ[comp[0]]:
            looping.update(comp)
    return looping


@lru_cache(maxsize=65536)
def _linear(pattern: str) -> bool:
    try:
        parsed = parse(pattern)
    except PatternSyntaxError:
        return False
    if _portability(pattern) or _backtracking(pattern):
        return False
    facts = _FactsCache()
    g = _Glushkov(facts, loop_counted=True)
    _, first, last = g.build(parsed.root)
    n = len(g.sets)
    if n > _MAX_LINEAR_POSITIONS:
        return False
    succ: list[list[int]] = [[] for _ in range(n)]
    for (p, q), count in g.edges.items():
        succ[p].extend([q] * count)  # parallel edges: that many ways to take the step
    looping = _in_cycles(n, succ)
    # (1) per start position: paths through the pattern multiply only where successors overlap; positions on
    # a cycle must never branch, the others may, up to _MAX_PATHS paths in all.
    paths = _most_overlapping([g.sets[q] for q in first])
    for p in range(n):
        branching = _most_overlapping([g.sets[q] for q in succ[p]])
        if p in looping:
            if branching > 1:
                return False
        else:
            paths *= max(branching, 1)
    if paths > _MAX_PATHS:
        return False
    # (2) over start positions: an attempt runs on through looping positions only as far as they can consume
    # the text. When some character of the literal prefix every match starts with (or, without one, every
    # character that can start a match) is one that no such position can consume, each attempt stops before
    # that character of later attempts' prefixes (give or take the pattern's other positions), so all attempts
    # together read each character a bounded number of times.
    root = parsed.root
    items = root.items if isinstance(root, Sequence) else (root,)
    if items and isinstance(items[0], Anchor) and items[0].kind == "^":
        return True  # one attempt only
    anchored = any(isinstance(c, Anchor) for n_ in _walk(root) for c in (n_, *_children(n_)))
    finishing = set(last) if not anchored else set()  # a path that reaches these has matched already
    guarded = [p for p in looping if p not in finishing]
    if not guarded:
        return True
    lits = _lits(root)
    prefix = lits.exact if lits.exact is not None else lits.prefix
    if prefix:
        blockers = [((ord(c), ord(c)),) for c in set(prefix)]
    else:
        blockers = [cs.union(*(g.sets[q] for q in first))]
    return any(not any(cs.intersects(g.sets[p], b) for p in guarded) for b in blockers)


def linear_time(pattern: str) -> bool:
    """True when a backtracking engine (a browser's) searches any line for the pattern in time linear in the line.

    A sufficient condition, checked on the pattern's position automaton (counted repeats of more than
    three iterations taken as unbounded): the pattern is portable and has no backtracking problem;
    positions inside loops never branch on one character and the other positions allow at most 64 paths
    at once; and, unless the pattern starts with ``^``, some character of the literal prefix every match
    starts with (without one: every character that can start a match) is one that no looping position
    followed by required text can consume (``User (\\w+) logged in`` is linear; ``(.*?) failed`` and
    ``a[a-z]+x`` are quadratic on long lines). False when unsure.
    """
    return _linear(pattern)


# ------------------------------------------------------------------- literals


def _single_char(node: CharClass) -> str | None:
    s = class_set(node)
    if len(s) == 1 and s[0][0] == s[0][1]:
        return chr(s[0][0])
    return None


def _literal_chars(node: Node) -> int:
    if isinstance(node, Literal):
        return 1
    if isinstance(node, CharClass):
        return 1 if _single_char(node) is not None else 0
    if isinstance(node, Group):
        return _literal_chars(node.child)
    if isinstance(node, Sequence):
        return sum(_literal_chars(i) for i in node.items)
    if isinstance(node, Alternation):
        return min(_literal_chars(b) for b in node.branches)
    if isinstance(node, Repeat):
        return node.min * _literal_chars(node.child) if node.max != 0 else 0
    return 0


def literal_chars(pattern: str) -> int:
    """Number of literal characters every match must contain.

    Literals count 1 (a class of exactly one character, e.g. ``[.]``, counts
    as a literal); classes, ``.``, anchors and optional parts count 0; a
    repeat counts ``min`` times its body; an alternation counts its poorest
    branch.  Raises :class:`PatternSyntaxError` for invalid patterns.
    """
    return _literal_chars(parse(pattern).root)


def _is_literal(node: Node) -> bool:
    if isinstance(node, Literal):
        return True
    if isinstance(node, CharClass):
        return _single_char(node) is not None
    if isinstance(node, (Group, Repeat)):
        return _is_literal(node.child) and (not isinstance(node, Repeat) or node.max != 0)
    if isinstance(node, Sequence):
        return all(_is_literal(i) or isinstance(i, Anchor) for i in node.items)
    return False


def _variable_parts(node: Node) -> int:
    if isinstance(node, (Literal, Anchor)):
        return 0
    if isinstance(node, CharClass):
        return 0 if _single_char(node) is not None else 1
    if isinstance(node, (Any, Alternation, Backreference, Lookaround)):
        return 1
    if isinstance(node, Group):
        return _variable_parts(node.child)
    if isinstance(node, Sequence):
        return sum(_variable_parts(i) for i in node.items)
    assert isinstance(node, Repeat)
    if node.max == 0:
        return 0
    if node.min == node.max:
        return _variable_parts(node.child)
    if node.min == 0:
        return 1
    return 0 if _is_literal(node.child) else 1


def variable_parts(pattern: str) -> int:
    """Number of non-literal items in the pattern (groups are transparent).

    Counts 1 for: a class of more than one character, ``.``, an alternation
    (whatever its branches), an optional part (``x?``, ``x*``, ``x{0,n}``), a
    variable-count repeat of something non-literal (``\\d+``, ``(.+)``).  A
    variable-count repeat of a literal with ``min >= 1`` (``a+``, `` +``)
    counts 0; a fixed-count repeat counts like its body (``\\d{4}`` = 1).
    Literals and anchors count 0.  Raises :class:`PatternSyntaxError`.
    """
    return _variable_parts(parse(pattern).root)


@dataclass(slots=True)
class _Lits:
    exact: str | None      # the node always matches exactly this text
    prefix: str            # every match starts with this
    middles: list[str]     # every match contains these, in order, after prefix
    suffix: str            # every match ends with this


_MAX_EXPAND = 256


def _lits(node: Node) -> _Lits:
    if isinstance(node, Literal):
        return _Lits(node.char, node.char, [], node.char)
    if isinstance(node, CharClass):
        ch = _single_char(node)
        return _Lits(ch, ch, [], ch) if ch is not None else _Lits(None, "", [], "")
    if isinstance(node, (Anchor, Lookaround)):
        return _Lits("", "", [], "")
    if isinstance(node, Group):
        return _lits(node.child)
    if isinstance(node, Sequence):
        parts: list[_Lits] = []
        run: list[str] = []
        for item in node.items:
            if type(item) is Literal:  # the common case: a run of plain characters
                run.append(item.char)
                continue
            if run:
                text = "".join(run)
                parts.append(_Lits(text, text, [], text))
                run = []
            parts.append(_lits(item))
        if run:
            text = "".join(run)
            parts.append(_Lits(text, text, [], text))
        return _lits_seq(parts)
    if isinstance(node, Alternation):
        bs = [_lits(b) for b in node.branches]
        if all(b.exact is not None for b in bs) and len({b.exact for b in bs}) == 1:
            return bs[0]
        return _Lits(None, _common_prefix([b.prefix for b in bs]), [],
                     _common_suffix([b.suffix for b in bs]))
    if isinstance(node, Repeat):
        if node.max == 0 or node.min == 0:
            return _Lits("", "", [], "") if node.max == 0 else _Lits(None, "", [], "")
        b = _lits(node.child)
        if b.exact is not None:
            times = min(node.min, _MAX_EXPAND // max(len(b.exact), 1) or 1)
            text = b.exact * times
            if node.min == node.max and times == node.min:
                return _Lits(text, text, [], text)
            return _Lits(None, text, [], text)
        return _Lits(None, b.prefix, list(b.middles), b.suffix)
    return _Lits(None, "", [], "")  # Any, Backreference


def _lits_seq(parts: list[_Lits]) -> _Lits:
    if all(p.exact is not None for p in parts):
        text = "".join(p.exact or "" for p in parts)
        return _Lits(text, text, [], text)
    runs: list[str] = []
    cur = ""
    prefix: str | None = None
    for p in parts:
        if p.exact is not None:
            cur += p.exact
            continue
        cur += p.prefix
        if prefix is None:
            prefix = cur
        else:
            runs.append(cur)
        runs.extend(p.middles)
        cur = p.suffix
    return _Lits(None, prefix or "", [r for r in runs if r], cur)


def _common_prefix(xs: list[str]) -> str:
    if not xs:
        return ""
    a, b = min(xs), max(xs)
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[:i]


def _common_suffix(xs: list[str]) -> str:
    return _common_prefix([x[::-1] for x in xs])[::-1]


def required_literals(pattern: str) -> list[str]:
    """Maximal literal strings every match contains, in order of appearance.

    ``CreateOS request failed \\(HTTP (\\d+)\\) during (.+)\\.`` gives
    ``["CreateOS request failed (HTTP ", ") during ", "."]``.  Repeats with
    ``min >= 1`` contribute their body (``xa+y`` gives ``["xa", "ay"]``: two
    neighbours may overlap in the text when the repeat matches once);
    alternations contribute the common prefix/suffix of their branches; a
    one-character class such as ``[.]`` counts as a literal.
    Raises :class:`PatternSyntaxError`.
    """
    root = parse(pattern).root
    lits = _lits(root)
    if lits.exact is not None:
        return [lits.exact] if lits.exact else []
    out = [s for s in [lits.prefix, *lits.middles, lits.suffix] if s]
    while isinstance(root, Group):
        root = root.child
    if isinstance(root, Repeat) and len(out) == 2 and out[0] == out[1]:
        del out[1]  # ``(?:ab)+``: prefix and suffix may be the same occurrence
    return out


def exact_text(pattern: str) -> str | None:
    """The one text the pattern matches, when it is plain literal text (no groups, anchors or choices); else None.

    ``Sandbox 4 was not created\\.`` gives ``"Sandbox 4 was not created."``;
    a matcher can then find it with a substring search instead of a regex.
    Raises :class:`PatternSyntaxError`.
    """
    tree = parse(pattern)
    if tree.group_count or isinstance(tree.root, (Anchor, Backreference)):
        return None
    for node in _walk(tree.root):  # non-leaf nodes; their leaf children are checked here
        if isinstance(node, Lookaround) or any(isinstance(c, (Anchor, Backreference)) for c in _children(node)):
            return None
    return _lits(tree.root).exact or None


def group_count(pattern: str) -> int:
    """Number of capturing groups.  Raises :class:`PatternSyntaxError`."""
    return parse(pattern).group_count
