"""A first load of many record files split over two processes gives what one process gives, byte for byte."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from errdex import parallel
from errdex.errors import DataError
from errdex.records import halves
from errdex.records.loader import load_record_store
from tests.conftest import write_envelope

needs_fork = pytest.mark.skipif(not parallel.can_fork(), reason="needs fork")


@pytest.fixture
def split_always(monkeypatch: pytest.MonkeyPatch, single_threaded: bool) -> list[int]:
    if not single_threaded:  # threads of other tests run here: the test passed in a fresh process instead
        pytest.skip("run in a fresh single-threaded process")
    forks: list[int] = []
    start = parallel.start_child

    def counted(work: Any) -> Any:
        forks.append(1)
        return start(work)

    monkeypatch.setattr(halves, "MIN_INPUTS", 2)
    monkeypatch.setattr(halves, "_CHUNK", 3)  # several chunks from the child
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    monkeypatch.setattr(parallel, "start_child", counted)
    return forks


def _squares(part: range) -> Any:
    return (n * n for n in range(25) if n in part)


@needs_fork
def test_the_items_come_in_order(split_always: list[int]) -> None:
    assert list(halves.in_two_halves(_squares, 25)) == [n * n for n in range(25)] and split_always
    assert list(halves.in_two_halves(_squares, 7)) == [n * n for n in range(25)]  # a count that is only a guess


@needs_fork
def test_a_child_that_fails_costs_only_time(split_always: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "child_items", lambda child: None)
    assert list(halves.in_two_halves(_squares, 25)) == [n * n for n in range(25)]


def _dataset(root: Path, seed: dict[str, Any], count: int) -> None:
    for index in range(count):
        envelope = copy.deepcopy(seed)
        envelope["record"]["id"] = f"{index:08x}" + envelope["record"]["id"][8:]
        envelope["record"]["slug"] = f"record-{index}"
        write_envelope(root, envelope, folder=f"owner/repo{index % 3}")


@needs_fork
def test_a_split_load_caches_the_same_bytes(tmp_path: Path, seed: dict[str, Any], split_always: list[int],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "records"
    _dataset(root, seed, 12)
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "two"))
    two = load_record_store([root])
    assert split_always
    monkeypatch.setattr(halves, "MIN_INPUTS", 10**9)
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "one"))
    one = load_record_store([root])
    assert two.views == one.views and two.loaded() == one.loaded() and two.paths == one.paths
    cached = {p.name: p.read_bytes() for p in (tmp_path / "one" / "records").iterdir()}
    assert {p.name: p.read_bytes() for p in (tmp_path / "two" / "records").iterdir()} == cached


@needs_fork
def test_a_split_load_raises_what_one_process_raises(tmp_path: Path, seed: dict[str, Any],
                                                     split_always: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "records"
    _dataset(root, seed, 12)
    bad = sorted(root.rglob("*.json"))[-1]  # in the second half
    bad.write_text(bad.read_text().replace('"schemaVersion": 2', '"schemaVersion": 99'))
    (tmp_path / "empty").mkdir()
    named = [root, tmp_path / "empty"]  # a problem of no file (an empty folder), given to the first half
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(DataError) as split:
        load_record_store(named)
    assert split_always
    monkeypatch.setattr(halves, "MIN_INPUTS", 10**9)
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache1"))
    with pytest.raises(DataError) as single:
        load_record_store(named)
    assert str(split.value) == str(single.value) and bad.name in str(single.value)


def test_the_collector_is_paused_only_inside() -> None:
    import gc

    assert gc.isenabled()
    with pytest.raises(KeyError), halves.paused_collector():
        assert not gc.isenabled()
        raise KeyError("inside")
    assert gc.isenabled()
    gc.disable()
    try:
        with halves.paused_collector():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()
