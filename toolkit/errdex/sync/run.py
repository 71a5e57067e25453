"""The whole sync: drift's findings applied to the records, written all or nothing under the records lock.

1. what drift found (a :class:`~errdex.drift.outcomes.DriftReport`, given or made by the ``drift`` callable);
2. under the lock of every records folder (not taken with ``check``), the records read again and each one
   drift found brought to the new commit (:mod:`.apply`); with ``add_new`` the new sites merged in as drafts
   by harvest's merge, into the first records folder or bundle;
3. every file that changed, record files and whole bundles alike, staged in one change and renamed into
   place together, and the old file of each record whose accepted rewording gave it a new slug removed in
   the same change (:mod:`.slugs`; a failure on the way leaves every file as it was); nothing is written
   when nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._journal import all_or_nothing
from errdex._locks import journal_for, records_lock
from errdex.drift.outcomes import Drifted, DriftReport
from errdex.errors import DataError, UsageError, from_oserror
from errdex.harvest.merge import Existing, Merge, bundle_bytes, merge_drafts, read_existing
from errdex.records.canonical import canonical_text
from errdex.records.sources import bundled_records_dir, is_bundle
from errdex.sync.apply import applied, enveloped
from errdex.sync.report import Change, Kept, SyncReport
from errdex.sync.slugs import new_path, resolved_slug, taken_slugs

__all__ = ["DriftFunction", "sync"]

#: ``drift(source, rev=..., records=..., repo=..., config=...)``, as :func:`errdex.drift.drift` is called.
DriftFunction = Callable[..., DriftReport]


@dataclass
class _Plan:
    """What the sync writes: record files by path, and the whole content of each bundle that changed."""

    files: dict[Path, dict[str, Any]] = field(default_factory=dict)
    bundles: dict[Path, dict[str, dict[str, Any]]] = field(default_factory=dict)
    removed: list[Path] = field(default_factory=list)  # files of records that moved to a new name

    def bundle(self, path: Path, existing: dict[str, Existing]) -> dict[str, dict[str, Any]]:
        """The envelopes the bundle at ``path`` will hold, by id (what it holds now, to begin with)."""
        return self.bundles.setdefault(path, {key: item.envelope for key, item in existing.items()
                                              if item.in_bundle and item.path == path})

    def put(self, old: Existing, envelope: dict[str, Any], existing: dict[str, Existing],
            path: Path | None = None) -> None:
        """The record's new envelope, in its bundle or its file (``path``: its new file, when it moves)."""
        if old.in_bundle:
            self.bundle(old.path, existing)[envelope["record"]["id"]] = envelope
        elif path is not None and path != old.path:
            self.files[path] = envelope
            self.removed.append(old.path)
        else:
            self.files[old.path.resolve() if old.path.is_symlink() else old.path] = envelope


def _where(item: Drifted) -> tuple[str, str]:
    new = f"{item.new.path}:{item.new.line}" if item.new is not None else "gone"
    return f"{item.old.path}:{item.old.line}", new


def _kept(item: Drifted, accept_reworded: bool, retire_vanished: bool) -> Kept | None:
    if item.kind == "reworded" and not accept_reworded:
        return Kept(item.record_id, item.kind, "--accept-reworded", f"{item.old_message!r} -> {item.new_message!r}")
    if item.kind == "vanished" and item.how == "unparsed":
        return Kept(item.record_id, item.kind, "", f"{item.old.path}:{item.old.line}: its file failed to parse")
    if item.kind == "vanished" and not retire_vanished:
        return Kept(item.record_id, item.kind, "--retire-vanished", f"{item.old.path}:{item.old.line}")
    return None


def _reslugged(record: dict[str, Any], changed: list[str], old: Existing,
               taken: set[tuple[str, str]]) -> tuple[dict[str, Any], Path]:
    """A reworded record with the slug of its new message, and the file it then goes in (:mod:`.slugs`)."""
    if "errorMessage" not in changed:
        return record, old.path
    old_slug = str(old.record.get("slug"))
    slug = resolved_slug(record, old, taken)
    if slug == old_slug:
        return record, old.path
    changed.append("slug")
    return dict(record, slug=slug), new_path(old, old_slug, slug)


