"""`errdex prove --cleanup`: only the cleanup, refused with records, and for anyone but root."""

from __future__ import annotations

import json
import os

import pytest

from tests.executor.sshd.helpers import need_sshd


def test_cleanup_takes_no_records(cli) -> None:
    result = cli("prove", "--cleanup", "some-record")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "--cleanup runs no proofs" in result.stderr


def test_cleanup_needs_root(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    result = cli("prove", "--cleanup")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "needs root" in result.stderr


def test_cleanup_as_json_says_what_it_removed_and_kept(cli) -> None:
    need_sshd()
    result = cli("prove", "--cleanup", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert set(json.loads(result.stdout)) == {"removed", "kept", "failed"}
