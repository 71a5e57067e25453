"""The test user is a real account in a group of its own, removed afterwards; only root may make one."""

from __future__ import annotations

import grp
import os
import pwd
import subprocess
import time
from pathlib import Path

import pytest

from errdex.executor.sshd import SshdUnavailable, TestUser, invalid_name
from errdex.executor.sshd.users import NOLOGIN
from tests.executor.sshd.helpers import need_sshd


def test_the_user_exists_in_its_own_group_and_is_removed() -> None:
    need_sshd()
    with TestUser() as user:
        assert user.name.startswith("errdex-")
        account = pwd.getpwnam(user.name)
        assert grp.getgrgid(account.pw_gid).gr_name == user.name
        key = (user.authorized_keys / user.name).read_text()
        assert key.startswith("ssh-ed25519 ") and user.key_path.exists() and user.unknown_key_path.exists()
        folder = user.folder
    with pytest.raises(KeyError):
        pwd.getpwnam(user.name)
    with pytest.raises(KeyError):
        grp.getgrnam(user.name)
    assert folder is not None and not folder.exists()
    user.remove()  # twice is harmless


def test_not_root_is_refused_before_anything_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    user = TestUser()
    with pytest.raises(SshdUnavailable, match="needs root"):
        user.create()
    assert user.folder is None and not user.created


def test_the_invalid_name_names_nobody() -> None:
    name = invalid_name()
    with pytest.raises(KeyError):
        pwd.getpwnam(name)


def test_the_account_is_of_no_use_outside_the_run() -> None:
    """No shell, an expiry date, no subordinate ids, and a comment that names the run's lease."""
    need_sshd()
    with TestUser() as user:
        account = pwd.getpwnam(user.name)
        assert account.pw_shell == NOLOGIN and account.pw_gecos == f"errdex prove {user.lease.run}"
        shadow = next(line for line in Path("/etc/shadow").read_text().splitlines() if line.startswith(user.name + ":"))
        expires = int(shadow.split(":")[7])
        assert 0 < expires - time.time() // 86400 <= 2, "it expires by itself, after tomorrow"
        assert shadow.split(":")[1].startswith("$"), "a password sshd checks, not locked"
        for path in ("/etc/subuid", "/etc/subgid"):
            assert not any(line.startswith(user.name + ":") for line in Path(path).read_text().splitlines())
        refused = subprocess.run(["su", user.name, "-c", "true"], capture_output=True, text=True, timeout=30)
        assert refused.returncode != 0 and "not available" in refused.stdout, "not even root gets it a shell"
