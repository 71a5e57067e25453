"""Patterns that backtrack catastrophically: exponential ambiguity and runs of optional parts.

The polynomial case (overlapping repeats side by side) is in :mod:`.polynomial`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from . import charset as cs
from .automaton import LOOP_COUNT, Glushkov, exponentially_ambiguous
from .nodefacts import NodeFacts, fits, snippet, walk
from .nodes import (
    Alternation,
    Any,
    CharClass,
    Literal,
    Node,
    Pattern,
    PatternSyntaxError,
    Repeat,
    Sequence,
)
from .parser import parse
from .polynomial import Polynomial, splits
from .problem import PatternProblem

__all__ = ["backtracking", "backtracking_problems"]

# Above this many character positions inside one unbounded repeat, the exact
# ambiguity check is replaced by a cheaper syntactic one.
_MAX_GLUSHKOV_POSITIONS = 64


def _contains(node: Node, kinds: type | tuple[type, ...], pred: Callable[[Node], bool] = lambda n: True
              ) -> bool:
    return any(isinstance(n, kinds) and pred(n) for n in walk(node))


def _loops(node: Node) -> bool:
    """A repeat that iterates often enough for ambiguity in its body to multiply."""
    return isinstance(node, Repeat) and (node.max is None or node.max >= LOOP_COUNT)


class _Exponential:
    """(a) exponential: ambiguity inside repeats that loop."""

    def __init__(self, pattern: Pattern) -> None:
        self.source = pattern.source
        self.facts = NodeFacts()
        self.problems: list[PatternProblem] = []

    def run(self, unbounded: list[Repeat]) -> None:
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
        g = Glushkov(self.facts)
        # A counted repeat is judged as its unbounded form: what is ambiguous in one iteration multiplies.
        g.build(node if node.max is None else Repeat(body, node.min, None, node.lazy, node.offset, node.end,
                                                     node.quantifier_offset))
        if len(g.sets) > _MAX_GLUSHKOV_POSITIONS:
            ambiguous = nested or any(
                isinstance(a, Alternation) and _branches_overlap(a, self.facts)
                for a in walk(body))
        else:
            ambiguous = exponentially_ambiguous(g)
        if not ambiguous:
            return False
        text = snippet(self.source, node)
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
            node.offset, f"{text} backtracks exponentially on lines that almost match: {why}; "
                         f"{fix}"))
        return True


def _branches_overlap(node: Alternation, facts: NodeFacts) -> bool:
    firsts = [facts(b).first for b in node.branches]
    return any(cs.intersects(firsts[i], firsts[j])
               for i in range(len(firsts)) for j in range(i + 1, len(firsts)))


#: Optional parts in a row that can match the same character (``a?`` written out, or the required iterations of
#: ``(?:a?){n}``): a backtracking engine tries 2^n ways of sharing the text among them at every start position.
_OPTIONAL_RUN = 8


def _optional_runs(parsed: Pattern, facts: NodeFacts) -> list[PatternProblem]:
    """(c) exponential in a count: runs of at least :data:`_OPTIONAL_RUN` optional parts that overlap."""
    problems = []
    for node in walk(parsed.root):
        if (isinstance(node, Repeat) and node.min >= _OPTIONAL_RUN and facts(node.child).nullable
                and facts.alphabet(node.child)):
            problems.append(PatternProblem(node.offset, (
                f"{snippet(parsed.source, node)} backtracks exponentially on lines that almost match: each of its "
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
                elif not (run and fits(item, shared)):  # a required part the optional ones cannot match ends the run
                    run = 0
    return problems


@lru_cache(maxsize=65536)
def backtracking(pattern: str) -> tuple[PatternProblem, ...]:
    try:
        parsed = parse(pattern)
    except PatternSyntaxError:
        return ()
    runs = _optional_runs(parsed, NodeFacts())
    unbounded: list[Repeat] = []  # repeats checked for exponential ambiguity: unbounded or iterating often
    splitting = 0  # repeats that split text in many ways (unbounded or with a wide count)
    multi = False  # a counted repeat that may iterate twice
    for n in walk(parsed.root):
        if isinstance(n, Repeat):
            if _loops(n):
                unbounded.append(n)
            if n.max is not None and n.max > 1:
                multi = True
            if splits(n):
                splitting += 1
    if not unbounded and not splitting:
        return tuple(sorted(set(runs), key=lambda p: (p.offset, p.message)))
    b = _Exponential(parsed)
    b.run(unbounded)
    if splitting > 1 or (splitting and multi):
        Polynomial(parsed.source, b.facts, b.problems).run(parsed.root)
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
    return list(backtracking(pattern))
