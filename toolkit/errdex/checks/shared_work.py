"""The records of a batch checked on every core before the run reports them in order.

Checking a record no run has seen is pure Python: its schema, the one-record
checks and, for a new pattern, its analyses (size, portability,
backtracking, literals, the full match of its message, its shape), about
0.5 ms a record. Before a batch of records is reported, the ones the
results cache lacks are split into small tasks that this process and a
forked child take in turn (:class:`errdex.parallel.WorkQueue`); each task
fills the results cache (:mod:`errdex.checks.results`) and the pattern
facts, the child sends what it learnt back at its end, and the run then reports the
batch in order from the cache, as a warm run does. The findings are the
same either way (what is learnt is a pure function of each record); a child
that fails costs only time, as this process does its tasks again.
"""

from __future__ import annotations

import gc
import pickle
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

from errdex import parallel

__all__ = ["MIN_PARALLEL", "share"]

#: Fewer records than this are checked in this process alone: forking costs more than it saves.
MIN_PARALLEL = 200

#: Records per task: small enough that the two processes end together on a loaded machine.
_TASK = 64

T = TypeVar("T")


def share(items: list[T], work: Callable[[T], None], learnt: Callable[[], Any],
          absorb: Callable[[Any], None]) -> None:
    """``work`` on every item, split with a forked child when there are many: the child sends ``learnt()``
    once its tasks are done (what its work added since the fork), and this process ``absorb``s it."""
    if len(items) < MIN_PARALLEL or parallel.available_cpus() < 2 or not parallel.can_fork():
        for item in items:
            work(item)
        return
    tasks = [items[i:i + _TASK] for i in range(0, len(items), _TASK)]
    # The first task here, before forking: what the checks load and cache on first use (the analyses' modules,
    # the schema validators) is then loaded once, not in both processes.
    for item in tasks[0]:
        work(item)
    queue = parallel.WorkQueue(len(tasks) - 1)
    learnt()  # what the child sends starts from here

    def child_work(out: BinaryIO) -> None:
        taken = []
        while (index := queue.next()) is not None:
            index += 1
            for item in tasks[index]:
                work(item)
            taken.append(index)
        pickle.dump((taken, learnt()), out, protocol=pickle.HIGHEST_PROTOCOL)

    # Objects made so far stay out of the collector's reach: it would otherwise touch (and so copy) every page
    # of them in both processes.
    gc.freeze()
    child = parallel.start_child(child_work)
    done: set[int] = {0}
    try:
        while (index := queue.next()) is not None:
            index += 1
            for item in tasks[index]:
                work(item)
            done.add(index)
        for chunk in parallel.partial_items(child):
            if isinstance(chunk, tuple) and len(chunk) == 2 and isinstance(chunk[0], list):
                absorb(chunk[1])
                done.update(chunk[0])
    finally:
        gc.unfreeze()
        queue.close()
        parallel.stop_child(child)
    for index, task in enumerate(tasks):
        if index not in done:  # the child's, lost with it
            for item in task:
                work(item)
