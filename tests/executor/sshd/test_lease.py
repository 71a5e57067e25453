"""A killed run's lease leads the cleanup to what that run made, and to nothing else: planted, stale, garbled and
live leases, and accounts and folders that are not errdex's, are left alone."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from errdex.executor.sshd import SshdError, SshdUnavailable, TestUser, remove_leftovers
from errdex.executor.sshd.lease import Lease, account_comment
from errdex.executor.sshd.procs import boot_id, start_time
from tests.executor.sshd.helpers import need_sshd
from tests.processes import wait_until

RUN = "0123456789abcdef"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    return folder


def _plant(state: Path, run: str = RUN, **fields: Any) -> Path:
    lease = {"run": run, "pid": 2 ** 22 + 1, "start": 1, "boot": boot_id(), "account": None, "folders": [],
             "servers": [], **fields}  # pid beyond pid_max: no process has it
    path = state / f"{run}.json"
    path.write_text(json.dumps(lease))
    return path


def _our_folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="errdex-sshd-test-"))


def test_what_a_dead_run_names_is_removed_and_the_lease_with_it(state: Path) -> None:
    need_sshd()
    folder = _our_folder()
    (folder / "inside").write_text("x")
    lease = _plant(state, folders=[str(folder)])
    found = remove_leftovers(state)
    assert not folder.exists() and not lease.exists() and not list(state.iterdir())
    assert found.removed == [f"folder {folder}", f"lease {lease}"] and not found.failed
    assert not [line for line in found.kept if "no lease names it" not in line]  # other runs' accounts, if any


def test_a_planted_lease_naming_system_users_folders_and_processes_removes_nothing(state: Path) -> None:
    need_sshd()
    target = _our_folder()
    link = Path(tempfile.gettempdir()) / f"errdex-sshd-link-{os.getpid()}"
    link.symlink_to(target)
    config = "/tmp/errdex-sshd-planted/sshd_config"
    # a process that is not sshd, whose command line names a folder the lease names: not proof enough
    other = subprocess.Popen(["sh", "-c", "read line", "-f", config], stdin=subprocess.PIPE, text=True)
    try:
        shell = os.readlink(f"/proc/{other.pid}/exe")
        _plant(state, account="daemon", folders=["/etc", "/tmp", str(link), "/tmp/errdex-sshd-x/../../etc"],
               servers=[{"folder": "/tmp/errdex-sshd-planted", "binary": "/usr/sbin/sshd", "pid": other.pid},
                        {"folder": "/", "binary": shell, "pid": other.pid}])
        found = remove_leftovers(state)
        assert pwd.getpwnam("daemon") and Path("/etc/passwd").exists() and target.exists() and link.is_symlink()
        assert other.poll() is None, "a process that is not the recorded sshd is not killed"
        assert not found.failed and not [line for line in found.removed if not line.startswith("lease ")]
        assert any("account daemon: not made by errdex" in line for line in found.kept)
        assert any(str(link) in line and "not a folder of root's" in line for line in found.kept)
        assert any(line.startswith("an sshd named '/'") for line in found.kept)
    finally:
        other.communicate("\n")
        link.unlink()
        target.rmdir()


def test_an_errdex_named_account_that_another_run_or_a_person_made_is_left_alone(state: Path) -> None:
    need_sshd()
    with TestUser() as user:  # a real account of errdex's name, whose comment names another run
        _plant(state, account=user.name)
        found = remove_leftovers(state)
        assert pwd.getpwnam(user.name).pw_gecos == account_comment(user.lease.run)
        assert any(f"account {user.name}: not made by errdex's run {RUN}" in line for line in found.kept)


def test_the_account_a_dead_run_made_is_removed(state: Path) -> None:
    need_sshd()
    name = f"errdex-{os.urandom(4).hex()}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--comment",
                    account_comment(RUN), "-K", "SUB_UID_COUNT=0", "-K", "SUB_GID_COUNT=0", name], check=True)
    try:
        _plant(state, account=name)
        assert remove_leftovers(state).removed == [f"account {name}", f"lease {state / RUN}.json"]
        with pytest.raises(KeyError):
            pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], capture_output=True)


def test_a_lease_naming_a_live_unrelated_pid_is_a_dead_run(state: Path) -> None:
    """A pid the kernel gave to another process since: its start time differs, so the run is gone."""
    need_sshd()
    folder = _our_folder()
    _plant(state, pid=os.getpid(), start=(start_time(os.getpid()) or 0) + 1, folders=[str(folder)])
    assert f"folder {folder}" in remove_leftovers(state).removed and not folder.exists()


def test_a_lease_of_a_live_process_or_another_boot_is_judged_by_both(state: Path) -> None:
    need_sshd()
    folder = _our_folder()
    try:
        lease = _plant(state, pid=os.getpid(), start=start_time(os.getpid()), folders=[str(folder)])
        found = remove_leftovers(state)
        assert folder.exists() and lease.exists() and "is still going" in found.kept[0]
        _plant(state, pid=os.getpid(), start=start_time(os.getpid()), boot="another boot", folders=[str(folder)])
        assert f"folder {folder}" in remove_leftovers(state).removed
    finally:
        if folder.exists():
            folder.rmdir()


def test_a_lease_whose_lock_is_held_is_left_alone(state: Path) -> None:
    need_sshd()
    folder = _our_folder()
    lease = _plant(state, folders=[str(folder)])
    lock = state / f"{RUN}.lock"
    holder = subprocess.Popen(["flock", str(lock), "sh", "-c", "echo held; read line"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        found = remove_leftovers(state)
        assert folder.exists() and lease.exists() and "is still going" in found.kept[0]
    finally:
        holder.communicate("\n")
    assert f"folder {folder}" in remove_leftovers(state).removed


def test_a_garbled_or_foreign_lease_is_reported_and_kept(state: Path) -> None:
    need_sshd()
    (state / f"{RUN}.json").write_text("{not json")
    _plant(state, run="fedcba9876543210", folders="not a list")
    (state / "notes.json").write_text("{}")  # not a lease's name: not looked at
    found = remove_leftovers(state)
    kept = [line for line in found.kept if "no lease names it" not in line]
    assert len(kept) == 2 and all("not a lease errdex can read" in line for line in kept)
    assert sorted(p.name for p in state.iterdir()) == [f"{RUN}.json", "fedcba9876543210.json", "notes.json"]


def test_a_state_folder_others_can_write_is_not_trusted(state: Path) -> None:
    need_sshd()
    state.chmod(0o777)
    with pytest.raises(SshdError, match="not a folder only root can write"):
        remove_leftovers(state)
    with pytest.raises(SshdError, match="not a folder only root can write"):
        Lease(state).open()


def test_not_root_is_refused(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(SshdUnavailable, match="needs root"):
        remove_leftovers(state)


def test_a_lease_is_written_before_each_thing_is_made_and_removed_after(state: Path) -> None:
    need_sshd()
    lease = Lease(state)
    lease.open()
    try:
        made = lease.folder("errdex-sshd-t-")
        data = json.loads(lease.path.read_text())
        assert data["folders"] == [str(made)] and data["pid"] == os.getpid()
        assert data["start"] == start_time(os.getpid()) and data["boot"] == boot_id()
        made.rmdir()
        lease.forget_folder(made)
    finally:
        lease.close()
    wait_until(lambda: not list(state.iterdir()), what="the lease and its lock to be removed")


def test_an_account_named_like_errdex_s_that_no_lease_names_is_reported_not_removed(state: Path) -> None:
    """What an errdex older than leases left: nothing proves it errdex's, so the user is told, and decides."""
    need_sshd()
    name = f"errdex-{os.urandom(4).hex()}"
    subprocess.run(["useradd", "--no-create-home", "-K", "SUB_UID_COUNT=0", "-K", "SUB_GID_COUNT=0", name], check=True)
    try:
        found = remove_leftovers(state)
        assert pwd.getpwnam(name) and f"account {name}: named like errdex's test accounts, but no lease" in \
            "\n".join(found.kept)
    finally:
        subprocess.run(["userdel", name], capture_output=True)


def test_a_lock_without_a_lease_is_removed(state: Path) -> None:
    """A run killed after it took its lock and before it wrote its lease made nothing."""
    need_sshd()
    (state / f"{RUN}.lock").write_text("")
    assert remove_leftovers(state).removed == [] and not list(state.iterdir())
