"""What an import or an export reports: each record's fate, and what was written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex.checks.base import Finding

__all__ = ["ExportReport", "ImportEntry", "ImportReport"]


@dataclass
class ImportEntry:
    """What happens to one record of the bundle.

    ``status`` is ``added``, ``unchanged``, ``conflict`` or ``invalid``;
    ``reasons`` say why a record conflicts or is invalid, ``fields`` name the
    top-level fields that differ from the existing record of the same id.
    """

    status: str
    line: int
    record_id: str | None = None
    repo: str | None = None
    slug: str | None = None
    path: Path | None = None
    reasons: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    replaces: list[Path] = field(default_factory=list)
    replaceable: bool = True
    written: bool = False
    envelope: dict[str, Any] | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "line": self.line,
            "id": self.record_id,
            "repo": self.repo,
            "slug": self.slug,
            "path": None if self.path is None else str(self.path),
            "reasons": self.reasons,
            "fields": self.fields,
            "findings": [f.as_dict() for f in self.findings],
            "written": self.written,
        }


@dataclass
class ImportReport:
    """Every record of one import, and what was written."""

    bundle: str
    records_dir: Path
    overwrite: bool
    check: bool
    entries: list[ImportEntry] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)

    def with_status(self, status: str) -> list[ImportEntry]:
        return [entry for entry in self.entries if entry.status == status]

    @property
    def conflicts(self) -> list[ImportEntry]:
        return self.with_status("conflict")

    @property
    def invalid(self) -> list[ImportEntry]:
        return self.with_status("invalid")

    @property
    def blocked(self) -> bool:
        """True when conflicts or invalid records keep the import from writing anything."""
        if self.invalid and not self.overwrite:
            return True
        return any(not self.overwrite or not entry.replaceable for entry in self.conflicts)

    def as_dict(self) -> dict[str, Any]:
        counts = {status: len(self.with_status(status)) for status in ("added", "unchanged", "conflict", "invalid")}
        return {
            "bundle": self.bundle,
            "recordsDir": str(self.records_dir),
            "check": self.check,
            "overwrite": self.overwrite,
            "blocked": self.blocked,
            "counts": counts,
            "written": [str(p) for p in self.written],
            "removed": [str(p) for p in self.removed],
            "entries": [entry.as_dict() for entry in self.entries],
        }



@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    format: str
    path: Path
    records: int
    bytes: int
