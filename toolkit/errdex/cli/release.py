"""``errdex release`` and ``errdex diff``: thin wrappers over :mod:`errdex.releases`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from errdex.cli._common import (
    PathType,
    echo,
    echo_text,
    format_option,
    no_dash,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.errors import ErrdexError

DEFAULT_RECORDS = "records"
#: diff's exit status when it cannot compare (0: same, 1: they differ), as diff(1).
DIFF_TROUBLE = 2


def _one_folder(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> Path:
    """``--records`` for release: the one folder it cuts (repeatable as everywhere, but given once here)."""
    if len(value) > 1:
        raise click.BadParameter("release cuts one records folder; give --records once", ctx, param)
    return Path(no_dash(ctx, param, value[0]) if value else DEFAULT_RECORDS)


class _DiffTrouble(click.ClickException):
    """A diff that could not compare (exit status 2, as diff(1)), not a difference found."""

    exit_code = DIFF_TROUBLE


@click.command("release")
@click.option("--version", "version", default=None, metavar="TIME",
              help="The release's version, an RFC 3339 time (default: $SOURCE_DATE_EPOCH, else now).")
@records_option(default=f"./{DEFAULT_RECORDS}", what="the records folder (one envelope per .json file)",
                callback=_one_folder)
@click.option("--out", type=PathType(file_okay=False, path_type=Path), callback=no_dash, default=None,
              help="Where to write the bundle and a copy of the manifest (default: build/releases/VERSION).")
@click.option("--changelog", type=PathType(dir_okay=False, path_type=Path), callback=no_dash,
              default=Path("CHANGELOG.md"),
              show_default=True, help="The changelog to put this release's entry in.")
@click.option("--check", is_flag=True, help="Say what the release would hold; write nothing.")
@click.option("--allow-drafts", is_flag=True,
              help="Release drafts (status draft: harvested, prose not written yet) too; without it they refuse.")
@quiet_option
def release_command(version: str | None, records: Path, out: Path | None, changelog: Path, check: bool,
                    allow_drafts: bool, quiet: bool) -> int:
    """Cut a dataset release: stamp, hash, manifest, reproducible bundle and changelog entry.

    A folder that holds a draft is refused (the error names its file) unless
    --allow-drafts is given.

    \b
    Example:
      errdex release --check
      errdex release --version 2026-12-01T00:00:00Z
      SOURCE_DATE_EPOCH=1764547200 errdex release --records records --out dist
    """
    # start-up: `errdex --help` imports every command module
    from errdex.releases import cut_release

    report = cut_release(records, version=version, out=out, changelog=None if check else changelog, check=check,
                         allow_drafts=allow_drafts)
    for note in report.notes:
        stderr_line(f"errdex: {note}")
    counts = report.manifest["counts"]
    for record in report.added:
        echo_text(f"added      {record['slug']} ({record['id']})\n")
    for record, fields in report.changed:
        echo_text(f"changed    {record['slug']} ({record['id']}): {', '.join(fields)}\n")
    for record in report.withdrawn:
        echo_text(f"withdrawn  {record['slug']} ({record['id']})\n")
    for record in report.superseded:
        echo_text(f"superseded {record['slug']} ({record['id']}) by {record.get('supersededBy')}\n")
    if not quiet:
        where = "" if check else f"; bundle {report.bundle} (sha256 {report.manifest['bundle']['sha256'][:16]}…)"
        stderr_line(f"{'would release' if check else 'released'} {report.version}: {counts['records']} records, "
                    f"{counts['added']} added, {counts['changed']} changed, {counts['unchanged']} unchanged{where}")
    return 0


@click.command("diff")
@click.argument("old")
@click.argument("new")
@format_option("text", "json")
@quiet_option
def diff_command(old: str, new: str, fmt: str, quiet: bool) -> int:
    """Compare two releases, bundles or folders record by record and field by field.

    Exit status, as diff(1): 0 when they are the same, 1 when they differ, 2
    when a side cannot be read or is not valid.

    \b
    Example:
      errdex diff build/releases/2026-11-30T000000Z/manifest.json records/
      errdex diff old.jsonl.gz new.jsonl.gz --format json
    """
    from errdex.releases import diff  # start-up: as above

    try:
        result = diff(old, new)
    except ErrdexError as exc:
        raise _DiffTrouble(str(exc)) from exc
    if fmt == "json":
        echo(json.dumps(result.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        for record in result.added:
            echo_text(f"+ {record['slug']} ({record['id']})\n")
        for record in result.removed:
            echo_text(f"- {record['slug']} ({record['id']})\n")
        for record, fields in result.changed:
            echo_text(f"~ {record['slug']} ({record['id']})\n")
            for name, before, after in fields:
                echo_text(f"    {name}: {_short(before)} -> {_short(after)}\n")
        if not quiet:
            stderr_line(f"{len(result.added)} added, {len(result.removed)} removed, {len(result.changed)} changed, "
                        f"{result.unchanged} unchanged")
    return 0 if result.same else 1


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
