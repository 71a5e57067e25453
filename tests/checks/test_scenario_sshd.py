"""EDX203 and EDX205 judge an sshd record's scenarios with the sshd vocabulary, not CreateOS's."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from errdex import validate
from tests.conftest import write_envelope
from tests.executor.sshd.helpers import CLOSED_PREAUTH, FAMILY

pytestmark = pytest.mark.usefixtures("shared_cache")


def _findings(tmp_path: Path, envelope: dict[str, Any]) -> list[tuple[str, str, str]]:
    report = validate([write_envelope(tmp_path, envelope)], strict=True)
    return [(f.code, f.pointer, f.message) for f in report.findings]


@pytest.mark.parametrize("envelope", FAMILY, ids=[e["record"]["slug"] for e in FAMILY])
def test_the_family_built_by_code_is_clean(tmp_path: Path, envelope: dict[str, Any]) -> None:
    assert [f for f in _findings(tmp_path, copy.deepcopy(envelope)) if f[0].startswith("EDX20")] == []


@pytest.mark.parametrize(("change", "code", "pointer", "words"), [
    ({"server": {"config": {"UsePAM": "yes"}}}, "EDX203", "/record/scenarios/0",
     "sshd_config keyword 'UsePAM' is not allowed"),
    ({"call": {"operation": "connect", "close": "slam"}}, "EDX203", "/record/scenarios/0", "'close' is one of"),
    ({"call": {"operation": "login", "user": "$user", "auth": [{"method": "password"}]}}, "EDX203",
     "/record/scenarios/0", "needs 'password'"),
    ({"expect": {"outcome": "logged", "captures": [1]}}, "EDX203", "/record/scenarios/0", "'captures' is a list"),
    ({"call": {"operation": "connect", "waitMs": 5001}}, "EDX203", "/record/scenarios/0", "'waitMs' must be"),
    # sshd runs as root: a Banner file would be read and sent to whoever connects, /etc/shadow too
    ({"server": {"config": {"Banner": "/etc/shadow"}}}, "EDX203", "/record/scenarios/0", "'Banner' may only be"),
    ({"server": {"config": {"PasswordAuthentication": "yes\rPort 22"}}}, "EDX203", "/record/scenarios/0",
     "without control characters"),
    ({"server": {"config": {"LoginGraceTime": "6"}}}, "EDX205", "/record/scenarios/0/server/config/LoginGraceTime",
     "outside 0-5000 ms"),
])
def test_sshd_scenario_defects(tmp_path: Path, change: dict[str, Any], code: str, pointer: str, words: str) -> None:
    envelope = copy.deepcopy(CLOSED_PREAUTH)
    envelope["record"]["scenarios"][0].update(change)
    found = [f for f in _findings(tmp_path, envelope) if f[0] == code]
    assert found and found[0][1] == pointer and words in found[0][2], found


def test_many_sshd_scenarios_exceed_the_record_bound(tmp_path: Path) -> None:
    envelope = copy.deepcopy(CLOSED_PREAUTH)
    first = envelope["record"]["scenarios"][0]
    first["call"] = {"operation": "idle", "waitMs": 5000}
    envelope["record"]["scenarios"] = [dict(first, id=f"wait-{n}") for n in range(6)]
    found = [f for f in _findings(tmp_path, envelope) if f[0] == "EDX205"]
    assert [f[1] for f in found] == ["/record/scenarios"] and "more than the 30000 ms" in found[0][2]
