"""The changelog: each release's changes as its manifests tell them, and its ``CHANGELOG.md`` section."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errdex._files import read_regular
from errdex.errors import InputError
from errdex.records.hashing import changed_fields
from errdex.releases.manifest import release_history
from errdex.releases.report import ReleaseReport

__all__ = ["MAX_CHANGELOG_BYTES", "ReleaseChanges", "changelog_entry", "release_changes", "updated_changelog"]

#: The changelog is rewritten whole at every release; a file larger than this is no changelog of errdex's.
MAX_CHANGELOG_BYTES = 64 << 20


@dataclass(frozen=True)
class ReleaseChanges:
    """One release as its manifests tell it: what it added, changed (which fields), withdrew and superseded."""

    version: str
    counts: dict[str, int]
    added: list[tuple[str, str]]  # (id, slug)
    changed: list[tuple[str, str, list[str]]]  # (id, slug, fields)
    withdrawn: list[tuple[str, str]]
    superseded: list[tuple[str, str]]


def release_changes(folder: Path) -> list[ReleaseChanges]:
    """Every release of a records folder, newest first, from its manifests alone."""
    out: list[ReleaseChanges] = []
    before: dict[str, Any] = {}
    for manifest in release_history(folder):
        records = manifest.get("records", {})
        added: list[tuple[str, str]] = []
        changed: list[tuple[str, str, list[str]]] = []
        withdrawn: list[tuple[str, str]] = []
        superseded: list[tuple[str, str]] = []
        for record_id, entry in sorted(records.items(), key=lambda item: item[1].get("slug", "")):
            old = before.get(record_id)
            if old is None:
                added.append((record_id, entry["slug"]))
            elif old["hash"] != entry["hash"]:
                fields = changed_fields(old.get("fields", {}), entry.get("fields", {}))
                changed.append((record_id, entry["slug"], fields))
                if entry.get("status") != old.get("status") and entry.get("status") == "withdrawn":
                    withdrawn.append((record_id, entry["slug"]))
                if entry.get("status") != old.get("status") and entry.get("status") == "superseded":
                    superseded.append((record_id, entry["slug"]))
        out.append(ReleaseChanges(manifest["version"], manifest.get("counts", {}), added, changed, withdrawn,
                                  superseded))
        before = records
    return out[::-1]


def changelog_entry(report: ReleaseReport, successors: dict[str, str]) -> str:
    """The CHANGELOG.md section of one release."""
    counts = report.manifest["counts"]
    lines = [f"## {report.version}", "",
             f"{counts['records']} records: {len(report.added)} added, {len(report.changed)} changed, "
             f"{len(report.withdrawn)} withdrawn, {len(report.superseded)} superseded, {report.unchanged} unchanged"
             + (f" (since {report.previous})." if report.previous else " (first release)."), ""]
    if report.added:
        lines += ["### Added", ""] + [f"- `{r['slug']}` ({r['id']}): {r['errorMessage']}" for r in report.added] + [""]
    if report.changed:
        lines += ["### Changed", ""] + [f"- `{r['slug']}` ({r['id']}): {', '.join(fields)}"
                                        for r, fields in report.changed] + [""]
    if report.withdrawn:
        lines += ["### Withdrawn", ""] + [f"- `{r['slug']}` ({r['id']}): {r.get('statusReason', '')}"
                                          for r in report.withdrawn] + [""]
    if report.superseded:
        lines += ["### Superseded", ""] + [
            f"- `{r['slug']}` ({r['id']}) by `{successors.get(r.get('supersededBy') or '', r.get('supersededBy'))}`: "
            f"{r.get('statusReason', '')}" for r in report.superseded] + [""]
    return "\n".join(lines)


def _with_entry(changelog: str, version: str, entry: str) -> str:
    """The changelog with this version's section put first (replacing an older section of the same version)."""
    header = "# Changelog\n\nEvery release of the dataset, newest first (written by `errdex release`).\n"
    text = "\n" + changelog.removeprefix("\ufeff").replace("\r\n", "\n")  # a section may open the file
    at = text.find("\n## ")
    preamble, body = (text, "") if at < 0 else (text[:at], text[at:])
    if preamble.strip():  # what the file says before its first section is kept, never replaced
        header = preamble.strip("\n") + "\n"
    sections = [s for s in re.split(r"\n(?=## )", body.strip("\n")) if s.strip()]
    sections = [s for s in sections if not s.startswith(f"## {version}\n") and s.strip() != f"## {version}"]
    return header + "\n" + "\n".join([entry.rstrip("\n") + "\n", *(s.rstrip("\n") + "\n" for s in sections)])



def updated_changelog(path: Path, report: ReleaseReport, successors: dict[str, str]) -> bytes:
    """The bytes of the changelog at ``path`` (a missing file is an empty changelog) with this release's
    section first; InputError when the file is no regular UTF-8 text file of bounded size."""
    existing = ""
    if os.path.lexists(path):  # a FIFO or /dev/zero is refused, not waited on or read without end
        raw = read_regular(path, limit=MAX_CHANGELOG_BYTES, error=InputError, what="a changelog")
        try:
            existing = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 (byte {exc.start + 1}); the changelog is Markdown text, "
                             "save it as UTF-8") from exc
    return _with_entry(existing, report.version, changelog_entry(report, successors)).encode("utf-8")
