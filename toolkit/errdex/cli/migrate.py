"""``errdex migrate``: a thin wrapper over :func:`errdex.records.migrate.migrate`."""

from __future__ import annotations

import click

from errdex.cli._common import PATH_TEXT, echo_line, quiet_option, records_option, stderr_line
from errdex.records.migrate import (
    FileMigration,
    MigrationRefused,
    MigrationReport,
    migrate,
)


def _versions(file: FileMigration) -> str:
    return ", ".join(f"v{version}" for version in file.from_versions)


def _loss_lines(file: FileMigration, verb: str) -> None:
    for record_id, loss in file.losses:
        echo_line(f"{file.path}: record {record_id}: {verb} {loss}")


def _summary(report: MigrationReport, allow_loss: bool) -> str:
    changed, unchanged = len(report.changed), len(report.unchanged)
    records = len({(path, record_id) for path, record_id, _ in report.losses})
    if report.applied:
        line = f"{changed} file(s) migrated to version {report.to}, {unchanged} already at version {report.to}"
        return line + (f"; data dropped from {records} record(s)" if records else "")
    line = f"{changed} file(s) would be migrated to version {report.to}, {unchanged} already at version {report.to}"
    if records:
        line += f"; {records} record(s) would lose data" + ("" if allow_loss else " (needs --allow-loss)")
    return line


@click.command("migrate")
@click.argument("paths", nargs=-1, metavar="[PATH ...]", type=PATH_TEXT)
@records_option
@click.option("--to", "to", type=int, required=True, metavar="N",
              help="Format version to rewrite every record at (2, 3 or 4).")
@click.option("--allow-loss", is_flag=True, help="Go down a version even when that drops data (scenarios, a status).")
@click.option("--check", is_flag=True, help="Change nothing; exit 1 when a file would be migrated.")
@quiet_option
def migrate_command(paths: tuple[str, ...], records: tuple[str, ...], to: int, allow_loss: bool, check: bool,
                    quiet: bool) -> int:
    """Rewrite record files in place at format version N, up or down.

    PATH is a record file, a folder of records or a JSONL bundle (.gz too);
    without one, the bundled dataset is migrated. Going up to 3 adds an empty
    scenarios list; going up to 4 changes only schemaVersion. Going down to 2
    removes scenarios, status, statusReason and supersededBy; when one of them
    holds data, every loss is listed and nothing is written unless --allow-loss
    is given. Going down to 3 refuses a draft (status draft, which version 3
    cannot hold), even with --allow-loss: document it or move it out first.

    Files already at version N are left untouched; the others are replaced
    atomically, in canonical form. Nothing is written when a record is
    unreadable or invalid. Exit status: 0 on success, 1 when refused, on bad
    data, or with --check when a file would change, 2 for a usage error.

    \b
    Example:
      errdex migrate --to 4 records/
      errdex migrate --to 2 --check export/records.jsonl
      errdex migrate --to 2 --allow-loss export/
    """
    try:
        report = migrate([*paths, *records] or None, to, allow_loss=allow_loss, check=check)
    except MigrationRefused as exc:
        for file in exc.report.files:
            _loss_lines(file, "would drop")
        raise
    for note in report.notes:
        stderr_line(f"errdex: {note}")
    for file in report.changed:
        verb = "migrated" if report.applied else "would migrate"
        echo_line(f"{verb} {file.path}: {_versions(file)} -> v{report.to}")
        _loss_lines(file, "drops" if report.applied else "would drop")
    if not quiet:
        stderr_line(_summary(report, allow_loss))
    return 1 if check and report.changed else 0
