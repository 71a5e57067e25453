"""Harvested drafts merged with what a records folder (or a bundle) holds already, and written.

- a draft at the place of a harvested record of the same repository (same ``filePath`` and ``lineNumber`` at
  the same ``analyzedSha``: a record ``errdex sync`` brought to this commit) is that record, whatever its id:
  sync keeps a record's id when it accepts a rewording or follows a rename, and an ordinal id (the second
  site of a message in a file) can name another site once sites are added or removed above it;
- any other draft whose id the dataset holds is that record;
- the record a draft is refreshes only its mechanical fields
  (:data:`~errdex.harvest.drafts.MECHANICAL_FIELDS`, and ``triggerScenarios`` while it is still the
  harvest's own draft); its prose, status, slug, file and everything else a contributor wrote stay; when
  nothing but the time would change the record is *unchanged* and its file is not touched;
- any other draft comes in as a new record (its id's ordinal moved on to the first free one when a record
  another draft holds by its place has that id), its slug derived from its message, with a numeric suffix
  (``-2``, ``-3``) when the repository has that slug already;
- nothing is deleted: a harvested record of the repository whose site is no longer found is reported *gone*.

A folder is written all or nothing (a journal, as ``import`` does), under the records folder's lock; a bundle
is written whole through a temporary file, and not at all when it would hold no record (an empty bundle is
no dataset: EDX005). Files are in canonical form, so the same harvest writes the same
bytes.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._files import write_atomic
from errdex._journal import JOURNAL, all_or_nothing
from errdex._locks import records_lock
from errdex.errors import DataError, UsageError, from_oserror
from errdex.harvest.drafts import DOCUMENTED_FIELDS, DRAFT_STATUS, MECHANICAL_FIELDS, drafted_trigger, record_id
from errdex.records.canonical import canonical_text
from errdex.records.envelope import is_envelope
from errdex.records.paths import record_path, repo_key
from errdex.records.slug import derive_slug, slug_variants
from errdex.records.sources import is_bundle, iter_documents

__all__ = ["Existing", "Merge", "free_slug", "is_harvested", "merge_drafts", "read_existing", "write_bundle",
           "write_folder"]

_MAX_ORDINAL = 100  # how many equal messages in one file are looked for when telling a harvested id


@dataclass
class Existing:
    """A record the dataset holds: its envelope, and the file it sits in (``in_bundle`` for a bundle line)."""

    envelope: dict[str, Any]
    path: Path
    in_bundle: bool = False

    @property
    def record(self) -> dict[str, Any]:
        record: dict[str, Any] = self.envelope["record"]
        return record


@dataclass
class Merge:
    """What a harvest changes: envelopes by id (every record, in id order, for a bundle), and the lists."""

    envelopes: dict[str, dict[str, Any]] = field(default_factory=dict)
    new: list[tuple[str, Path | None]] = field(default_factory=list)
    updated: list[tuple[str, Path | None, list[str]]] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    gone: list[tuple[str, str, int]] = field(default_factory=list)  # id, filePath, lineNumber
    in_bundle: list[str] = field(default_factory=list)  # refreshed records that sit in a bundle: not written
    writes: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.new or self.updated)


def read_existing(paths: Iterable[Path]) -> dict[str, Existing]:
    """The records of these folders or bundles by id; an unreadable record stops the harvest (it could hide an
    id or a slug that a draft would then take). An empty (0-byte) bundle file holds no record: what a harvest
    of a tree without sites wrote before it wrote no bundle at all."""
    found: dict[str, Existing] = {}
    targets = [path for path in paths if path.exists() and not (is_bundle(path.name) and _empty_file(path))]
    if not targets:
        return found
    for doc in iter_documents(targets):
        if doc.fs_path is not None and doc.fs_path.is_dir():
            continue  # an empty records folder
        if doc.problems or not is_envelope(doc.value) or not isinstance(doc.value["record"].get("id"), str):
            line = doc.parsed.line_offset + 1
            raise DataError(f"{doc.path}:{line}: not a readable record envelope; fix it (errdex validate) "
                            "before harvesting into this folder")
        assert doc.fs_path is not None  # read from a file
        record_id_ = doc.value["record"]["id"]
        if record_id_ in found:
            raise DataError(f"{doc.path}: id {record_id_} is already used by {found[record_id_].path}")
        found[record_id_] = Existing(doc.value, doc.fs_path, is_bundle(doc.fs_path.name))
    return found


def _empty_file(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size == 0
    except OSError:
        return False  # read, and reported, as any other unreadable file


def _harvested(record: dict[str, Any]) -> bool:
    """Whether a record's id is the one a harvest gives its repository, file and message."""
    repo, path, message = record.get("repo"), record.get("filePath"), record.get("errorMessage")
    if not all(isinstance(value, str) for value in (repo, path, message)):
        return False
    return any(record.get("id") == record_id(str(repo), str(path), str(message), ordinal)
               for ordinal in range(1, _MAX_ORDINAL + 1))


def is_harvested(record: dict[str, Any]) -> bool:
    """Whether a record came from a harvest: its id is the one a harvest gives its repository, file and message,
    or it is still a draft (a synced draft keeps its id when its message or file changes)."""
    return record.get("status") == DRAFT_STATUS or _harvested(record)


def _by_place(drafts: Sequence[dict[str, Any]], existing: dict[str, Existing], repo: str) -> list[str | None]:
    """Per draft, the id of the harvested record of ``repo`` at its place (None: none, or another draft's)."""
    places: dict[tuple[str, int, str], str] = {}
    for key, item in sorted(existing.items()):
        record = item.record
        path, line, sha = record.get("filePath"), record.get("lineNumber"), record.get("analyzedSha")
        if (record.get("repo") == repo and isinstance(path, str) and isinstance(line, int)
                and isinstance(sha, str) and is_harvested(record)):
            places.setdefault((path, line, sha), key)
    return [places.pop((draft["filePath"], draft["lineNumber"], draft["analyzedSha"]), None) for draft in drafts]


