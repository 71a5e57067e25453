"""Locks between errdex runs: refusing with the holder's name, freed by a kill, shared by fmt, migrate, release."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errdex._locks import LOCK_FILE, hold
from errdex.errors import InputError
from tests.conftest import write_envelope
from tests.processes import errdex_env, run, start


def test_a_second_holder_is_refused_with_the_first_ones_name(tmp_path: Path) -> None:
    with hold(tmp_path / LOCK_FILE, what="release"):
        with hold(tmp_path / LOCK_FILE, what="release"):  # the same process may take it again
            pass
        holder = start("fmt", str(tmp_path), cwd=tmp_path, ERRDEX_LOCK_WAIT="0.1")
        _, stderr = holder.communicate(timeout=30)
        assert holder.returncode == 1 and f"errdex (pid {os.getpid()}, release" in stderr
    assert not (tmp_path / LOCK_FILE).exists()  # removed as it was let go


@pytest.mark.parametrize("command", [("fmt", "records"), ("migrate", "--to", "3", "records")])
def test_fmt_and_migrate_wait_for_the_folder(tmp_path: Path, seed: dict[str, Any], command: tuple[str, ...]) -> None:
    path = write_envelope(tmp_path / "records", seed)
    path.write_text(path.read_text().replace("  ", "    "))  # not canonical, and at version 2
    before = path.read_bytes()
    with hold(tmp_path / "records" / LOCK_FILE, what="release"):
        refused = run(*command, cwd=tmp_path, ERRDEX_LOCK_WAIT="0.1")
        assert refused.returncode == 1 and "is busy with it" in refused.stderr
        assert path.read_bytes() == before
    assert run(*command, cwd=tmp_path).returncode == 0
    assert path.read_bytes() != before


def test_a_killed_holder_frees_the_lock_at_once(tmp_path: Path) -> None:
    # The child's sleep is the program under test (a holder that keeps the lock until it is killed), not a
    # wait of the test's own: the test waits on the child's "held" line, and kills it long before 60 s.
    script = (f"import os, time\nfrom errdex._locks import hold\nfrom pathlib import Path\n"
              f"with hold(Path({str(tmp_path / LOCK_FILE)!r}), what='test'):\n"
              f"    print('held', flush=True)\n    time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", script], env=errdex_env(), stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "held\n"
    with pytest.raises(InputError, match=f"pid {child.pid}, test"), hold(tmp_path / LOCK_FILE, what="fmt", wait=0.1):
        pass
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    with hold(tmp_path / LOCK_FILE, what="fmt", wait=0):
        pass


def test_import_waits_for_the_folder_and_writes_nothing_while_it_is_held(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    bundle = tmp_path / "in.jsonl"
    bundle.write_text(json.dumps(seed) + "\n", encoding="utf-8")
    with hold(folder / LOCK_FILE, what="release"):
        refused = run("import", str(bundle), "--records", str(folder), cwd=tmp_path, ERRDEX_LOCK_WAIT="0.1")
        assert refused.returncode == 1 and "is busy with it" in refused.stderr
        assert [p for p in folder.rglob("*.json")] == []
    done = run("import", str(bundle), "--records", str(folder), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(list(folder.rglob("*.json"))) == 1
