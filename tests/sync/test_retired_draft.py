"""A draft whose code vanished, withdrawn by ``sync --retire-vanished``: it validates with its prose still empty
(version 4 lets a withdrawn record leave its prose empty, as a draft does), and version 3 cannot hold it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from errdex.checks.runner import validate
from errdex.records.models import RecordV4
from errdex.records.versions import DraftRefused, downgrade
from errdex.records.vocabulary import is_harvested_only
from errdex.sync import sync
from tests.sync._build import draft, drifted, hand_record, record_of, report, write_folder


def _errors(folder: Path) -> list[tuple[str, str | None]]:
    return sorted((finding.code, finding.record_id) for finding in validate([folder]).findings
                  if finding.severity == "error")


def test_a_retired_draft_validates_without_new_errors(tmp_path: Path) -> None:
    record = draft(10, "a" * 40, message="Lease expired.")
    folder = tmp_path / "records"
    [path] = write_folder(folder, [record]).values()
    before = _errors(folder)
    done = sync(drift=report([drifted(record, "vanished", None, message="Lease expired.")]), records=[folder],
                retire_vanished=True)
    assert [change.kind for change in done.changes] == ["vanished"]
    retired = record_of(path)
    assert retired["status"] == "withdrawn" and retired["documentation"] == "" and retired["solutions"] == []
    assert set(_errors(folder)) <= set(before)  # (the draft's EDX135 stays the warning it was)
    assert not [f for f in validate([folder]).findings if f.code in ("EDX010", "EDX163")]
    RecordV4.model_validate(retired)


def test_a_retired_draft_keeps_the_leniency_of_a_draft_and_a_documented_record_does_not() -> None:
    record = draft(10, "a" * 40, message="Lease expired.")  # its excerpt does not hold its message: EDX135
    assert is_harvested_only(record) and is_harvested_only(record | {"status": "withdrawn"})
    assert not is_harvested_only(hand_record() | {"status": "withdrawn"})


def test_only_drafts_and_withdrawn_records_may_leave_their_prose_empty() -> None:
    record = draft(10, "a" * 40, message="Lease expired.")
    for status in ("draft", "withdrawn"):
        RecordV4.model_validate(record | {"status": status, "statusReason": "gone"})
    for status in ("active", "superseded"):
        with pytest.raises(ValidationError, match="documentation"):
            RecordV4.model_validate(record | {"status": status})


def test_a_retired_draft_does_not_go_down_to_3_even_when_loss_is_allowed() -> None:
    retired = draft(10, "a" * 40) | {"status": "withdrawn", "statusReason": "gone"}
    with pytest.raises(DraftRefused, match=r"is withdrawn with empty prose \(documentation, commonSituations"):
        downgrade(retired, 3)
    documented = hand_record() | {"schemaVersion": 4, "status": "withdrawn", "statusReason": "gone"}
    assert downgrade(documented, 3)[0]["schemaVersion"] == 3
