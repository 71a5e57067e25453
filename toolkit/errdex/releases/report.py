"""What cutting a release reports: the release's records by what happened to them, and what it wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ReleaseReport"]


@dataclass
class ReleaseReport:
    """What a release holds and what changed since the previous one."""

    version: str
    previous: str | None
    added: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[dict[str, Any], list[str]]] = field(default_factory=list)
    withdrawn: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[dict[str, Any]] = field(default_factory=list)
    unchanged: int = 0
    files_written: list[str] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    bundle: Path | None = None
    #: What the run did besides the release: an interrupted change it finished first.
    notes: list[str] = field(default_factory=list)