def _free_id(draft: dict[str, Any], repo: str, taken: set[str] | dict[str, Any]) -> str:
    """The draft's id, or its first ordinal id no record has."""
    key, ordinal = draft["id"], 1
    while key in taken and ordinal < _MAX_ORDINAL:
        ordinal += 1
        key = record_id(repo, draft["filePath"], draft["errorMessage"], ordinal)
    return key


def _refresh(old: dict[str, Any], draft: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The old record with the draft's mechanical fields (a documented record keeps its
    :data:`~errdex.harvest.drafts.DOCUMENTED_FIELDS`), and the names of the fields that changed."""
    merged = dict(old)
    documented = old.get("status") != DRAFT_STATUS
    for name in MECHANICAL_FIELDS:
        if name not in draft:  # a draft made without its build files read (build): the record's stays
            continue
        if not (documented and name in DOCUMENTED_FIELDS and name in old):
            merged[name] = draft[name]
    trigger = old.get("triggerScenarios")
    if old.get("status") == DRAFT_STATUS and (not trigger or (isinstance(trigger, str) and drafted_trigger(trigger))):
        merged["triggerScenarios"] = draft["triggerScenarios"]
    changed = [name for name in merged if merged.get(name) != old.get(name)]
    if changed:
        merged["analyzedAt"] = merged["contentChangedAt"] = draft["analyzedAt"]
    return merged, changed


def free_slug(message: str, repo: str, taken: set[tuple[str, str]]) -> str:
    """The slug of ``message`` in ``repo``, with the first numeric suffix that ``taken`` does not hold; taken."""
    slug, number = derive_slug(message), 2
    while (repo_key(repo), slug) in taken:
        slug, number = slug_variants(message, number), number + 1
    taken.add((repo_key(repo), slug))
    return slug


def merge_drafts(drafts: Sequence[dict[str, Any]], existing: dict[str, Existing], *, repo: str,
                 folder: Path | None) -> Merge:
    """Merge drafts (in harvest order) into the existing records; ``folder``: where new record files go (None
    for a bundle)."""
    merge = Merge(envelopes={key: item.envelope for key, item in existing.items()})
    taken = {(repo_key(str(item.record.get("repo"))), str(item.record.get("slug")).lower())
             for item in existing.values()}
    placed = _by_place(drafts, existing, repo)
    held = {key for key in placed if key is not None}
    harvested = set(held)
    for draft, at_place in zip(drafts, placed, strict=True):
        key = at_place or draft["id"]
        if at_place is None and key in held:  # its id is the record another draft holds by its place
            key = _free_id(draft, repo, existing.keys() | merge.envelopes.keys())
        harvested.add(key)
        old = existing.get(key)
        if old is None:
            draft = dict(draft, id=key)
            record = dict(draft, slug=free_slug(draft["errorMessage"], repo, taken))
            envelope = {"record": record, "datasetVersion": draft["analyzedAt"]}
            target = record_path(folder, repo, record["slug"]) if folder is not None else None
            merge.envelopes[record["id"]] = envelope
            merge.new.append((record["id"], target))
            if target is not None:
                merge.writes.append((target, envelope))
            continue
        record, changed = _refresh(old.record, draft)
        if not changed:
            merge.unchanged.append(key)
            continue
        envelope = dict(old.envelope, record=record)
        merge.envelopes[key] = envelope
        if folder is not None and old.in_bundle:
            merge.in_bundle.append(key)
            continue
        merge.updated.append((key, old.path if folder is not None else None, changed))
        if folder is not None:
            merge.writes.append((old.path.resolve() if old.path.is_symlink() else old.path, envelope))
    for key, item in sorted(existing.items()):
        record = item.record
        if key not in harvested and record.get("repo") == repo and is_harvested(record):
            merge.gone.append((key, str(record.get("filePath")), int(record.get("lineNumber") or 0)))
    return merge


def write_folder(merge: Merge, folder: Path) -> None:
    """Write the merge's files into the records folder, every one or none."""
    with all_or_nothing(folder / JOURNAL, command="harvest", untouched="nothing was written",
                        describe=lambda exc: str(from_oserror(exc, action="write"))) as change:
        for target, envelope in merge.writes:
            target.parent.mkdir(parents=True, exist_ok=True)
            change.write(target, canonical_text(envelope).encode("utf-8", "surrogatepass"))


def bundle_bytes(merge: Merge, bundle: Path) -> bytes:
    """Every record of the merge as a JSONL bundle in id order (gzipped without a timestamp for ``.gz``)."""
    text = "".join(canonical_text(merge.envelopes[key], bundle_line=True) + "\n" for key in sorted(merge.envelopes))
    data = text.encode("utf-8", "surrogatepass")
    return gzip.compress(data, compresslevel=9, mtime=0) if bundle.name.lower().endswith(".gz") else data


def write_bundle(merge: Merge, bundle: Path, data: bytes | None = None) -> None:
    """Write the bundle through a temporary file beside it (``data``: its :func:`bundle_bytes`, when known)."""
    try:
        write_atomic(bundle, bundle_bytes(merge, bundle) if data is None else data)
    except OSError as exc:
        raise from_oserror(exc, bundle, action="write") from exc


def locked(folder: Path) -> Any:
    """The records folder's lock for a harvest (made first when the folder does not exist yet)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise from_oserror(exc, folder, action="create the records folder") from exc
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder (--out names the records folder)")
    return records_lock([folder], what="harvest")
