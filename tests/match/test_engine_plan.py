"""The matcher's plan is the same whatever the number of processes that analysed its patterns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errdex import parallel
from errdex.match import engine, split
from errdex.records import halves
from errdex.records.views import Views

# Keyed, unkeyed, refused (not portable), matching every line, plain text: every branch of the plan.
SOURCES = ["disk ([0-9]+) full", "x[0-9]+", "(?<=a)b", "[0-9]*", "lease expired", "é", "job (a|b) failed"]


def _records(count: int) -> list[dict[str, Any]]:
    return [{"id": f"{i:016x}", "slug": f"r{i}", "repo": "a/b", "errorClass": "Error", "severity": "error",
             "messagePattern": f"{SOURCES[i % len(SOURCES)]} {i}" if i % 3 else SOURCES[i % len(SOURCES)]}
            for i in range(count)]


def _plan_bytes(folder: Path, records: Any) -> bytes:
    engine.Matcher(records, cache_dir=folder)
    [plan] = folder.glob("*.marshal")
    return plan.read_bytes()


FORKS: list[int] = []


def _counted(start: Any) -> Any:
    def start_child(work: Any) -> Any:
        FORKS.append(1)
        return start(work)
    return start_child


@pytest.fixture
def split_always(monkeypatch: pytest.MonkeyPatch, single_threaded: bool) -> None:
    if not single_threaded:  # threads of other tests run here: the test passed in a fresh process instead
        pytest.skip("run in a fresh single-threaded process")
    monkeypatch.setattr(split, "MIN_ITEMS", 2)
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    monkeypatch.setattr(parallel, "start_child", _counted(parallel.start_child))
    monkeypatch.setattr(halves, "_CHUNK", 5)  # several chunks from the child


@pytest.mark.skipif(not parallel.can_fork(), reason="needs fork")
def test_the_plan_bytes_are_the_same_with_one_process_or_two(tmp_path: Path, split_always: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records(61)
    calls: list[int] = []
    real = split.split_map
    def counted(work: Any, items: Any) -> list[Any]:
        calls.append(len(items))
        return real(work, items)

    monkeypatch.setattr(split, "split_map", counted)
    two = _plan_bytes(tmp_path / "two", records)
    monkeypatch.setattr(split, "split_map", lambda work, items: [work(item) for item in items])
    one = _plan_bytes(tmp_path / "one", records)
    assert calls == [61] and FORKS and two == one


@pytest.mark.skipif(not parallel.can_fork(), reason="needs fork")
def test_a_child_that_fails_costs_only_time(split_always: None, monkeypatch: pytest.MonkeyPatch) -> None:
    items = list(range(20))
    monkeypatch.setattr(parallel, "child_items", lambda child: None)  # as when the child died
    assert split.split_map(lambda n: n * n, items) == [n * n for n in items]


def test_few_items_are_worked_on_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "start_child", lambda work: pytest.fail("forked for 3 items"))
    assert split.split_map(str, [1, 2, 3]) == ["1", "2", "3"]


def test_views_in_columns_give_the_plan_of_views_in_dicts(tmp_path: Path) -> None:
    records = _records(30)
    fields = ("schemaVersion", "id", "slug", "repo", "errorClass", "severity", "messagePattern", "status")
    columns = {name: [r.get(name, ...) for r in records] for name in fields}
    assert _plan_bytes(tmp_path / "columns", Views(columns)) == _plan_bytes(tmp_path / "dicts", records)
