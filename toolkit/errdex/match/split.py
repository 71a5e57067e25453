"""One pure function over a long list, its second half worked on in a forked child: a first start at 100,000
records analyses every pattern, some 90 us each, and the machine has more than one core.

The result is the list ``[work(item) for item in items]`` whatever the
number of processes: the child sends its results back in order, in chunks
(:mod:`errdex.parallel`), and a child that fails only costs time (this
process does its half too).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, TypeVar

from errdex import parallel

__all__ = ["MIN_ITEMS", "split_map"]

T = TypeVar("T")

#: Fewer items than this are worked on here: forking costs a few milliseconds, and a cached start never plans.
MIN_ITEMS = 4000
#: Results per chunk the child writes.
_CHUNK = 2000


def split_map(work: Callable[[T], Any], items: Sequence[T], *, min_items: int | None = None) -> list[Any]:
    """``[work(item) for item in items]``, the second half done by a forked child when there are at least
    ``min_items`` items (default :data:`MIN_ITEMS`), two CPUs for this process and forking is safe
    (:func:`errdex.parallel.can_fork`)."""
    least = MIN_ITEMS if min_items is None else min_items
    if len(items) < max(least, 2) or parallel.available_cpus() < 2 or not parallel.can_fork():
        return [work(item) for item in items]
    middle = len(items) // 2

    def second_half(out: BinaryIO) -> None:
        for start in range(middle, len(items), _CHUNK):
            pickle.dump([work(item) for item in items[start:min(start + _CHUNK, len(items))]], out,
                        protocol=pickle.HIGHEST_PROTOCOL)

    child = parallel.start_child(second_half)
    try:
        results = [work(item) for item in items[:middle]]
        chunks = parallel.child_items(child)
        rest: list[Any] = []
        if chunks is not None:
            try:
                for chunk in chunks:
                    rest += chunk
            except (pickle.UnpicklingError, EOFError, ValueError, OSError):
                rest = []
        if len(rest) != len(items) - middle:  # the child failed: this process does its half
            rest = [work(item) for item in items[middle:]]
        return results + rest
    finally:
        parallel.stop_child(child)
