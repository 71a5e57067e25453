"""sshd records built by code (the family's real records may not be there yet), and the skip rule."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from errdex.executor.sshd import SshdUnavailable, require_sshd

ROOT = Path(__file__).resolve().parents[3]
_SEED = json.loads((ROOT / "tests" / "corpus" / "v3" / "seed.json").read_text(encoding="utf-8"))


def errdex_sshd_processes(marker: str = "errdex-sshd-") -> list[int]:
    """The living processes whose command line names ``marker`` (the executor's sshd folders are named so)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):  # the process ended while we looked
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry))
    return found


def need_sshd() -> None:
    """Skip the test with the reason sshd cannot run here; under CI=true that is a failure instead."""
    try:
        require_sshd()
    except SshdUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"sshd must run under CI: {exc}")
        pytest.skip(str(exc))


def sshd_envelope(record_id: str, slug: str, pattern: str, scenarios: list[dict[str, Any]]) -> dict[str, Any]:
    """A version-4 envelope of the sshd family with this pattern and these scenarios (version 4 is the first
    whose schema has sshd scenarios)."""
    envelope = copy.deepcopy(_SEED)
    record = envelope["record"]
    record.update(
        id=record_id, repo="openssh/openssh-portable", slug=slug, errorMessage=pattern, messagePattern=pattern,
        errorClass="sshd", errorType="log", filePath="auth.c", lineNumber=1, analyzedSha="0" * 40,
        githubUrl="https://github.com/openssh/openssh-portable/blob/" + "0" * 40 + "/auth.c#L1",
        triggerScenarios="A client does what the scenario does.", commonSituations="A client does it.",
        scenarios=scenarios, schemaVersion=4,
    )
    return envelope


INVALID_USER = sshd_envelope(
    "a000000000000001", "invalid-user", r"Invalid user ([^ ]+) from ([^ ]+) port ([0-9]+)",
    [{"id": "unknown-name", "summary": "A client logs in with a name that does not exist.",
      "covers": ["triggerScenarios:1", "commonSituations:1"],
      "call": {"operation": "login", "user": "$invalid", "auth": [{"method": "password", "password": "x"}]},
      "expect": {"outcome": "logged", "captures": ["$invalid", "$host", "$port"],
                 "notLogged": ["a000000000000002"]}},
     {"id": "existing-name", "summary": "A client logs in as a user that exists.",
      "call": {"operation": "login", "user": "$user", "auth": [{"method": "password", "password": "x"}]},
      "expect": {"outcome": "not-logged"}}],
)
FAILED_PASSWORD = sshd_envelope(
    "a000000000000002", "failed-password", r"Failed password for ([^ ]+) from ([^ ]+) port ([0-9]+) ssh2",
    [{"id": "wrong-password", "summary": "The test user gives a wrong password.",
      "covers": ["triggerScenarios:1", "commonSituations:1"],
      "call": {"operation": "login", "user": "$user", "auth": [{"method": "password", "password": "wrong"}]},
      "expect": {"outcome": "logged", "captures": ["$user", "$host", "$port"]}}],
)
CLOSED_PREAUTH = sshd_envelope(
    "a000000000000003", "connection-closed-preauth", r"Connection closed by ([^ ]+) port ([0-9]+)",
    [{"id": "silent-client", "summary": "A client connects and closes without a word.",
      "covers": ["triggerScenarios:1", "commonSituations:1"],
      "call": {"operation": "connect", "close": "close", "waitMs": 100},
      "expect": {"outcome": "logged", "captures": ["$host", "$port"]}}],
)
FAMILY = [INVALID_USER, FAILED_PASSWORD, CLOSED_PREAUTH]
