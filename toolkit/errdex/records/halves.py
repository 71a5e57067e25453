"""A stream of items made from numbered inputs (record files), the second half made by a forked child: a
first load of 100,000 record files reads, checks and upgrades about 14,000 records a second on one core.

The items come in the order one process would give them: this process makes
and yields the first half's, then yields the child's, which it sent back in
chunks (:mod:`errdex.parallel`). A child that fails only costs time: this
process makes the second half itself, so what it raises is what one process
would have raised there.
"""

from __future__ import annotations

import contextlib
import gc
import pickle
import sys
from collections.abc import Callable, Iterator
from typing import BinaryIO, TypeVar

from errdex import parallel

__all__ = ["MIN_INPUTS", "in_two_halves", "paused_collector"]

T = TypeVar("T")

#: Fewer inputs than this are worked on here (forking costs a few milliseconds; a small dataset loads in less).
MIN_INPUTS = 4000
#: Items per chunk the child writes.
_CHUNK = 1000


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """Python's cycle collector off for the block (and in a child forked inside it), then as it was.

    A first load or plan makes millions of objects that stay alive (views, parse trees in the analyses'
    caches) and no cycles to speak of; each full collection walks all of them again, some 15% of a first
    start's CPU at 100,000 records. Results do not depend on it; cycles made inside are collected later.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What was made inside goes to the oldest generation, unwalked: left in the youngest, the next few
        # collections would each walk all of it (0.2 s apiece at 100,000 records) only to move it along. It stays
        # collectable, by the next full collection.
        gc.freeze()
        gc.unfreeze()
        if was:
            gc.enable()


def in_two_halves(produce: Callable[[range], Iterator[T]], count: int, *,
                  min_inputs: int | None = None) -> Iterator[T]:
    """The items of ``produce(range(0, count))`` extended past ``count`` to every later input, in order;
    ``produce(part)`` makes the items of the inputs at the positions in ``part``. ``count``: about how many
    inputs there are (where to split; any value gives the same items). Fewer than ``min_inputs`` (default
    :data:`MIN_INPUTS`) are all made here."""
    everything = range(0, sys.maxsize)
    least = MIN_INPUTS if min_inputs is None else min_inputs
    if count < least or parallel.available_cpus() < 2 or not parallel.can_fork():
        yield from produce(everything)
        return
    middle = count // 2

    def second_half(out: BinaryIO) -> None:
        chunk: list[T] = []
        for item in produce(range(middle, sys.maxsize)):
            chunk.append(item)
            if len(chunk) >= _CHUNK:
                pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)
                chunk = []
        pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)

    child = parallel.start_child(second_half)
    try:
        yield from produce(range(0, middle))
        chunks = parallel.child_items(child)  # None unless the child ended with its whole half written
        if chunks is None:
            yield from produce(range(middle, sys.maxsize))
            return
        try:
            for chunk in chunks:
                yield from chunk
        except (pickle.UnpicklingError, EOFError, ValueError, AttributeError) as exc:
            # items were given already: the caller's handling of a failed read (a load without the cache) applies
            raise OSError(f"the second half's results cannot be read back: {exc}") from exc
    finally:
        parallel.stop_child(child)
