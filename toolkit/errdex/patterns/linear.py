"""A proof that a backtracking engine searches a line for the pattern in linear time."""

from __future__ import annotations

from functools import lru_cache

from . import charset as cs
from .automaton import Glushkov, in_cycles, most_overlapping
from .backtracking import backtracking
from .literals import lits
from .nodefacts import NodeFacts, children, walk
from .nodes import Anchor, PatternSyntaxError, Sequence
from .parser import parse
from .portability import portability

__all__ = ["linear_time"]

#: Patterns with more positions than this are not proven linear (the proof's own cost stays small).
_MAX_LINEAR_POSITIONS = 2000
#: The most paths a backtracking engine may follow at once through the parts of a pattern that do not loop.
_MAX_PATHS = 64


@lru_cache(maxsize=65536)  # the site asks once per record after validation asked: the proof builds an automaton
def _linear(pattern: str) -> bool:
    try:
        parsed = parse(pattern)
    except PatternSyntaxError:
        return False
    if portability(pattern) or backtracking(pattern):
        return False
    facts = NodeFacts()
    g = Glushkov(facts, loop_counted=True)
    _, first, last = g.build(parsed.root)
    n = len(g.sets)
    if n > _MAX_LINEAR_POSITIONS:
        return False
    succ: list[list[int]] = [[] for _ in range(n)]
    for (p, q), count in g.edges.items():
        succ[p].extend([q] * count)  # parallel edges: that many ways to take the step
    looping = in_cycles(n, succ)
    # (1) per start position: paths through the pattern multiply only where successors overlap; positions on
    # a cycle must never branch, the others may, up to _MAX_PATHS paths in all.
    paths = most_overlapping([g.sets[q] for q in first])
    for p in range(n):
        branching = most_overlapping([g.sets[q] for q in succ[p]])
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
    anchored = any(isinstance(c, Anchor) for n_ in walk(root) for c in (n_, *children(n_)))
    finishing = set(last) if not anchored else set()  # a path that reaches these has matched already
    guarded = [p for p in looping if p not in finishing]
    if not guarded:
        return True
    found = lits(root)
    prefix = found.exact if found.exact is not None else found.prefix
    blockers: list[cs.Ranges]
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
