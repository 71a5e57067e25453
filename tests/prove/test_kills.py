"""`errdex prove` stopped by a signal or killed leaves no sshd, account, folder or port behind.

Each test starts the command as a process, waits until its sshd listens (read from /proc and the sshd's own
folder, as anyone could see it), stops it at that point and looks at the system: the process table, the
account files, the folders, the listening sockets. A SIGKILL cannot be caught: what it leaves is removed by the
next `errdex prove` or by `errdex prove --cleanup`.
"""

from __future__ import annotations

import copy
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from errdex.executor.sshd import SSHD, STATE_DIR
from errdex.executor.sshd.procs import argv_of, exe_of, kill_all, pids_of_uid
from tests.conftest import write_envelope
from tests.executor.sshd.helpers import CLOSED_PREAUTH, errdex_sshd_processes, need_sshd, sshd_envelope
from tests.processes import run, start, wait_until

ACCOUNT_FILES = ("/etc/passwd", "/etc/group", "/etc/shadow", "/etc/gshadow", "/etc/subuid", "/etc/subgid")
#: A record whose scenarios keep a connection open for seconds each: the run is stopped while one is.
SLOW = sshd_envelope("a0000000000000a1", "slow-idle", r"Connection closed by ([^ ]+) port ([0-9]+)", [
    {"id": f"idle-{n}", "summary": "A client connects and says nothing.", "covers": ["triggerScenarios:1"],
     "call": {"operation": "idle", "waitMs": 5000}, "expect": {"outcome": "logged", "captures": ["$host", "$port"]}}
    for n in range(4)])


@dataclass
class Made:
    """What one prove run made, as the system shows it."""

    sshd: int
    folder: Path
    user_folder: Path
    account: str
    port: int


def _ppid(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat[stat.rfind(")") + 2:].split()[1])


def _made_by(prover: int) -> Made | None:
    """The sshd errdex process ``prover`` started and what it made, once that sshd listens; None before."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _ppid(int(entry)) == prover and exe_of(int(entry)) == SSHD:
            words = " ".join(argv_of(int(entry))).split()  # sshd retitles itself: one string of its arguments
            return _made(int(entry), Path(words[words.index("-f") + 1]).parent) if "-f" in words else None
    return None


def _made(sshd: int, folder: Path) -> Made | None:
    try:
        if "Server listening" not in (folder / "sshd.log").read_text():
            return None
        config = dict(line.split(" ", 1) for line in (folder / "sshd_config").read_text().splitlines())
    except OSError:
        return None
    user_folder = Path(config["AuthorizedKeysFile"]).parent.parent
    account = (user_folder / "authorized_ed25519.pub").read_text().split()[-1]
    return Made(sshd, folder, user_folder, account, int(config["Port"]))


def _listening(port: int) -> bool:
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return any(row.split()[1].endswith(f":{port:04X}") and row.split()[3] == "0A" for row in rows)


def _account_lines(account: str) -> list[str]:
    return [path for path in ACCOUNT_FILES if Path(path).exists()
            and any(line.startswith(f"{account}:") for line in Path(path).read_text().splitlines())]


def _left(made: Made) -> list[str]:
    """Everything of the run's still on the system."""
    left = [f"sshd process {pid}" for pid in errdex_sshd_processes(str(made.folder))]
    left += [f"the account in {path}" for path in _account_lines(made.account)]
    left += [f"folder {folder}" for folder in (made.folder, made.user_folder) if folder.exists()]
    left += [f"port {made.port} listening"] if _listening(made.port) else []
    leases = STATE_DIR.glob("*.json") if STATE_DIR.is_dir() else []
    left += [f"lease {lease}" for lease in leases if made.account in lease.read_text()]
    return left


def _scrub(made: Made | None) -> None:
    """Remove what the test's own run left, whatever the code under test did (so a failing test leaves nothing)."""
    if made is None:
        return
    kill_all(errdex_sshd_processes(str(made.folder)))
    try:
        kill_all(pids_of_uid(pwd.getpwnam(made.account).pw_uid))
        subprocess.run(["userdel", made.account], capture_output=True)
    except KeyError:
        pass
    for folder in (made.folder, made.user_folder):
        shutil.rmtree(folder, ignore_errors=True)
    run("prove", "--cleanup", cwd=made.folder.parent)


