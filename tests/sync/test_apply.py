from __future__ import annotations

import pytest

from errdex.errors import DataError
from errdex.sync.apply import applied, enveloped, retire_reason
from tests.sync._build import (
    MESSAGE,
    NEW_LINES,
    NEW_SHA,
    PATH,
    PROSE,
    REPO,
    draft,
    drifted,
    hand_record,
    report,
)

TIMES = ("analyzedAt", "contentChangedAt")


def test_a_moved_record_keeps_its_own_window_and_gets_its_new_place() -> None:
    record = hand_record()
    synced, changed = applied(record, drifted(record, "moved"), report([]))
    assert (synced["lineNumber"], synced["sourceCodeStart"], synced["sourceCodeEnd"]) == (13, 11, 16)
    assert synced["sourceCode"] == "\n".join(NEW_LINES[10:16])
    assert synced["githubUrl"] == f"https://github.com/{REPO}/blob/{NEW_SHA}/{PATH}#L11-L16"
    assert synced["analyzedSha"] == NEW_SHA and synced["analyzedAt"] == synced["contentChangedAt"]
    assert synced["sourceCode"] == record["sourceCode"]  # the same lines, three further down
    assert sorted(changed) == ["analyzedSha", "githubUrl", "lineNumber", "sourceCodeEnd", "sourceCodeStart"]
    assert {key: value for key, value in synced.items() if key not in (*changed, *TIMES)} == \
        {key: value for key, value in record.items() if key not in (*changed, *TIMES)}


def test_a_line_inside_the_statement_stays_as_far_into_it() -> None:
    record = hand_record() | {"lineNumber": 11}
    synced, _ = applied(record, drifted(hand_record(), "moved"), report([]))
    assert (synced["lineNumber"], synced["sourceCodeStart"], synced["sourceCodeEnd"]) == (14, 11, 16)


def test_the_window_is_clamped_to_the_file() -> None:
    record = hand_record()
    short = "\n".join(["  throw x", "  throw x"]) + "\n"
    synced, _ = applied(record, drifted(record, "moved", 1), report([], files={PATH: short}))
    assert (synced["lineNumber"], synced["sourceCodeStart"], synced["sourceCodeEnd"]) == (1, 1, 2)
    assert synced["sourceCode"] == "  throw x\n  throw x"


def test_a_renamed_file_is_followed() -> None:
    record = hand_record()
    moved = drifted(record, "moved", path="src/api/client.ts")
    synced, changed = applied(record, moved, report([], files={"src/api/client.ts": "\n".join(NEW_LINES)}))
    assert synced["filePath"] == "src/api/client.ts" and "filePath" in changed
    assert "/src/api/client.ts#L11-L16" in synced["githubUrl"]


def test_a_harvested_draft_takes_the_harvests_window() -> None:
    record = draft(10, "a" * 40, text="\n".join(NEW_LINES[3:]))
    synced, _ = applied(record, drifted(record, "moved"), report([]))
    made = draft(13, NEW_SHA)
    assert {name: synced[name] for name in ("sourceCode", "sourceCodeStart", "sourceCodeEnd", "githubUrl")} == \
        {name: made[name] for name in ("sourceCode", "sourceCodeStart", "sourceCodeEnd", "githubUrl")}


def test_unchanged_at_the_same_commit_changes_nothing() -> None:
    record = hand_record()
    item = drifted(record, "unchanged", 10)
    same, changed = applied(record, item, report([], files={PATH: "\n".join(NEW_LINES[3:])}, sha="a" * 40))
    assert same is record and changed == []


def test_unchanged_at_another_commit_gets_the_commit() -> None:
    record = hand_record()
    synced, changed = applied(record, drifted(record, "unchanged", 10),
                              report([], files={PATH: "\n".join(NEW_LINES[3:])}))
    assert sorted(changed) == ["analyzedSha", "githubUrl"] and synced["lineNumber"] == 10


def test_a_reworded_record_changes_only_when_accepted_and_keeps_its_prose() -> None:
    record = hand_record()
    item = drifted(record, "reworded", message="CreateOS sandbox is not the one asked for.")
    assert applied(record, item, report([])) == (record, [])
    synced, changed = applied(record, item, report([]), accept_reworded=True)
    assert synced["errorMessage"] == "CreateOS sandbox is not the one asked for."
    assert synced["messagePattern"] == "CreateOS sandbox is not the one asked for\\."
    assert {"errorMessage", "messagePattern", "lineNumber"} <= set(changed)
    assert all(synced.get(name) == record.get(name) for name in PROSE)
    assert synced["id"] == record["id"] and synced["slug"] == record["slug"]


def test_a_vanished_record_is_withdrawn_only_when_asked_and_nothing_else_changes() -> None:
    record = hand_record()
    item = drifted(record, "vanished", None)
    assert applied(record, item, report([])) == (record, [])
    retired, changed = applied(record, item, report([]), retire_vanished=True)
    assert changed == ["status", "statusReason"]
    assert retired["statusReason"] == retire_reason(NEW_SHA) == \
        f"no statement writes this message at {NEW_SHA} (errdex sync)"
    assert {k: v for k, v in retired.items() if k not in changed} == record
    assert applied(retired, item, report([]), retire_vanished=True) == (retired, [])  # already withdrawn


def test_a_place_in_a_file_drift_cannot_read_is_refused() -> None:
    record = hand_record()
    with pytest.raises(DataError, match=r"src/client\.ts is not in"):
        applied(record, drifted(record, "moved"), report([], files={}))
    assert MESSAGE in record["sourceCode"]


def test_a_drafts_own_trigger_follows_the_code_and_a_contributors_does_not() -> None:
    record = draft(10, "a" * 40, text="\n".join(NEW_LINES[3:])) | {"triggerScenarios": "raised in old()"}
    item = drifted(record, "moved")
    synced, changed = applied(record, item, report([]))
    assert synced["triggerScenarios"] == "raised in getSandbox()" and "triggerScenarios" in changed
    written = record | {"triggerScenarios": "When the sandbox answers for another one."}
    assert applied(written, item, report([]))[0]["triggerScenarios"] == written["triggerScenarios"]
    active = record | {"status": "active"}
    assert applied(active, item, report([]))[0]["triggerScenarios"] == "raised in old()"


def test_the_envelope_never_predates_the_change() -> None:
    record = hand_record()
    synced, _ = applied(record, drifted(record, "moved"), report([]))
    envelope = enveloped({"record": record, "datasetVersion": "2026-12-01T00:00:00Z"}, synced)
    assert envelope["datasetVersion"] == synced["contentChangedAt"] == "2027-01-01T00:00:00Z"
    later = enveloped({"record": record, "datasetVersion": "2028-01-01T00:00:00Z"}, synced)
    assert later["datasetVersion"] == "2028-01-01T00:00:00Z" and later["record"] is synced
