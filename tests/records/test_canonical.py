from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errdex.records.canonical import canonical_text, fmt
from tests.conftest import SEED_PATH, SHARED


#: Fields of the seed that proofs showed to be wrong or incomplete, rewritten in version 3.
SEED_CORRECTED = {
    "documentation", "triggerScenarios", "commonSituations", "solutions", "preventionTips", "tags",
    "contentChangedAt", "schemaVersion", "scenarios",
}


def test_bundled_seed_keeps_the_original_content() -> None:
    original_path = SHARED / "seeds" / "000_b8f3697582f6daa3.txt"
    if not original_path.exists():
        pytest.skip(f"the original seed is not at {original_path}")
    original = json.loads(original_path.read_text(encoding="utf-8"))["record"]
    bundled = json.loads(SEED_PATH.read_text(encoding="utf-8"))["record"]
    kept = {k: v for k, v in original.items() if k not in SEED_CORRECTED}
    assert {k: bundled[k] for k in kept} == kept
    assert set(original) <= set(bundled)
    assert bundled["schemaVersion"] == 3 and len(bundled["scenarios"]) >= 7


def test_canonical_text_orders_keys_and_is_idempotent(seed: dict[str, Any]) -> None:
    shuffled = {"datasetVersion": seed["datasetVersion"], "record": dict(reversed(list(seed["record"].items())))}
    text = canonical_text(shuffled)
    assert text == canonical_text(seed) == canonical_text(json.loads(text))
    assert text.startswith('{\n  "record": {\n    "id": ') and text.endswith("}\n")


def test_fmt_rewrites_and_check_reports(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps(seed))
    assert fmt([path], check=True).changed == [str(path)]
    assert path.read_text() == json.dumps(seed)
    assert fmt([path]).changed == [str(path)]
    assert path.read_text() == canonical_text(seed)
    assert fmt([path], check=True).changed == []
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temporary file left


def test_fmt_leaves_broken_files_alone(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"record": ')
    result = fmt([path])
    assert result.failed and result.failed[0][0] == str(path)
    assert path.read_text() == '{"record": '


def test_fmt_bundle_one_compact_line_per_record(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps(seed, indent=None) + "\n" + json.dumps(seed) + "\n")
    fmt([path])
    assert path.read_text() == (canonical_text(seed, bundle_line=True) + "\n") * 2


def test_non_ascii_stays_readable(seed: dict[str, Any]) -> None:
    assert "—" in canonical_text(seed)


def test_fmt_formats_a_file_named_twice_once(tmp_path: Path, seed: dict[str, Any]) -> None:
    bundle = tmp_path / "b.jsonl"
    other = json.loads(json.dumps(seed))
    other["record"]["id"] = "00000000000000aa"
    bundle.write_text(json.dumps(seed) + "\n\n" + json.dumps(other) + "\n")
    fmt([tmp_path, bundle])
    assert len(bundle.read_text().splitlines()) == 2
    assert fmt([tmp_path, bundle], check=True).changed == []