def _start_slow(tmp_path: Path, **env: str) -> subprocess.Popen[str]:
    records = write_envelope(tmp_path / "records", copy.deepcopy(SLOW))
    return start("prove", "--records", str(records), cwd=tmp_path, **env)


def _wait_made(prover: subprocess.Popen[str]) -> Made:
    found: list[Made] = []

    def up() -> bool:
        assert prover.poll() is None, f"prove ended before its sshd was up: {prover.communicate()}"
        made = _made_by(prover.pid)
        found[:] = [made] if made else []
        return bool(found)

    wait_until(up, what="prove's sshd to listen", timeout=30)
    return found[0]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"])
def test_a_signal_during_a_scenario_removes_everything_then_exits_in_one_line(tmp_path: Path, signum: int) -> None:
    need_sshd()
    prover = _start_slow(tmp_path)
    made = None
    try:
        made = _wait_made(prover)
        assert pwd.getpwnam(made.account) and _listening(made.port)
        prover.send_signal(signum)
        _, stderr = prover.communicate(timeout=30)
        assert prover.returncode == 128 + signum
        said = [line for line in stderr.splitlines() if line]  # after ^C, click first ends the terminal's line
        assert len(said) == 1 and said[0].startswith("errdex: "), stderr
        assert _left(made) == []
    finally:
        prover.kill()
        prover.communicate()
        _scrub(made)


@contextmanager
def _killed_prove(tmp_path: Path) -> Iterator[Made]:
    """A prove killed with SIGKILL once its sshd and account exist: what it made (scrubbed at the end)."""
    need_sshd()
    prover = _start_slow(tmp_path)
    made = None
    try:
        made = _wait_made(prover)
        prover.kill()
        prover.communicate()
        yield made
    finally:
        prover.kill()
        prover.communicate()
        _scrub(made)


def test_a_sigkill_stops_sshd_at_once_and_cleanup_removes_the_rest(tmp_path: Path) -> None:
    with _killed_prove(tmp_path) as made:
        wait_until(lambda: not errdex_sshd_processes(str(made.folder)) and not _listening(made.port),
                   what="sshd to stop when prove is killed")
        assert _account_lines(made.account), "the account outlives a SIGKILL (it cannot be caught)"
        cleaned = run("prove", "--cleanup", cwd=tmp_path)
        assert cleaned.returncode == 0, cleaned.stderr
        assert f"removed account {made.account}\n" in cleaned.stdout
        assert f"removed folder {made.user_folder}\n" in cleaned.stdout
        assert _left(made) == []
        again = run("prove", "--cleanup", cwd=tmp_path)
        assert made.account not in again.stdout, "what was removed is not found twice"


def test_the_next_prove_removes_what_a_killed_one_left(tmp_path: Path) -> None:
    with _killed_prove(tmp_path) as made:
        records = write_envelope(tmp_path / "next", copy.deepcopy(CLOSED_PREAUTH))
        following = run("prove", "--records", str(records), cwd=tmp_path)
        assert following.returncode == 0, following.stdout + following.stderr
        assert f"removed what a killed prove left: account {made.account}" in following.stderr
        assert _left(made) == []


def test_a_second_prove_at_once_keeps_the_first_and_cleanup_keeps_a_live_one(tmp_path: Path) -> None:
    need_sshd()
    first = _start_slow(tmp_path / "a")
    second = _start_slow(tmp_path / "b")
    made: list[Made] = []
    try:
        made = [_wait_made(first), _wait_made(second)]
        assert made[0].account != made[1].account and made[0].port != made[1].port
        first.kill()
        first.communicate()
        cleaned = run("prove", "--cleanup", cwd=tmp_path)
        assert f"removed account {made[0].account}" in cleaned.stdout and _left(made[0]) == []
        assert "is still going" in cleaned.stdout
        assert second.poll() is None and _listening(made[1].port) and pwd.getpwnam(made[1].account)
        second.terminate()
        second.communicate(timeout=30)
        assert second.returncode == 128 + signal.SIGTERM and _left(made[1]) == []
    finally:
        for prover in (first, second):
            prover.kill()
            prover.communicate()
        for one in made:
            _scrub(one)


