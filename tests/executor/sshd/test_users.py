"""The test user is a real account in a group of its own, removed afterwards; only root may make one."""

from __future__ import annotations

import grp
import os
import pwd

import pytest

from errdex.executor.sshd import SshdUnavailable, TestUser, invalid_name
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
