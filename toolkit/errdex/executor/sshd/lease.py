"""What a run of the sshd executor makes, written down before it is made, so that a killed run's leftovers are
found and removed, and nothing else is.

A run (:class:`Lease`) holds an exclusive lock on ``RUN.lock`` in :data:`STATE_DIR` (root's own folder, mode
0700) for as long as it lives, and keeps ``RUN.json`` beside it (written atomically) naming its process (pid,
start time, boot), the account it makes, every folder and every sshd; each is written there before it is made.
The kernel drops the lock when the process dies, however it dies. :func:`remove_leftovers` takes each lease
whose lock is free and whose process is gone (a pid the kernel has given to another process since does not
count: its start time differs) and removes only what it can prove that run made:

- an sshd: a process running the recorded binary with ``-f FOLDER/sshd_config`` of a recorded folder (and its
  children; the recorded pid alone proves nothing);
- the account: named ``errdex-<8 hex>``, and its comment (GECOS) is ``errdex prove RUN``, which useradd wrote;
  its processes are killed first;
- a folder: named ``errdex-sshd-...``, a real folder (not a link) owned by root.

Whatever else a lease names is left alone and reported; a lease whose run is alive is not touched.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets
import shutil
import stat
import subprocess
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._files import clean_leftovers, write_atomic
from errdex._locks import hold
from errdex._stopping import critical, stop_on_signals
from errdex.errors import InputError, os_reason
from errdex.executor.sshd.errors import SshdError, SshdUnavailable
from errdex.executor.sshd.procs import (
    argv_of,
    boot_id,
    children_of,
    exe_of,
    kill_all,
    pids_of_uid,
    same_process,
    start_time,
)

__all__ = ["ACCOUNT", "FOLDER_PREFIX", "STATE_DIR", "Lease", "Leftovers", "account_comment", "made_by_run",
           "remove_leftovers", "userdel"]

#: Where the leases of sshd runs are kept (root's own; it outlives a reboot, as the accounts in /etc do).
STATE_DIR = Path("/var/lib/errdex/sshd")
#: The names of the accounts a run makes.
ACCOUNT = re.compile(r"errdex-[0-9a-f]{8}")
#: How the names of the folders a run makes begin.
FOLDER_PREFIX = "errdex-sshd-"
_RUN = re.compile(r"[0-9a-f]{16}")
_LEASE_LIMIT = 1 << 20
_OPEN: set[str] = set()  # the runs of this process


def account_comment(run: str) -> str:
    """The comment (GECOS field) of the account run ``run`` makes: how a later cleanup knows the account."""
    return f"errdex prove {run}"


def made_by_run(name: str, run: str) -> pwd.struct_passwd | None:
    """The account ``name`` when it exists and run ``run`` made it (name and comment agree), else None."""
    if not ACCOUNT.fullmatch(name):
        return None
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        return None
    return account if account.pw_gecos == account_comment(run) else None


def userdel(name: str) -> None:
    """Remove the account and its group (in a session of its own, so a terminal's Ctrl-C does not cut userdel
    in half, and not interrupted by a signal to errdex either)."""
    with critical():
        try:
            subprocess.run(["userdel", name], check=True, capture_output=True, text=True, start_new_session=True)
        except FileNotFoundError as exc:
            raise SshdError("userdel is not installed") from exc
        except subprocess.CalledProcessError as exc:
            why = (exc.stderr or "").strip().splitlines()
            raise SshdError(f"userdel {name} failed (exit {exc.returncode}): "
                            f"{why[-1] if why else 'no message'}") from exc


def _trusted(folder: Path) -> None:
    """Refuse a state folder that is not root's own: a lease another user could write is no proof of anything."""
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise SshdError(f"{folder}: not a folder only root can write (owner uid {info.st_uid}, mode "
                        f"{stat.filemode(info.st_mode)}); errdex keeps its sshd leases there and trusts no other")


