"""The per-record results cache: a warm run reports exactly what a full one does, on every tricky record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from errdex import registry
from errdex.checks import results as results_module
from errdex.checks.config import ValidationConfig
from errdex.checks.explain import explanation, write_example
from errdex.checks.identity import IdFormat
from errdex.checks.runner import validate
from tests.conftest import ROOT

CORPUS = sorted((ROOT / "tests" / "corpus").glob("v*/*.json"))

#: The source checks never use the cache (what they find depends on the code), so their examples are left out.
CODES = sorted(code for code, cls in registry().items() if not cls.needs_source)


def _findings(folder: Path, config: ValidationConfig | None = None) -> list[dict[str, Any]]:
    report = validate([str(folder)], config=config or ValidationConfig())
    return [finding.as_dict() for finding in report.findings]


def _cold_then_warm(folder: Path, cache: Path, monkeypatch: pytest.MonkeyPatch,
                    config: ValidationConfig | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(cache))
    shutil.rmtree(cache, ignore_errors=True)
    full = _findings(folder, config)
    return full, _findings(folder, config)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Every corpus record (valid and invalid: bad schema shapes, versions, drafts) in one folder."""
    folder = tmp_path / "corpus"
    for path in CORPUS:
        target = folder / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return folder


def test_the_corpus_gives_the_same_findings_warm_as_cold(corpus: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    full, warm = _cold_then_warm(corpus, tmp_path / "cache", monkeypatch)
    assert (tmp_path / "cache" / results_module.RESULTS_FILE).is_file()
    assert full and warm == full


@pytest.mark.parametrize("code", CODES)
def test_each_check_s_failing_example_gives_the_same_findings_warm_as_cold(
        code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "example"
    write_example(explanation(code).failing, folder)
    full, warm = _cold_then_warm(folder, tmp_path / "cache", monkeypatch)
    assert warm == full
    if code != "EDX122":  # no portable pattern is known that an engine refuses (see test_explain's EXEMPT)
        assert code in {finding["code"] for finding in full}


def test_the_configuration_applies_to_kept_findings(corpus: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings are kept as the checks gave them: --strict and per-record ignores of a later run still apply."""
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    plain = _findings(corpus)
    some = next(f for f in plain if f["recordId"] and f["code"] not in ("EDX010", "EDX011"))
    config = ValidationConfig(strict=True, per_record_ignores={some["recordId"]: {some["code"]}})
    warm = _findings(corpus, config)
    shutil.rmtree(tmp_path / "cache")
    assert warm == _findings(corpus, config)
    assert len(warm) < len(plain)


def test_a_warm_run_does_not_run_the_one_record_checks_again(corpus: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[str] = []
    original = IdFormat.check

    def counted(self: IdFormat, ctx: Any) -> Any:
        calls.append(ctx.path)
        return original(self, ctx)

    monkeypatch.setattr(IdFormat, "check", counted)
    first = _findings(corpus)
    assert calls
    calls.clear()
    assert _findings(corpus) == first
    assert calls == []
    changed = corpus / "v2" / "upper-id.invalid.json"
    envelope = json.loads(changed.read_text(encoding="utf-8"))
    envelope["record"]["id"] = "ABCDEF0123456789"
    changed.write_text(json.dumps(envelope), encoding="utf-8")
    second = _findings(corpus)
    assert len(calls) == 1 and calls[0].endswith("upper-id.invalid.json")  # only the changed record
    assert any(f["code"] == "EDX101" and "ABCDEF0123456789" in f["message"] for f in second)


def test_other_checks_selected_or_a_moved_file_are_checked_again(corpus: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    _findings(corpus)
    only = ValidationConfig(select=["EDX101"])
    selected = _findings(corpus, only)
    assert "EDX101" in {f["code"] for f in selected} and "EDX111" not in {f["code"] for f in selected}
    shutil.rmtree(tmp_path / "cache")
    assert selected == _findings(corpus, only)
    moved = tmp_path / "elsewhere"
    shutil.move(corpus, moved)
    found = _findings(moved)
    assert any("elsewhere" in f["message"] for f in found)  # EDX114 names the folder the file is in
    shutil.rmtree(tmp_path / "cache")
    assert found == _findings(moved)


def test_a_damaged_cache_file_costs_only_time(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(cache))
    full = _findings(corpus)
    path = cache / results_module.RESULTS_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in data["entries"]:
        data["entries"][key] = [["EDX101", 3]]  # not what an entry holds
    path.write_text(json.dumps(data), encoding="utf-8")
    assert _findings(corpus) == full
    path.write_text("{not json", encoding="utf-8")
    assert _findings(corpus) == full


def test_a_finding_is_placed_in_its_own_document_when_no_check_keeps_documents(corpus: Path) -> None:
    """With only one-record checks selected no document outlives its checks, and a new one may get the id of a
    freed one: its findings must still be placed in its own text."""
    every = {(f["path"], f["pointer"], f["message"]): (f["line"], f["column"]) for f in _findings(corpus)}
    alone = _findings(corpus, ValidationConfig(select=["EDX101"]))
    both = [f for f in alone if (f["path"], f["pointer"], f["message"]) in every]
    assert len(both) > 20
    assert all(every[f["path"], f["pointer"], f["message"]] == (f["line"], f["column"]) for f in both)
    assert any(f["pointer"] == "/extra" and f["line"] == 51 for f in alone)
