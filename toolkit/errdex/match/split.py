"""One pure function over a long list, its second half worked on in a forked child: a first start at 100,000
records analyses every pattern, some 45 us each, and the machine has more than one core.

The result is the list ``[work(item) for item in items]`` whatever the
number of processes: :func:`errdex.records.halves.in_two_halves` makes the
second half's results in a child and gives them back in order, and a child
that fails only costs time (this process does its half too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from errdex.records.halves import in_two_halves

__all__ = ["MIN_ITEMS", "split_map"]

T = TypeVar("T")

#: Fewer items than this are worked on here: forking costs a few milliseconds, and a cached start never plans.
MIN_ITEMS = 4000


def split_map(work: Callable[[T], Any], items: Sequence[T], *, min_items: int | None = None) -> list[Any]:
    """``[work(item) for item in items]``, the second half done by a forked child when there are at least
    ``min_items`` items (default :data:`MIN_ITEMS`), two CPUs for this process and forking is safe
    (:func:`errdex.parallel.can_fork`)."""
    least = MIN_ITEMS if min_items is None else min_items
    if len(items) < max(least, 2):
        return [work(item) for item in items]

    def produce(part: range) -> Iterator[Any]:
        return (work(items[i]) for i in range(part.start, min(part.stop, len(items))))

    try:
        return list(in_two_halves(produce, len(items), min_inputs=0))
    except OSError:  # the child's results could not be read back: the list is made here
        return [work(item) for item in items]
