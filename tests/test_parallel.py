"""Forked children: their results come back whole, and no temporary file outlives them whatever is killed."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO

import pytest

from errdex import parallel
from tests.processes import errdex_env, wait_until


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


_PARENT = """
import os, select, sys
from errdex import parallel

def work(out):
    select.select([], [], [])  # works until it is stopped: a long piece of a large log

child = parallel.start_child(work)
print(child.pid, flush=True)
select.select([], [], [])
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead and waiting for its parent to reap it, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_child_ends_with_its_parent_however_the_parent_is_killed(signum: int) -> None:
    """A match of a large log killed with kill -9 left its forked children matching to the end of their pieces."""
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], env=errdex_env(), stdout=subprocess.PIPE, text=True)
    child = 0
    try:
        child = int(parent.stdout.readline()) if parent.stdout else 0
        assert _running(child)
        parent.send_signal(signum)
        parent.wait(timeout=10)
        wait_until(lambda: not _running(child), what="the forked child to end with its parent")
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout:
            parent.stdout.close()
        if child and _running(child):
            os.kill(child, signal.SIGKILL)  # what the test found must not outlive it
