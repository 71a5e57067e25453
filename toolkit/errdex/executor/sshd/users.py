"""The test account a run logs in as: created with useradd and chpasswd, removed with userdel.

:class:`TestUser` makes ``errdex-<hex>`` (a name nobody else uses) in a group of its own, with a random
password and an ed25519 key pair whose public half is the account's authorized key (written into the folder
the executor's sshd reads ``AuthorizedKeysFile`` from; nothing in the account's home is touched: it has none).
A second key pair is one sshd does not know. Only root may do this; anyone else is refused clearly.

The account is made so that it is of no use outside the run: its shell is ``nologin`` (no shell and no
command, through any sshd: the scenarios need authentication and a session, not a program), it expires after
tomorrow (a leftover locks itself), its password is random and kept in memory only, it gets no subordinate
ids (``/etc/subuid``, ``/etc/subgid``) and no lastlog entry, and its comment names the run's lease
(:mod:`errdex.executor.sshd.lease`), which records it before useradd runs: a killed run's account is found and
removed by the next one. It cannot be locked (``!`` in shadow) or given a past expiry date: the scenario's
sshd (``UsePAM no``) reads the same shadow entry and would refuse it too.
"""

from __future__ import annotations

import atexit
import os
import pwd
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType

from errdex._stopping import critical
from errdex.executor.sshd.errors import SshdError, SshdUnavailable, SshdUserError
from errdex.executor.sshd.lease import Lease, made_by_run, userdel

__all__ = ["NOLOGIN", "TestUser", "invalid_name"]

#: The account's shell: authentication and a session work, a shell or command does not.
NOLOGIN = "/usr/sbin/nologin"
_LIVE: set[TestUser] = set()


def invalid_name() -> str:
    """A user name that exists nowhere (checked against the password database)."""
    while True:
        name = f"errdex-nouser-{secrets.token_hex(3)}"
        try:
            pwd.getpwnam(name)
        except KeyError:
            return name


def _run(command: list[str], stdin: str | None = None) -> None:
    """Run a tool; in a session of its own, so that a Ctrl-C at the terminal does not kill useradd half-way."""
    try:
        subprocess.run(command, input=stdin, text=True, check=True, capture_output=True, start_new_session=True)
    except FileNotFoundError as exc:
        raise SshdUserError(f"{command[0]} is not installed") from exc
    except subprocess.CalledProcessError as exc:
        why = (exc.stderr or "").strip().splitlines()
        raise SshdUserError(f"{command[0]} failed (exit {exc.returncode}): {why[-1] if why else 'no message'}") from exc


class TestUser:
    """A real account for one run; a context manager that removes it (``atexit`` too, should a run crash).

    ``lease``: the run's lease (default: one of its own, opened on :meth:`create`, closed on :meth:`remove`).
    """

    __test__ = False  # not a pytest test class, for all its name

    def __init__(self, lease: Lease | None = None) -> None:
        self.name = f"errdex-{secrets.token_hex(4)}"
        self.password = secrets.token_urlsafe(12)
        self.folder: Path | None = None
        self.created = False
        self.lease = lease or Lease()
        self._own_lease = lease is None

    @property
    def authorized_keys(self) -> Path:
        """The folder of authorized keys files (one per user) for the server's ``AuthorizedKeysFile``."""
        assert self.folder is not None, "the user is not created"
        return self.folder / "authorized_keys"

    @property
    def key_path(self) -> Path:
        """The private key whose public half is authorized."""
        assert self.folder is not None, "the user is not created"
        return self.folder / "authorized_ed25519"

    @property
    def unknown_key_path(self) -> Path:
        """A private key that no account authorizes."""
        assert self.folder is not None, "the user is not created"
        return self.folder / "unknown_ed25519"

    def __enter__(self) -> TestUser:
        self.create()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.remove()

    def create(self) -> None:
        """Create the account, its group, its password and keys; :class:`SshdUnavailable` when not root. What was
        made is removed again when a step fails."""
        if os.geteuid() != 0:
            raise SshdUnavailable("creating the sshd test user needs root (useradd); run the sshd scenarios as root")
        try:
            self._create()
        except BaseException:
            self.remove()
            raise

    def _create(self) -> None:
        if self._own_lease:
            self.lease.open()
        _LIVE.add(self)
        self.folder = self.lease.folder("errdex-sshd-user-")
        self.folder.chmod(0o755)  # sshd reads the authorized keys as the user
        for path in (self.key_path, self.unknown_key_path):
            _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", self.name, "-f", str(path)])
        self.authorized_keys.mkdir()
        self.authorized_keys.chmod(0o755)
        public = self.key_path.with_name(self.key_path.name + ".pub").read_text()
        (self.authorized_keys / self.name).write_text(public)
        expires = int(time.time() // 86400) + 2  # days since 1970: the day after tomorrow, whatever the time zone
        with critical():
            comment = self.lease.name_account(self.name)
            _run(["useradd", "--user-group", "--no-create-home", "--no-log-init", "--home-dir", "/",
                  "--shell", NOLOGIN, "--comment", comment, "--expiredate", str(expires),
                  "-K", "SUB_UID_COUNT=0", "-K", "SUB_GID_COUNT=0", self.name])
            self.created = True
        with critical():
            _run(["chpasswd"], stdin=f"{self.name}:{self.password}\n")

    def remove(self) -> None:
        """Remove the account (and its group) and the key folder. Safe to call twice."""
        with critical():
            try:
                if self.created or (self.lease.account == self.name and made_by_run(self.name, self.lease.run)):
                    self.created = False
                    try:
                        userdel(self.name)
                    except SshdError as exc:
                        raise SshdUserError(str(exc)) from exc
                if self.lease.is_open and self.lease.account == self.name:
                    self.lease.forget_account()
            finally:
                if self.folder is not None:
                    shutil.rmtree(self.folder, ignore_errors=True)
                    if self.lease.is_open:
                        self.lease.forget_folder(self.folder)
                    self.folder = None
                _LIVE.discard(self)
                if self._own_lease:
                    self.lease.close()


@atexit.register
def _remove_all() -> None:
    for user in list(_LIVE):
        try:
            user.remove()
        except SshdUserError:
            pass  # at exit there is nobody left to tell; the account name says who made it