class Lease:
    """The record of one run's account, folders and sshd processes: ``open()``, then name each thing before it is
    made (:meth:`folder`, :meth:`name_account`, :meth:`add_server`) and forget it once it is removed; ``close()``
    removes the lease when nothing is left in it (else it stays for :func:`remove_leftovers`).

    While open, SIGTERM, SIGHUP and SIGINT unwind the run (see :mod:`errdex._stopping`).
    """

    def __init__(self, state_dir: Path | None = None) -> None:
        self.state_dir = state_dir or STATE_DIR
        self.run = secrets.token_hex(8)
        self.account: str | None = None
        self.folders: list[str] = []
        self.servers: dict[str, dict[str, Any]] = {}
        self._stack: ExitStack | None = None

    @property
    def path(self) -> Path:
        return self.state_dir / f"{self.run}.json"

    @property
    def is_open(self) -> bool:
        return self._stack is not None

    def open(self) -> None:
        """Take the lock and write the lease (making the state folder, root's, 0700, if there is none)."""
        if self._stack is not None:
            return
        stack = ExitStack()
        try:
            stack.enter_context(stop_on_signals())
            self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            _trusted(self.state_dir)
            stack.enter_context(hold(self.state_dir / f"{self.run}.lock", what="an sshd proof run", wait=0))
            _OPEN.add(self.run)
            stack.callback(_OPEN.discard, self.run)
            self._stack = stack
            self._write()
        except OSError as exc:
            self._stack = None
            stack.close()
            raise SshdError(f"{self.state_dir}: cannot keep the run's lease there: {os_reason(exc)}") from exc
        except BaseException:
            self._stack = None
            stack.close()
            raise

    def close(self) -> None:
        """Remove the lease if everything it names is gone, and let go of the lock. Safe to call twice."""
        stack, self._stack = self._stack, None
        if stack is None:
            return
        with stack:
            if not (self.account or self.folders or self.servers):
                self.path.unlink(missing_ok=True)

    def _write(self) -> None:
        if self._stack is None:  # a thing made with no lease held: nobody could find it after a kill
            raise SshdError("the run's lease is not open; open it before making anything")
        pid = os.getpid()
        data = {"run": self.run, "pid": pid, "start": start_time(pid), "boot": boot_id(),
                "account": self.account, "folders": self.folders, "servers": list(self.servers.values())}
        write_atomic(self.path, (json.dumps(data, indent=1) + "\n").encode())

    def folder(self, prefix: str) -> Path:
        """A new folder (root's, 0700) in the temporary folder, named ``prefix`` + random hex; in the lease first."""
        assert prefix.startswith(FOLDER_PREFIX)
        while True:
            path = Path(tempfile.gettempdir()) / f"{prefix}{secrets.token_hex(5)}"
            self.folders.append(str(path))
            self._write()
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:  # not ours: another name
                self.folders.remove(str(path))
                continue
            return path

    def forget_folder(self, path: Path) -> None:
        if str(path) in self.folders:
            self.folders.remove(str(path))
            self._write()

    def name_account(self, name: str) -> str:
        """Write the account's name down before it is made; the comment to give it (:func:`account_comment`)."""
        self.account = name
        self._write()
        return account_comment(self.run)

    def forget_account(self) -> None:
        self.account = None
        self._write()

    def add_server(self, folder: Path, binary: str, pid: int | None = None) -> None:
        """Write down an sshd with its folder (before it starts) and its pid (once it runs)."""
        self.servers[str(folder)] = {"folder": str(folder), "binary": binary, "pid": pid,
                                     "start": start_time(pid) if pid is not None else None}
        self._write()

    def forget_server(self, folder: Path) -> None:
        if self.servers.pop(str(folder), None) is not None:
            self._write()


@dataclass
class Leftovers:
    """What :func:`remove_leftovers` removed, and what it found and left alone (each with the reason)."""

    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def remove_leftovers(state_dir: Path | None = None) -> Leftovers:
    """Find the leases of sshd runs that were killed (their lock free, their process gone) and remove the sshd
    processes, the account and the folders each names, as far as it can prove them that run's; then the lease.

    Needs root (:class:`SshdUnavailable`). ``state_dir``: where the leases are (default :data:`STATE_DIR`).
    """
    if os.geteuid() != 0:
        raise SshdUnavailable("removing what a killed sshd proof left needs root, as making it did")
    with stop_on_signals():  # a signal stops it between two steps (a lease half done is taken up next time)
        return _remove_leftovers(state_dir or STATE_DIR)


def _remove_leftovers(folder: Path) -> Leftovers:
    found = Leftovers()
    if not os.path.lexists(folder):
        _unleased_accounts(folder, found)
        return found
    _trusted(folder)
    clean_leftovers(folder)  # a lease half-written by a killed run (never renamed into place)
    runs = set()
    for entry in os.listdir(folder):
        stem, _, ext = entry.partition(".")
        if ext in ("json", "lock") and _RUN.fullmatch(stem) and stem not in _OPEN:
            runs.add(stem)
    for run in sorted(runs):
        try:
            with hold(folder / f"{run}.lock", what="removing a killed run's leftovers", wait=0):
                _remove_run(folder / f"{run}.json", run, found)
        except InputError:  # its lock is held: the run is going (or another cleanup has it)
            found.kept.append(f"{folder / run}.json: its run is still going (or another cleanup has it); left alone")
    _unleased_accounts(folder, found)
    return found