def _apply(found: DriftReport, existing: dict[str, Existing], report: SyncReport, plan: _Plan, *,
           accept_reworded: bool, retire_vanished: bool) -> None:
    taken = taken_slugs(existing.values())
    for item in sorted(found.drifted, key=lambda item: item.record_id):
        old = existing.get(item.record_id)
        if old is None:
            raise DataError(f"drift reports record {item.record_id}, which the records given do not hold; "
                            "run drift and sync on the same records")
        record, changed = applied(old.record, item, found, accept_reworded=accept_reworded,
                                  retire_vanished=retire_vanished)
        if not changed:
            kept = _kept(item, accept_reworded, retire_vanished)
            if kept is not None:
                report.kept.append(kept)
            else:
                report.unchanged += 1
            continue
        record, path = _reslugged(record, changed, old, taken)
        envelope = enveloped(old.envelope, record)
        plan.put(old, envelope, existing, path)
        if path != old.path or record.get("slug") != old.record.get("slug"):  # new drafts see its new slug
            existing[item.record_id] = Existing(envelope, path, old.in_bundle)
        report.changes.append(Change(item.record_id, item.kind, str(path), tuple(changed), *_where(item),
                                     renamed_from=str(old.path) if path != old.path else None))


def _add_new(found: DriftReport, existing: dict[str, Existing], into: Path, report: SyncReport,
             plan: _Plan) -> None:
    """The new sites merged in as drafts by harvest's merge, into the folder or bundle ``into``."""
    bundle = is_bundle(into.name)
    merge: Merge = merge_drafts([site.draft for site in found.new_sites], existing, repo=found.repo,
                                folder=None if bundle else into)
    for key, target in merge.new:
        envelope = merge.envelopes[key]
        if target is None:
            plan.bundle(into, existing)[key] = envelope
        else:
            plan.files[target] = envelope
        report.added.append((key, str(target or into)))
    known = len(found.new_sites) - len(merge.new)
    if known:
        report.notes.append(f"{known} of the new sites drift found are records already (their id, or the place "
                            "of a record synced to this commit): not added")


def _plan(found: DriftReport, targets: Sequence[Path], report: SyncReport, *, accept_reworded: bool,
          retire_vanished: bool, add_new: bool) -> _Plan:
    existing = read_existing(targets)
    plan = _Plan()
    _apply(found, existing, report, plan, accept_reworded=accept_reworded, retire_vanished=retire_vanished)
    if add_new and found.new_sites:
        _add_new(found, existing, targets[0], report, plan)
    return plan


def _write(plan: _Plan, journal: Path) -> None:
    """Every file of the plan, all or nothing."""
    with all_or_nothing(journal, command="errdex command on these records", untouched="nothing was written",
                        describe=lambda exc: str(from_oserror(exc, action="write"))) as change:
        for path, envelope in sorted(plan.files.items()):
            path.parent.mkdir(parents=True, exist_ok=True)
            change.write(path, canonical_text(envelope).encode("utf-8", "surrogatepass"))
        for bundle, envelopes in sorted(plan.bundles.items()):
            change.write(bundle, bundle_bytes(Merge(envelopes=envelopes), bundle))
        for path in plan.removed:
            change.remove(path)


def _targets(records: Sequence[str | Path], add_new: bool) -> list[Path]:
    targets = [Path(path) for path in records] or [bundled_records_dir().resolve()]
    for number, target in enumerate(targets):
        if not target.exists() and not (add_new and number == 0 and is_bundle(target.name)):
            raise UsageError(f"--records {target}: no such records folder, record file or bundle")
    if add_new and not (is_bundle(targets[0].name) or targets[0].is_dir()):
        raise UsageError(f"--add-new adds drafts to a records folder or a bundle; {targets[0]} is neither "
                         "(give one first in --records)")
    return targets


def sync(source: str | Path | None = None, *, drift: DriftReport | DriftFunction, rev: str | None = None,
         records: Sequence[str | Path] = (), repo: str | None = None, config: str | Path | None = None,
         check: bool = False, accept_reworded: bool = False, retire_vanished: bool = False,
         add_new: bool = False) -> SyncReport:
    """Bring the records (folders, record files or bundles; default: the project's ``records/``) of the
    repository SOURCE holds to ``rev``: ``drift`` is what drift found, or the function that finds it (called
    with SOURCE and the other arguments). Moved records get their new place; ``accept_reworded`` takes a
    reworded record's new message and pattern, ``retire_vanished`` withdraws a vanished one, ``add_new`` adds
    the sites no record covers as drafts. ``check``: write nothing. See :mod:`errdex.sync.apply` for exactly
    which fields change."""
    targets = _targets(records, add_new)
    found = drift if isinstance(drift, DriftReport) else drift(source, rev=rev, records=targets, repo=repo,
                                                                 config=config)
    report = SyncReport(found.repo, found.rev, found.sha, check=check, new_sites=len(found.new_sites))
    options = {"accept_reworded": accept_reworded, "retire_vanished": retire_vanished, "add_new": add_new}
    if check:
        _plan(found, targets, report, **options)
        return report
    with records_lock(targets, what="sync", say=False) as notes:  # what is compared is what is written over
        report.notes.extend(notes)
        plan = _plan(found, targets, report, **options)
        if plan.files or plan.bundles:
            _write(plan, journal_for(targets))
    return report
