"""Every check has an explanation, and its examples really do what they say (like rustc's tidy)."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import errdex
from errdex import registry  # the public name, wherever the registry lives
from errdex.checks.config import ValidationConfig
from errdex.checks.explain import EXPLANATIONS, explain, explanation, explanation_files, write_example
from errdex.checks.runner import validate
from errdex.drift.anchors import open_anchors
from tests.conftest import CliResult

# Not a test of the cache: each check's examples are validated, and these share one cache (of their patterns'
# engine verdicts and parsed records) for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")

Cli = Callable[..., CliResult]

CHECKS = registry()

#: Codes whose failing example cannot be run (yet). It may only shrink: a code here whose example works fails.
EXEMPT: frozenset[str] = frozenset({
    "EDX122",  # a safety net behind EDX121: no portable pattern is known that an engine refuses
})


def _codes_found(documents: tuple[dict[str, Any], ...], folder: Path) -> list[tuple[str, str]]:
    write_example(documents, folder)
    # The source checks' examples (EDX137-EDX139) write the code their record quotes under source/, at its commit.
    code = folder / "source"
    sha = json.loads((EXPLANATIONS / "base-record.json").read_text(encoding="utf-8"))["record"]["analyzedSha"]
    source = open_anchors(code, sha=sha) if code.is_dir() else None
    report = validate([str(folder)], config=ValidationConfig(), source=source)
    return [(finding.code, finding.message) for finding in report.findings]


def test_every_registered_code_has_an_explanation_file_and_every_file_names_one() -> None:
    assert sorted(explanation_files()) == sorted(CHECKS)


@pytest.mark.parametrize("code", sorted(CHECKS))
def test_each_file_names_the_code_of_its_file_name_and_that_check_s_name(code: str) -> None:
    data = tomllib.loads(explanation_files()[code].read_text(encoding="utf-8"))
    assert (data["code"], data["name"]) == (code, CHECKS[code].name)
    assert data["looks_for"].strip() and data["why"].strip() and data["failing"] and data["fixed"]


@pytest.mark.parametrize("code", sorted(CHECKS))
def test_the_failing_example_triggers_its_code(code: str, tmp_path: Path) -> None:
    found = _codes_found(explanation(code).failing, tmp_path)
    if code in EXEMPT:
        assert code not in {c for c, _ in found}, f"{code} now has a working example: remove it from EXEMPT"
        return
    assert code in {c for c, _ in found}, f"{code}'s failing example gives {found}"


@pytest.mark.parametrize("code", sorted(CHECKS))
def test_the_fixed_example_is_clean(code: str, tmp_path: Path) -> None:
    assert _codes_found(explanation(code).fixed, tmp_path) == []


def test_exemptions_name_registered_codes() -> None:
    assert set(CHECKS) >= EXEMPT


@pytest.mark.parametrize("code", sorted(CHECKS))
def test_validate_explain_prints_the_page(code: str, cli: Cli) -> None:
    result = cli("validate", "--explain", code.lower())
    assert result.exit_code == 0, result.stderr
    page = result.stdout
    assert page == explain(code)
    assert page.startswith(f"{code} {CHECKS[code].name} ")
    for heading in ("What it looks for:", "Why it matters:", "Failing example:", "Fixed:"):
        assert heading in page


def test_the_package_exports_the_page() -> None:
    assert errdex.explain_check("pattern-size") == explain("EDX125")


def test_an_example_document_can_replace_text_and_change_the_encoding(tmp_path: Path) -> None:
    [path] = write_example(explanation("EDX002").failing, tmp_path)
    assert path.relative_to(tmp_path).as_posix() == "records/paperclipai/paperclip/a-sandbox-command-is-required.json"
    assert b"na\xefve" in path.read_bytes()
