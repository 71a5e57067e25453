"""Forked children: their results come back whole, and no temporary file outlives them whatever is killed."""

from __future__ import annotations

import os
import pickle
import signal
import tempfile
from pathlib import Path
from typing import BinaryIO

import pytest

from errdex import parallel


def test_a_childs_results_file_has_no_name_while_it_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         single_threaded: bool) -> None:
    if not single_threaded:
        return
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gate_read, gate_write = os.pipe()

    def work(out: BinaryIO) -> None:
        pickle.dump(["first"], out)
        os.read(gate_read, 1)  # wait until the parent has looked
        pickle.dump(["second"], out)

    child = parallel.start_child(work)
    try:
        # a parent killed now (timeout's SIGTERM, kill -9) left an errdex-part-* file of every match so far
        assert os.listdir(tmp_path) == []
        os.write(gate_write, b"x")
        assert list(parallel.child_items(child) or []) == [["first"], ["second"]]
        assert list(parallel.child_items(child) or []) == [["first"], ["second"]]  # read again from the start
    finally:
        parallel.stop_child(child)
        os.close(gate_read)
        os.close(gate_write)
    assert child.fd == -1  # closed once stopped


def test_a_killed_childs_complete_chunks_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  single_threaded: bool) -> None:
    if not single_threaded:
        return
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def work(out: BinaryIO) -> None:
        pickle.dump(["kept"], out)
        out.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    child = parallel.start_child(work)
    try:
        assert parallel.partial_items(child) == [["kept"]]
        assert parallel.child_items(child) is None
    finally:
        parallel.stop_child(child)
    assert os.listdir(tmp_path) == []