def _unleased_accounts(folder: Path, found: Leftovers) -> None:
    """Report (never remove) accounts named like errdex's that no lease names: an older errdex made them without
    a lease, or someone else did; nothing proves them errdex's."""
    named = set()
    for path in folder.glob("*.json"):
        try:
            lease = _read(path)
        except SshdError:
            continue
        if lease is not None and isinstance(lease["account"], str):
            named.add(lease["account"])
    for account in pwd.getpwall():
        if ACCOUNT.fullmatch(account.pw_name) and account.pw_name not in named:
            found.kept.append(f"account {account.pw_name}: named like errdex's test accounts, but no lease names "
                              f"it (an errdex older than leases?); left alone: 'userdel {account.pw_name}' if it "
                              "is yours")


def _read(path: Path) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a link (O_NOFOLLOW), or unreadable
        raise SshdError(f"{path}: not a lease errdex wrote ({os_reason(exc)})") from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != 0 or info.st_size > _LEASE_LIMIT:
            raise SshdError(f"{path}: not a lease errdex wrote (not a regular file of root's, or too large)")
        try:
            data = json.loads(handle.read(_LEASE_LIMIT + 1))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SshdError(f"{path}: not a lease errdex can read ({exc})") from exc
    shapes = {"run": str, "pid": int, "start": int, "boot": str, "folders": list, "servers": list}
    if not isinstance(data, dict) or any(not isinstance(data.get(key), kind) for key, kind in shapes.items()) \
            or not isinstance(data.get("account"), (str, type(None))):
        raise SshdError(f"{path}: not a lease errdex can read (its fields are not what errdex writes)")
    return data


def _remove_run(path: Path, run: str, found: Leftovers) -> None:
    try:
        lease = _read(path)
    except SshdError as exc:
        found.kept.append(f"{exc}; left alone")
        return
    if lease is None:  # a lock without a lease: the run died before it wrote one, so it made nothing
        return
    if lease["run"] != run:
        found.kept.append(f"{path}: names run {lease['run']!r}, not {run}; left alone")
        return
    if same_process(lease["pid"], lease["start"], lease["boot"]):
        found.kept.append(f"{path}: its run (pid {lease['pid']}) is still going; left alone")
        return
    failures = len(found.failed)
    for server in lease["servers"]:
        if isinstance(server, dict):
            _stop_sshd(server, found)
    if isinstance(lease["account"], str):
        _remove_account(lease["account"], run, found)
    for name in lease["folders"]:
        if isinstance(name, str):
            _remove_folder(name, found)
    if len(found.failed) == failures:
        path.unlink(missing_ok=True)
        found.removed.append(f"lease {path}")


def _our_folder(name: str) -> bool:
    path = Path(name)
    return path.is_absolute() and os.path.normpath(name) == name and path.name.startswith(FOLDER_PREFIX)


def _stop_sshd(server: dict[str, Any], found: Leftovers) -> None:
    """Kill the sshd running the recorded binary with the recorded folder's configuration, and its children. The
    recorded pid is no proof by itself (a lease can name any pid): the command line is, its folder being random."""
    folder, binary = server.get("folder"), server.get("binary")
    if not (isinstance(folder, str) and isinstance(binary, str) and _our_folder(folder)):
        found.kept.append(f"an sshd named {folder!r} ({binary!r}): not a folder errdex makes; left alone")
        return
    config = f"{folder}/sshd_config"
    for entry in os.listdir("/proc"):
        pid = int(entry) if entry.isdigit() else 0
        if not pid or exe_of(pid) != binary:
            continue
        # sshd retitles itself ("sshd: /usr/sbin/sshd -D ... -f CONFIG [listener] ..."): one string, or argv
        if f" -f {config} " in f" {' '.join(argv_of(pid))} ":
            kill_all(children_of(pid))  # the connections' processes, each in a session of its own
            kill_all([pid])
            found.removed.append(f"sshd pid {pid} ({config})")


def _remove_account(name: str, run: str, found: Leftovers) -> None:
    account = made_by_run(name, run)
    if account is None or account.pw_uid == 0:
        try:
            pwd.getpwnam(name)
        except KeyError:
            return  # never made (killed before useradd), or removed already
        found.kept.append(f"account {name}: not made by errdex's run {run} (name or comment differ); left alone")
        return
    kill_all(pids_of_uid(account.pw_uid))
    try:
        userdel(name)
    except SshdError as exc:
        found.failed.append(str(exc))
        return
    found.removed.append(f"account {name}")


def _remove_folder(name: str, found: Leftovers) -> None:
    if not _our_folder(name):
        found.kept.append(f"folder {name!r}: not a folder errdex makes; left alone")
        return
    try:
        info = os.lstat(name)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
        found.kept.append(f"{name}: not a folder of root's (a link, a file, or another owner's); left alone")
        return
    shutil.rmtree(name, ignore_errors=True)
    if os.path.lexists(name):
        found.failed.append(f"{name}: could not be removed")
    else:
        found.removed.append(f"folder {name}")
