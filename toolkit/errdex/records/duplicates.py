"""Finding items that share a key (two records of one id, one slug, one page), in one pass.

Validation reports every clash (id-unique, slug-unique, page-path-unique); the commands that
build from records (index, export, release, diff) refuse the first one. Both
ask the same question, answered here once: which earlier item already holds
this key.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

__all__ = ["FirstSeen", "first_duplicate"]

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class FirstSeen(Generic[K, T]):
    """The first item seen under each key, and every later item whose key was taken, with that first item."""

    def __init__(self) -> None:
        self.first: dict[K, T] = {}
        self.clashes: list[tuple[T, T]] = []

    def add(self, key: K, item: T) -> T | None:
        """Note ``item`` under ``key``; the earlier item that holds the key (the clash is noted), else None."""
        first = self.first.setdefault(key, item)
        if first is item:
            return None
        self.clashes.append((item, first))
        return first


def first_duplicate(items: Iterable[T], key: Callable[[T], K]) -> tuple[T, T] | None:
    """The first item whose key an earlier item has, with that earlier item; None when every key is unique."""
    seen: FirstSeen[K, T] = FirstSeen()
    for item in items:
        if seen.add(key(item), item) is not None:
            return seen.clashes[0]
    return None
