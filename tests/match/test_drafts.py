"""Drafts are matched by default, and match, explain and match --summary say what the code tells about them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from errdex.match.knowledge import KnowledgeBase
from tests.conftest import ROOT, write_envelope
from tests.records.drafts import draft_envelope

pytestmark = pytest.mark.usefixtures("shared_cache")

LINE = "2026-12-01T10:00:00Z ERROR Lease 1 expired before renew (250 ms late)"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "records"
    shutil.copytree(ROOT / "records", target, ignore=shutil.ignore_patterns(".releases"))
    write_envelope(target, draft_envelope(1))
    write_envelope(target, draft_envelope(2))
    return target


def test_drafts_are_matched_and_retired_records_are_not() -> None:
    draft = draft_envelope(1)["record"]
    withdrawn = {**draft_envelope(2)["record"], "status": "withdrawn", "statusReason": "Gone."}
    kb = KnowledgeBase([draft, withdrawn])
    assert [m.record["id"] for m in kb.match(LINE)] == [draft["id"]]
    assert kb.match(LINE.replace("Lease 1", "Lease 2")) == []


def test_match_text_shows_where_a_draft_comes_from(cli: Any, folder: Path) -> None:
    result = cli("match", "-", "--each", "--records", str(folder), input=LINE + "\n")
    assert result.exit_code == 0, result.stderr
    sha = draft_envelope()["record"]["analyzedSha"][:12]
    assert result.stdout.splitlines()[1:] == [
        "  LeaseError (error): a draft, not documented yet; what the code tells:",
        f"  from: src/lease.ts:41 at {sha}",
        "  code: throw new LeaseError(`Lease 1 expired before renew (${late} ms late)`);",
        "  trigger: raised in renew() when lease.expiresAt < now()",
        "  captured: 250",
        result.stdout.splitlines()[-1],
    ]
    assert result.stdout.splitlines()[-1].startswith("  more: errdex explain lease-1-expired-before-renew")


def test_explain_shows_a_draft_s_origin_and_no_empty_prose(cli: Any, folder: Path) -> None:
    result = cli("explain", "--records", str(folder), LINE)
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "This record is a draft: harvested from the code, not documented yet." in text
    assert "\nWhere it comes from\n    src/lease.ts:41 at " in text
    assert "\n    > 41 |       throw new LeaseError(`Lease 1 expired" in text and "\n      39 |   renew(" in text
    assert "What triggers it (drafted from the code)\n    raised in renew() when lease.expiresAt < now()" in text
    for empty in ("What it means", "Common situations", "How to fix it", "Example fix", "Prevention"):
        assert f"\n{empty}\n" not in text
    as_json = json.loads(cli("explain", "--records", str(folder), LINE, "--format", "json").stdout)
    assert as_json["status"] == "draft"


def test_summary_ranks_the_drafts_that_fired_most(cli: Any, folder: Path) -> None:
    log = "\n".join([LINE] * 2 + [LINE.replace("Lease 1", "Lease 2")] * 3) + "\n"
    result = cli("match", "-", "--records", str(folder), "--summary", input=log)
    assert result.exit_code == 0, result.stderr
    tail = result.stdout.split("document these first:\n")[1].splitlines()
    assert result.stdout.count("2 draft(s) matched; document these first:") == 1
    assert [line.split()[:2] for line in tail] == [["3", "lease-2-expired-before-renew-late-ms-late"],
                                                   ["2", "lease-1-expired-before-renew-late-ms-late"]]
    assert tail[0].endswith("(src/lease.ts:41 at " + draft_envelope()["record"]["analyzedSha"][:12] + ")")


def test_summary_without_drafts_says_nothing_of_them(cli: Any) -> None:
    result = cli("match", "-", "--summary", input=LINE + "\n")
    assert result.exit_code == 0 and "draft" not in result.stdout