def _blocking(bin_dir: Path, tool: str, real: str) -> Path:
    """A ``tool`` first on PATH that says it started, waits for a go, then runs the real one (and says so)."""
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / tool
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{bin_dir}/{tool}.args"\n'
                      f'while [ ! -e "{bin_dir}/{tool}.go" ]; do sleep 0.01; done\n'  # a poll for the test's go
                      f'"{real}" "$@"; code=$?\ntouch "{bin_dir}/{tool}.done"\nexit $code\n')
    script.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
def test_a_kill_while_useradd_runs_leaves_no_account(tmp_path: Path, signum: int) -> None:
    need_sshd()
    bin_dir = _blocking(tmp_path / "bin", "useradd", shutil.which("useradd") or "/usr/sbin/useradd")
    prover = _start_slow(tmp_path, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    account = None
    try:
        wait_until(lambda: (bin_dir / "useradd.args").exists() and prover.poll() is None, what="useradd to start")
        account = (bin_dir / "useradd.args").read_text().split()[-1]
        prover.send_signal(signum)
        (bin_dir / "useradd.go").touch()
        prover.communicate(timeout=30)
        assert prover.returncode in (128 + signum, -signum)
        wait_until(lambda: (bin_dir / "useradd.done").exists(), what="useradd to finish")
        if signum == signal.SIGKILL:
            assert _account_lines(account), "useradd, in a session of its own, outlives errdex's SIGKILL"
            cleaned = run("prove", "--cleanup", cwd=tmp_path)
            assert f"removed account {account}\n" in cleaned.stdout, cleaned.stdout + cleaned.stderr
        assert _account_lines(account) == []
        assert _key_folders(account) == [], "the key folder is removed"
    finally:
        prover.kill()
        prover.communicate()
        (bin_dir / "useradd.go").touch()
        if account is not None:
            wait_until(lambda: (bin_dir / "useradd.done").exists(), what="useradd to finish")
            subprocess.run(["userdel", account], capture_output=True)
            for folder in _key_folders(account):
                shutil.rmtree(folder)
        run("prove", "--cleanup", cwd=tmp_path)


def _key_folders(account: str) -> list[Path]:
    """The folders holding the account's keys (their public halves end in the account's name)."""
    return [key.parent for key in Path(tempfile.gettempdir()).glob("errdex-sshd-user-*/authorized_ed25519.pub")
            if key.read_text().split()[-1] == account]


def test_a_sshd_started_after_its_prove_was_killed_is_found_by_cleanup(tmp_path: Path) -> None:
    """Killed between fork and exec: sshd then starts with no parent to die with; the lease names its folder."""
    need_sshd()
    bin_dir = _blocking(tmp_path / "bin", "setpriv", shutil.which("setpriv") or "/usr/bin/setpriv")
    prover = _start_slow(tmp_path, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    made = None
    try:
        wait_until(lambda: (bin_dir / "setpriv.args").exists() and prover.poll() is None, what="sshd to be started")
        config = Path((bin_dir / "setpriv.args").read_text().split()[-1])
        prover.kill()
        prover.communicate()
        (bin_dir / "setpriv.go").touch()
        found: list[Made] = []
        wait_until(lambda: bool(found.extend([m] if (m := _made(0, config.parent)) else []) or found),
                   what="the orphaned sshd to listen")
        made = found[0]
        assert errdex_sshd_processes(str(made.folder)), "no parent-death signal reaches an sshd started so late"
        cleaned = run("prove", "--cleanup", cwd=tmp_path)
        assert cleaned.returncode == 0 and "removed sshd pid " in cleaned.stdout, cleaned.stdout + cleaned.stderr
        assert _left(made) == []
    finally:
        prover.kill()
        prover.communicate()
        (bin_dir / "setpriv.go").touch()
        _scrub(made)
