"""Records and drift reports built by hand, for the sync tests (drift itself is tested on its own)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from errdex.drift.outcomes import Drifted, DriftReport, Kind, NewSite, Place
from errdex.harvest.drafts import draft_record, source_lines
from errdex.harvest.sites import Site, Text
from errdex.records.canonical import canonical_text
from errdex.records.sources import bundled_records_dir

REPO = "paperclipai/paperclip"
OLD_SHA, NEW_SHA = "a" * 40, "b" * 40
PATH = "src/client.ts"
MESSAGE = "CreateOS sandbox identity or state is invalid."
#: The file at the old commit: the statement on lines 10-11, in 20 lines.
OLD_TEXT = "".join(f"old {n}\n" if n not in (10, 11) else f"  throw new Error(\"{MESSAGE}\"); // {n}\n"
                   for n in range(1, 21))
#: The file at the new commit: three lines added above it (the statement is on 13-14).
NEW_TEXT = "new a\nnew b\nnew c\n" + OLD_TEXT
NEW_LINES = source_lines(NEW_TEXT.encode())
PROSE = ("documentation", "commonSituations", "solutions", "exampleFix", "typeGuard", "tryCatchPattern",
         "preventionTips", "triggerScenarios", "scenarios", "tags", "status", "handlingStrategy")


def hand_record() -> dict[str, Any]:
    """The bundled CreateOS record with its prose, placed at lines 10-11 of PATH at OLD_SHA (window 8..13)."""
    path = bundled_records_dir() / "paperclipai/paperclip/createos-sandbox-identity-or-state-is-invalid.json"
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["record"]
    lines = source_lines(OLD_TEXT.encode())
    record.update(filePath=PATH, lineNumber=10, sourceCodeStart=8, sourceCodeEnd=13, analyzedSha=OLD_SHA,
                  sourceCode="\n".join(lines[7:13]),
                  githubUrl=f"https://github.com/{REPO}/blob/{OLD_SHA}/{PATH}#L8-L13")
    return record


def site(line: int, message: str = MESSAGE, path: str = PATH) -> Site:
    return Site(path=path, language="typescript", kind="throw", line=line, end_line=line + 1,
                template=(Text(message),), error_class="Error", function="getSandbox", guards=())


def draft(line: int, sha: str, message: str = MESSAGE, path: str = PATH, text: str = NEW_TEXT) -> dict[str, Any]:
    return draft_record(site(line, message, path), repo=REPO, sha=sha, analyzed_at="2027-01-01T00:00:00Z",
                        lines=source_lines(text.encode()), pattern=message.replace(".", "\\."))


def drifted(record: dict[str, Any], kind: Kind, new_line: int | None = 13, *, message: str = MESSAGE,
            path: str = PATH) -> Drifted:
    old = Place(str(record["filePath"]), int(record["lineNumber"]), int(record["lineNumber"]) + 1)
    new = Place(path, new_line, new_line + 1) if new_line is not None else None
    made = draft(new_line, NEW_SHA, message, path) if new_line is not None else None
    return Drifted(record["id"], kind, old, new, str(record["errorMessage"]), how="content",
                   site=site(new_line, message, path) if new_line is not None else None, draft=made)


def report(items: Sequence[Drifted], new_sites: Sequence[NewSite] = (), files: dict[str, str] | None = None,
           sha: str = NEW_SHA) -> DriftReport:
    texts = files if files is not None else {PATH: NEW_TEXT}
    return DriftReport(REPO, "v2", sha, "2027-01-01T00:00:00Z", list(items), list(new_sites),
                       lambda path: source_lines(texts[path].encode()) if path in texts else None)


def write_folder(folder: Path, records: Sequence[dict[str, Any]]) -> dict[str, Path]:
    """Each record as folder/REPO/SLUG.json in canonical form; id -> file."""
    paths = {}
    for record in records:
        target = folder / str(record["repo"]) / f"{record['slug']}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(canonical_text({"record": record, "datasetVersion": "2026-12-01T00:00:00Z"}).encode())
        paths[str(record["id"])] = target
    return paths


def write_bundle(bundle: Path, records: Sequence[dict[str, Any]]) -> None:
    text = "".join(canonical_text({"record": record, "datasetVersion": "2026-12-01T00:00:00Z"}, bundle_line=True)
                   + "\n" for record in sorted(records, key=lambda record: str(record["id"])))
    bundle.write_bytes(text.encode())


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under folder (lock files aside) and its bytes."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and not path.name.startswith(".")}


def record_of(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["record"]
    return found
