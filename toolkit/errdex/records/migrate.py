"""Moving record files between format versions (one record in memory: :mod:`errdex.records.versions`).

:func:`migrate` rewrites files in place. It reads and migrates every record
before it writes anything, so nothing is written when a record cannot be
read, is invalid, or (without ``allow_loss``) would lose data; and it
replaces the files all or nothing, under the folders' lock. The names of
:mod:`errdex.records.versions` stay importable from here.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._journal import all_or_nothing
from errdex._locks import journal_for, records_lock
from errdex.errors import DataError, UsageError, os_reason
from errdex.records.canonical import canonical_text
from errdex.records.loader import checked_record, model_problem
from errdex.records.sources import (
    Document,
    bundled_records_dir,
    is_bundle,
    iter_documents,
)
from errdex.records.versions import (
    ADDED_IN_3,
    LATEST,
    DraftRefused,
    Loss,
    check_target,
    downgrade,
    migrate_record,
    upgrade,
)

__all__ = [
    "ADDED_IN_3",
    "LATEST",
    "DraftRefused",
    "FileMigration",
    "Loss",
    "MigrationRefused",
    "MigrationReport",
    "downgrade",
    "migrate",
    "migrate_record",
    "plan",
    "upgrade",
]


# --- files ----------------------------------------------------------------------------------------------------


@dataclass
class FileMigration:
    """What migrating one file does or would do."""

    path: str
    fs_path: Path
    from_versions: tuple[int, ...]
    records: int
    changed: bool
    #: (record id, loss) for every field that migrating drops while it holds data.
    losses: list[tuple[str, Loss]] = field(default_factory=list)
    #: The file's new bytes when it changes.
    content: bytes | None = field(default=None, repr=False)


@dataclass
class MigrationReport:
    """What ``migrate`` did (``applied``) or would do, file by file."""

    to: int
    files: list[FileMigration] = field(default_factory=list)
    applied: bool = False
    #: What the run did besides the migration: an interrupted change it finished first.
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[FileMigration]:
        return [file for file in self.files if file.changed]

    @property
    def unchanged(self) -> list[FileMigration]:
        return [file for file in self.files if not file.changed]

    @property
    def losses(self) -> list[tuple[str, str, Loss]]:
        """(path, record id, loss) for every dropped field, in file order."""
        return [(file.path, record_id, loss) for file in self.files for record_id, loss in file.losses]


class MigrationRefused(DataError):
    """Migrating would drop data and ``allow_loss`` was not given; ``report`` holds every loss."""

    def __init__(self, report: MigrationReport) -> None:
        self.report = report
        super().__init__(_refusal(report))


def _refusal(report: MigrationReport) -> str:
    first = next(file for file in report.files if file.losses)
    by_record: dict[str, list[str]] = {}
    for record_id, loss in first.losses:
        by_record.setdefault(record_id, []).append(str(loss))
    dropped = "; ".join(f"record {record_id}: {', '.join(losses)}" for record_id, losses in by_record.items())
    others = sum(1 for file in report.files if file.losses) - 1
    more = f"; {others} more file(s) would lose data" if others else ""
    return (f"{first.path}: migrating to version {report.to} would drop data from {dropped}{more}; "
            f"nothing was written (pass --allow-loss to drop it)")


def _by_file(paths: Sequence[str | Path] | None) -> list[tuple[Path, str, list[Document]]]:
    """Each file's documents, once per file even when two arguments name it."""
    groups: list[tuple[Path, str, list[Document]]] = []
    for doc in iter_documents(paths):
        assert doc.fs_path is not None  # stdin is refused before reading
        if not groups or doc.fs_path != groups[-1][0]:
            groups.append((doc.fs_path, doc.path, []))
        groups[-1][2].append(doc)
    seen: set[Path] = set()
    unique = []
    for group in groups:
        if group[0].resolve() not in seen:
            seen.add(group[0].resolve())
            unique.append(group)
    return unique


