"""Loghub samples as one bundle of records, and ``errdex match --format jsonl``'s lines per file: what the Spark
and DuckDB tests compare their results with."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, run_cli
from tests.loghub import load_system, require_loghub, systems

__all__ = ["cli_lines", "loghub_bundle", "loghub_logs"]


def loghub_bundle(folder: Path, target: Path) -> Path:
    """Every Loghub system's templates as records, in one bundle the CLI reads."""
    base = json.loads((ROOT / "records/paperclipai/paperclip/createos-returned-invalid-json.json").read_text())
    lines = []
    for name in systems(folder):
        for record in load_system(folder, name).records:
            full = copy.deepcopy(base["record"])
            full.update({k: record[k] for k in ("id", "slug", "repo", "errorClass", "errorMessage", "messagePattern")},
                        scenarios=[])
            lines.append(json.dumps({"record": full, "datasetVersion": base["datasetVersion"]}))
    target.write_text("\n".join(lines) + "\n")
    return target


def cli_lines(logs: list[Path], records: list[str]) -> dict[str, list[dict[str, Any]]]:
    """``errdex match --format jsonl``'s lines, per file."""
    extra = [arg for path in records for arg in ("--records", path)]
    result = run_cli("match", *map(str, logs), *extra, "--format", "jsonl", "-q")
    assert result.exit_code in (0, 1), result.stderr
    found: dict[str, list[dict[str, Any]]] = {}
    for line in result.stdout.splitlines():
        entry = json.loads(line)
        found.setdefault(entry["file"], []).append(entry)
    return found


def loghub_logs() -> list[Path]:
    """Every Loghub sample (a skip, or a failure under CI=true, when they are missing)."""
    folder = require_loghub()
    return [folder / name / f"{name}_2k.log" for name in systems(folder)]
