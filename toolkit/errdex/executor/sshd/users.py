"""The test account a run logs in as: created with useradd and chpasswd, removed with userdel.

:class:`TestUser` makes ``errdex-<hex>`` (a name nobody else uses) in a group of its own, with a random
password and an ed25519 key pair whose public half is the account's authorized key (written into the folder
the executor's sshd reads ``AuthorizedKeysFile`` from; nothing in the account's home is touched: it has none).
A second key pair is one sshd does not know. Only root may do this; anyone else is refused clearly.
"""

from __future__ import annotations

import atexit
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from errdex.executor.sshd.errors import SshdUnavailable, SshdUserError

__all__ = ["TestUser", "invalid_name"]

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
    try:
        subprocess.run(command, input=stdin, text=True, check=True, capture_output=True)
    except FileNotFoundError as exc:
        raise SshdUserError(f"{command[0]} is not installed") from exc
    except subprocess.CalledProcessError as exc:
        why = (exc.stderr or "").strip().splitlines()
        raise SshdUserError(f"{command[0]} failed (exit {exc.returncode}): {why[-1] if why else 'no message'}") from exc


class TestUser:
    """A real account for one run; a context manager that removes it (``atexit`` too, should a run crash)."""

    __test__ = False  # not a pytest test class, for all its name

    def __init__(self) -> None:
        self.name = f"errdex-{secrets.token_hex(4)}"
        self.password = secrets.token_urlsafe(12)
        self.folder: Path | None = None
        self.created = False

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
        """Create the account, its group, its password and keys; :class:`SshdUnavailable` when not root."""
        if os.geteuid() != 0:
            raise SshdUnavailable("creating the sshd test user needs root (useradd); run the sshd scenarios as root")
        self.folder = Path(tempfile.mkdtemp(prefix="errdex-sshd-user-"))
        self.folder.chmod(0o755)  # sshd reads the authorized keys as the user
        _LIVE.add(self)
        for path in (self.key_path, self.unknown_key_path):
            _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", self.name, "-f", str(path)])
        self.authorized_keys.mkdir()
        self.authorized_keys.chmod(0o755)
        public = self.key_path.with_name(self.key_path.name + ".pub").read_text()
        (self.authorized_keys / self.name).write_text(public)
        _run(["useradd", "--user-group", "--no-create-home", "--home-dir", "/", "--shell", "/bin/sh", self.name])
        self.created = True
        _run(["chpasswd"], stdin=f"{self.name}:{self.password}\n")

    def remove(self) -> None:
        """Remove the account (and its group) and the key folder. Safe to call twice."""
        try:
            if self.created:
                self.created = False
                _run(["userdel", self.name])
        finally:
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
                self.folder = None
            _LIVE.discard(self)


@atexit.register
def _remove_all() -> None:
    for user in list(_LIVE):
        try:
            user.remove()
        except SshdUserError:
            pass  # at exit there is nobody left to tell; the account name says who made it
