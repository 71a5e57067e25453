from __future__ import annotations

from errdex.records.duplicates import FirstSeen, first_duplicate


def test_every_later_item_of_a_taken_key_is_paired_with_the_first() -> None:
    seen: FirstSeen[str, tuple[str, int]] = FirstSeen()
    items = [("a", 1), ("b", 2), ("a", 3), ("a", 4), ("b", 5)]
    earlier = [seen.add(key, item) for key, item in ((key, (key, n)) for key, n in items)]
    assert earlier == [None, None, ("a", 1), ("a", 1), ("b", 2)]
    assert seen.clashes == [(("a", 3), ("a", 1)), (("a", 4), ("a", 1)), (("b", 5), ("b", 2))]


def test_the_same_item_twice_is_no_clash() -> None:
    seen: FirstSeen[str, object] = FirstSeen()
    item = object()
    assert seen.add("k", item) is None and seen.add("k", item) is None and seen.clashes == []


def test_first_duplicate_stops_at_the_first_clash() -> None:
    assert first_duplicate([1, 2, 3], lambda n: n % 5) is None
    assert first_duplicate([1, 2, 6, 7], lambda n: n % 5) == (6, 1)
    assert first_duplicate(iter(range(10**9)), lambda n: n % 3) == (3, 0)  # one pass, no list of the input
