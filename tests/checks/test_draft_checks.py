"""Drafts and empty excerpts: a draft is a warning (an error with --strict), an empty sourceCode a warning that
--strict leaves a warning while the bundled records wait for their harvested excerpts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errdex import validate
from errdex.checks.config import ValidationConfig
from tests.conftest import ROOT, write_envelope

pytestmark = pytest.mark.usefixtures("shared_cache")

DRAFT = json.loads((ROOT / "tests/corpus/v4/draft-empty-prose.json").read_text(encoding="utf-8"))
SEED_V4 = json.loads((ROOT / "tests/corpus/v4/seed.json").read_text(encoding="utf-8"))


def _found(folder: Path, *, strict: bool = False) -> list[tuple[str, str, str, str]]:
    """The findings, without EDX201 (no scenarios: a draft has none yet, and says so apart)."""
    report = validate([folder], config=ValidationConfig(strict=strict))
    return [(f.code, f.severity, f.pointer, f.message) for f in report.findings if f.code != "EDX201"]


def test_a_draft_with_empty_prose_is_one_warning_naming_every_empty_field(tmp_path: Path) -> None:
    write_envelope(tmp_path, DRAFT)
    [(code, severity, pointer, message)] = _found(tmp_path)
    assert (code, severity, pointer) == ("EDX163", "warning", "/record/documentation")
    assert message == ("a draft, not documented yet: write documentation, commonSituations, solutions, exampleFix, "
                       "typeGuard, tryCatchPattern, preventionTips, then set status to active")


def test_a_draft_with_its_prose_written_still_asks_for_review(tmp_path: Path) -> None:
    write_envelope(tmp_path, {**SEED_V4, "record": {**SEED_V4["record"], "status": "draft"}})
    assert [(c, s, p) for c, s, p, _ in _found(tmp_path)] == [("EDX163", "warning", "/record/status")]


def test_strict_refuses_drafts(tmp_path: Path, cli: Any) -> None:
    write_envelope(tmp_path, DRAFT)
    assert [(c, s) for c, s, _, _ in _found(tmp_path, strict=True)] == [("EDX163", "error")]
    assert cli("validate", "--no-config", str(tmp_path)).exit_code == 0
    assert cli("validate", "--no-config", "--strict", str(tmp_path)).exit_code == 1


def test_an_active_record_with_empty_prose_is_a_schema_error(tmp_path: Path) -> None:
    write_envelope(tmp_path, {**DRAFT, "record": {**DRAFT["record"], "status": "active"}})
    found = {(code, severity, pointer) for code, severity, pointer, _ in _found(tmp_path)}
    assert ("EDX010", "error", "/record/documentation") in found and not any(c == "EDX163" for c, _, _ in found)


def test_a_draft_status_in_a_version_3_record_is_a_schema_error(tmp_path: Path) -> None:
    write_envelope(tmp_path, json.loads((ROOT / "tests/corpus/v3/draft-status.invalid.json").read_text("utf-8")))
    assert [(c, s, p) for c, s, p, _ in _found(tmp_path)] == [("EDX010", "error", "/record/status")]


def test_empty_source_is_a_warning_also_with_strict(tmp_path: Path, seed: dict[str, Any]) -> None:
    seed["record"]["sourceCode"] = ""
    write_envelope(tmp_path, seed)
    for strict in (False, True):
        assert [(c, s, p) for c, s, p, _ in _found(tmp_path, strict=strict)] == [
            ("EDX136", "warning", "/record/sourceCode")]


def test_the_bundled_dataset_passes_with_its_empty_excerpts_as_warnings(cli: Any) -> None:
    for strict in ([], ["--strict"]):
        result = cli("validate", *strict, "--format", "json")
        assert result.exit_code == 0, result.stdout
        found = result.json()
        assert {(f["code"], f["severity"]) for f in found} == {("EDX136", "warning")}
        assert len(found) == 12  # the excerpts of execute.ts are not harvested yet


def _far_message(status: str) -> dict[str, Any]:
    """The seed with its message's text moved out of the excerpt, as a message built from a constant declared
    far from the call would be."""
    record = {**SEED_V4["record"], "status": status,
              "sourceCode": "\n".join(f"  step({i});" for i in range(SEED_V4["record"]["sourceCodeEnd"]
                                                                   - SEED_V4["record"]["sourceCodeStart"] + 1))}
    return {**SEED_V4, "record": record}


@pytest.mark.parametrize(("status", "severity"), [("draft", "warning"), ("active", "error")])
def test_a_message_far_from_its_call_is_for_review_in_a_draft_and_an_error_once_active(
        tmp_path: Path, status: str, severity: str) -> None:
    write_envelope(tmp_path, _far_message(status))
    assert [(c, s) for c, s, _, _ in _found(tmp_path) if c == "EDX135"] == [("EDX135", severity)]
