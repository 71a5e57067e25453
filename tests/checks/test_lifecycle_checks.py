"""Lifecycle checks: retired records say why and name an existing, active successor."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from errdex import validate
from errdex.records.slug import derive_slug
from tests.checks.test_scenario_checks import v3
from tests.conftest import write_envelope

# Not a test of the cache: these validate or load the bundled records again and again, and share one cache of
# them for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")


def _codes(folder: Path) -> list[tuple[str, str]]:
    return [(f.code, f.pointer) for f in validate([folder]).findings if f.code.startswith("EDX16")]


def _pair(seed: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    old = v3(seed)
    new = copy.deepcopy(old)
    new["record"]["id"] = "00000000000000aa"
    new["record"]["errorMessage"] = "Again: " + new["record"]["errorMessage"]
    new["record"]["messagePattern"] = "Again: " + new["record"]["messagePattern"]

    new["record"]["slug"] = derive_slug(new["record"]["errorMessage"])
    return old, new


@pytest.mark.parametrize(("change", "expected"), [
    ({"status": "withdrawn", "statusReason": "The message was removed upstream."}, []),
    ({"status": "withdrawn"}, [("EDX161", "/record/status")]),
    ({"status": "withdrawn", "statusReason": "  "}, [("EDX161", "/record/status")]),
    ({"statusReason": "no reason to be here"}, [("EDX161", "/record/statusReason")]),
    ({"status": "superseded", "statusReason": "Merged."}, [("EDX161", "/record/status")]),
    ({"supersededBy": "00000000000000aa"}, [("EDX161", "/record/supersededBy")]),
    ({"status": "superseded", "statusReason": "Merged.", "supersededBy": "00000000000000aa"}, []),
    ({"status": "superseded", "statusReason": "Merged.", "supersededBy": "00000000000000bb"},
     [("EDX162", "/record/supersededBy")]),
])
def test_lifecycle_checks(tmp_path: Path, seed: dict[str, Any], change: dict[str, Any],
                          expected: list[tuple[str, str]]) -> None:
    old, new = _pair(seed)
    old["record"].update(change)
    write_envelope(tmp_path, old)
    write_envelope(tmp_path, new)
    assert _codes(tmp_path) == expected


def test_successor_must_be_active_and_not_itself(tmp_path: Path, seed: dict[str, Any]) -> None:
    old, new = _pair(seed)
    old["record"].update({"status": "superseded", "statusReason": "Merged.", "supersededBy": new["record"]["id"]})
    new["record"].update({"status": "withdrawn", "statusReason": "Gone too."})
    write_envelope(tmp_path, old)
    write_envelope(tmp_path, new)
    assert _codes(tmp_path) == [("EDX162", "/record/supersededBy")]
    old["record"]["supersededBy"] = old["record"]["id"]
    new["record"].update({"status": "active", "statusReason": None})
    del new["record"]["statusReason"]
    write_envelope(tmp_path, old)
    write_envelope(tmp_path, new)
    assert _codes(tmp_path) == [("EDX162", "/record/supersededBy")]
