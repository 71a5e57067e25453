"""Whether a matcher may run a pattern: one rule for the CLI engine, the SQL index and the browser matcher.

The CLI matcher and the SQL index (RE2 and hyperscan, linear time) run every
pattern within the size bounds (EDX125) that is portable, and also the ones
whose only fault is that they can match the empty string: those occur in
every line and are matched on every line, ranked last. The in-browser matcher
runs a backtracking engine, so it leaves out those, and every pattern with a
backtracking problem (EDX123), too.
"""

from __future__ import annotations

from collections.abc import Sequence

from .backtracking import backtracking_problems
from .portability import EMPTY_MATCH, portability_problems
from .size import size_problems

__all__ = ["refusal", "refusal_of"]


def refusal_of(size: Sequence[str], portability: Sequence[str], backtracking: Sequence[str] = (), *,
               browser: bool = False) -> str | None:
    """Why a matcher refuses a pattern with these problems (each list's messages in offset order), or None.

    ``browser``: the rule of the in-browser matcher (no pattern that matches every line, nor one that may
    backtrack badly); otherwise the rule of ``errdex match`` and the SQL index.
    """
    if size:
        return size[0]
    if portability and (browser or any(message != EMPTY_MATCH for message in portability)):
        return portability[0]
    if browser and backtracking:
        return backtracking[0]
    return None


def refusal(pattern: str, *, browser: bool = False) -> str | None:
    """Why a matcher refuses ``pattern`` (read as written: normalise its escapes first), or None when it runs it.

    A pattern over the size bounds is analysed no further (every analysis would pay for its size).
    """
    size = [p.message for p in size_problems(pattern)]
    if size:
        return size[0]
    portability = [p.message for p in portability_problems(pattern)]
    backtracking = [p.message for p in backtracking_problems(pattern)] if browser and not portability else []
    return refusal_of(size, portability, backtracking, browser=browser)
