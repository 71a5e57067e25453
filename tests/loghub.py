"""Loghub samples as errdex records and ground truth (read in place; never copied into the project).

The samples live in ``$ERRDEX_LOGHUB`` or ``../shared/data/loghub`` next to
the project. Each template becomes a record whose pattern is the template
with its literal text escaped and every ``<*>`` turned into ``(.*?)``.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def loghub_dir() -> Path | None:
    explicit = os.environ.get("ERRDEX_LOGHUB")
    candidate = Path(explicit) if explicit else ROOT.parent / "shared" / "data" / "loghub"
    return candidate if candidate.is_dir() else None


def require_loghub() -> Path:
    """The Loghub folder; a skip with the reason when it is missing (a failure under CI=true)."""
    folder = loghub_dir()
    if folder is None:
        reason = "Loghub samples not found: set ERRDEX_LOGHUB or place them at ../shared/data/loghub"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return folder


def template_pattern(template: str) -> str:
    parts = template.split("<*>")
    return "(.*?)".join(re.sub(r"([\\^$.|?*+()\[\]{}/])", r"\\\1", part) for part in parts)


@dataclass(frozen=True)
class System:
    name: str
    records: list[dict[str, Any]]
    lines: list[str]
    truth: list[str]  # record id of each line


def load_system(folder: Path, name: str) -> System:
    base = folder / name / f"{name}_2k.log"
    records = []
    by_event: dict[str, str] = {}
    with open(f"{base}_templates.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            record_id = hashlib.sha256(f"{name}:{row['EventId']}".encode()).hexdigest()[:16]
            by_event[row["EventId"]] = record_id
            records.append({
                "id": record_id, "slug": f"{name.lower()}-{row['EventId'].lower()}", "repo": f"loghub/{name}",
                "errorClass": row["EventId"], "severity": "info", "errorMessage": row["EventTemplate"],
                "messagePattern": template_pattern(row["EventTemplate"]),
            })
    with open(f"{base}_structured.csv", newline="", encoding="utf-8") as handle:
        truth = [by_event[row["EventId"]] for row in csv.DictReader(handle)]
    lines = base.read_text(encoding="utf-8", errors="replace").splitlines()
    return System(name, records, lines, truth)


def systems(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and (p / f"{p.name}_2k.log").exists())
