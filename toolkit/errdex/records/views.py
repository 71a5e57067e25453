"""The small views of many records kept column by column, each view built as a dict when first asked for.

A cached start at 100,000 records must not pay for 100,000 dicts it will
mostly never look at: a match reads the view of the few records that hit a
line. The loader's cache holds one list per field (:data:`VIEW_FIELDS`), which
``marshal`` reads back as a handful of lists of strings; the matcher takes the
column of patterns it needs whole (:meth:`Views.column`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

__all__ = ["ABSENT", "VIEW_FIELDS", "Views", "view_of"]

#: The fields of a record that matching needs; the rest of a record is read when asked for.
VIEW_FIELDS = ("schemaVersion", "id", "slug", "repo", "errorClass", "severity", "messagePattern", "status")
#: A field the record does not have (no JSON value is ``...``, and ``marshal`` keeps it).
ABSENT: Any = ...


def view_of(record: dict[str, Any]) -> dict[str, Any]:
    """The view of one record: its :data:`VIEW_FIELDS` that it has, in that order."""
    return {name: record[name] for name in VIEW_FIELDS if name in record}


class Views(Sequence[dict[str, Any]]):
    """A sequence of record views over columns (``columns[field][position]``, :data:`ABSENT` where a record lacks
    the field), optionally in a chosen ``order`` of positions (:meth:`take`).

    A view is built once and kept, so asking twice gives the same dict (callers compare views by identity);
    :meth:`position_of` finds a built view's position in the columns.
    """

    def __init__(self, columns: dict[str, list[Any]], order: list[int] | None = None,
                 _shared: tuple[list[dict[str, Any] | None], dict[int, int]] | None = None) -> None:
        self._columns = [(name, columns[name]) for name in VIEW_FIELDS if name in columns]
        self._by_name = columns
        self._order = order
        size = len(columns[VIEW_FIELDS[1]])
        self._built, self._positions = _shared if _shared is not None else ([None] * size, {})
        self._len = size if order is None else len(order)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("view index out of range")
        position = index if self._order is None else self._order[index]
        view = self._built[position]
        if view is None:
            view = {name: value for name, column in self._columns if (value := column[position]) is not ABSENT}
            self._built[position] = view
            self._positions[id(view)] = position
        return view

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[i] for i in range(self._len))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable content, as a list's

    def column(self, name: str) -> list[Any]:
        """Every view's value of one field, in this sequence's order (:data:`ABSENT` where it has none)."""
        column = self._by_name.get(name)
        if column is None:
            return [ABSENT] * self._len
        return column if self._order is None else [column[i] for i in self._order]

    def take(self, indexes: Sequence[int]) -> Views:
        """The views at these indexes of this sequence, sharing the views built so far."""
        order = list(indexes) if self._order is None else [self._order[i] for i in indexes]
        return Views(self._by_name, order, (self._built, self._positions))

    def position_of(self, view: dict[str, Any]) -> int:
        """The position in the columns of a view this sequence (or one it was taken from) gave; KeyError else."""
        return self._positions[id(view)]