def _file_bytes(path: Path, values: list[Any]) -> bytes:
    """The canonical bytes of a file holding these documents (gzipped bundles with a zero timestamp)."""
    if not is_bundle(path.name):
        return canonical_text(values[0]).encode("utf-8")
    data = "".join(canonical_text(value, bundle_line=True) + "\n" for value in values).encode("utf-8")
    if path.name.lower().endswith(".gz"):
        return gzip.compress(data, mtime=0)
    return data


def _plan_file(path: Path, display: str, docs: list[Document], to: int) -> FileMigration:
    versions: set[int] = set()
    losses: list[tuple[str, Loss]] = []
    values: list[Any] = []
    for doc in docs:
        value, record = checked_record(doc)
        versions.add(record["schemaVersion"])
        try:
            migrated, dropped = migrate_record(record, to)
        except DraftRefused as exc:
            raise DraftRefused(f"{display}: {exc}; nothing was written") from None
        losses.extend((record["id"], loss) for loss in dropped)
        written = {**value, "record": migrated} if record is not value else migrated
        problem = model_problem(written, envelope=record is not value) if migrated is not record else None
        if problem is not None:  # what the lower version cannot say (an sshd scenario in version 3)
            raise DataError(f"{display}: record {record['id']} cannot be written at version {to}: {problem[0]}: "
                            f"{problem[1]}; nothing was written")
        values.append(written)
    changed = versions != {to}
    if changed and any(doc.outside for doc in docs):
        raise DataError(f"{display}: reached through a symbolic link that leaves the folder given; migrate never "
                        "writes out of the tree it is given (name the file itself to migrate it); nothing was written")
    content = _file_bytes(path, values) if changed else None
    return FileMigration(display, path, tuple(sorted(versions)), len(docs), changed, losses, content)


def _check_arguments(paths: Sequence[str | Path] | None, to: int) -> None:
    check_target(to)
    if paths and any(str(path) == "-" for path in paths):
        raise UsageError("migrate rewrites files in place and cannot read stdin ('-'); name the files")


def plan(paths: Sequence[str | Path] | None, to: int) -> MigrationReport:
    """What migrating these files, folders or bundles (default: the bundled dataset) to ``to`` would do.

    Reads and checks every record, writes nothing. Raises DataError at the
    first document that cannot be read or does not conform to its version.
    """
    _check_arguments(paths, to)
    report = MigrationReport(to)
    for path, display, docs in _by_file(paths):
        report.files.append(_plan_file(path, display, docs, to))
    return report


def _write(report: MigrationReport, journal: Path) -> None:
    with all_or_nothing(journal, command="migrate", untouched="no file was changed",
                        describe=lambda exc: f"{exc.filename or 'a record file'}: cannot rewrite file: "
                                             f"{os_reason(exc)}") as change:
        for file in report.changed:
            assert file.content is not None
            change.write(file.fs_path.resolve(), file.content)  # a symlink keeps pointing at the rewritten file
    report.applied = True


def migrate(paths: Sequence[str | Path] | None, to: int, *, allow_loss: bool = False,
            check: bool = False) -> MigrationReport:
    """Rewrite every record in these files, folders or bundles (default: the bundled dataset) at version ``to``.

    A file whose records all are at ``to`` already is left as it is; the
    others are replaced all or nothing, in canonical form: every new file is
    written beside its target first, then they are renamed into place under
    a journal, so a migration killed half-way is finished by the next run
    (``notes`` says so). The folders are locked meanwhile: a second run
    waits, then refuses. Going down drops the fields the lower version
    lacks: when one holds data and ``allow_loss`` is false,
    :class:`MigrationRefused` (a DataError holding the report) is raised and
    nothing is written. A draft never goes down to version 3, ``allow_loss``
    or not: :class:`DraftRefused` names its file, and nothing is written.
    ``check``: write nothing, report what would change and what would be
    lost, never refuse (a draft that cannot go down is still refused).
    """
    if check:
        return plan(paths, to)
    _check_arguments(paths, to)
    places = list(paths) if paths else [bundled_records_dir()]
    with records_lock(places, what="migrate", say=False) as notes:
        report = plan(paths, to)
        report.notes = notes
        if report.losses and not allow_loss:
            raise MigrationRefused(report)
        _write(report, journal_for(places))
    return report
