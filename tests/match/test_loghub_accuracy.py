"""On the Loghub samples, the top-ranked record of each line is its ground-truth template (>= 99.5%)."""

from __future__ import annotations

import copy
import json
import re

import pytest

from errdex import KnowledgeBase
from tests.conftest import ROOT
from tests.loghub import load_system, loghub_dir, require_loghub, systems

TARGET = 0.995


def _accuracy(name: str) -> tuple[int, int]:
    system = load_system(require_loghub(), name)
    kb = KnowledgeBase(system.records)
    right = 0
    for line, truth in zip(system.lines, system.truth, strict=True):
        matches = kb.match(line)
        right += bool(matches) and matches[0].record["id"] == truth
    return right, len(system.lines)


def _names() -> list[str]:
    folder = loghub_dir()
    return systems(folder) if folder else ["(missing)"]


@pytest.mark.parametrize("name", _names())
def test_top_ranked_record_is_the_ground_truth_template(name: str) -> None:
    right, total = _accuracy(name)
    assert total == 2000
    assert right / total >= TARGET, f"{name}: {right}/{total} lines ranked their template first"


def test_cli_on_a_folder_of_records_written_with_python_re_escape(tmp_path, cli) -> None:
    """The way an outside harness would do it: templates escaped by Python's re.escape (``\\ ``, ``\\#``...,
    needless under JavaScript's u flag, read as the plain character), records in a bundle, ``errdex match
    --records DIR --format jsonl``."""
    folder = require_loghub()
    base = json.loads((ROOT / "records/paperclipai/paperclip/createos-returned-invalid-json.json").read_text())
    for name in ("OpenSSH", "Apache"):
        system = load_system(folder, name)
        lines = []
        for record in system.records:
            full = copy.deepcopy(base["record"])
            pattern = "(.*?)".join(re.escape(part) for part in record["errorMessage"].split("<*>"))
            full.update({k: record[k] for k in ("id", "slug", "repo", "errorClass", "errorMessage")},
                        messagePattern=pattern, scenarios=[])
            lines.append(json.dumps({"record": full, "datasetVersion": base["datasetVersion"]}))
        bundle = tmp_path / f"{name}.jsonl"
        bundle.write_text("\n".join(lines) + "\n")
        log = folder / name / f"{name}_2k.log"
        result = cli("match", str(log), "--records", str(bundle), "--format", "jsonl", "-q")
        assert result.exit_code == 0, result.stderr
        best = {json.loads(line)["line"]: json.loads(line)["matches"][0]["id"] for line in result.stdout.splitlines()}
        right = sum(best.get(number) == truth for number, truth in enumerate(system.truth, start=1))
        assert right / len(system.truth) >= TARGET, f"{name}: {right}/{len(system.truth)}"
