"""``errdex drift``: a thin wrapper over :func:`errdex.drift.run.drift`."""

from __future__ import annotations

from pathlib import Path

import click

from errdex.cli._common import PathType, busy, echo, format_option, quiet_option, records_option
from errdex.drift.report import render
from errdex.drift.run import drift

__all__ = ["drift_command"]


@click.command("drift")
@click.option("--source", required=True, type=PathType(path_type=Path), metavar="SOURCE",
              help="The code: a git repository (bare or not), or a folder with --sha, as harvest reads it.")
@click.option("--rev", metavar="REV", help="The commit to follow the records to (a git repository; default HEAD).")
@click.option("--sha", metavar="SHA", help="The commit a folder holds (needed outside a git work tree).")
@records_option
@click.option("--repo", metavar="OWNER/NAME",
              help="Follow this repository's records (default: those whose analyzedSha is a commit of SOURCE).")
@click.option("--config", "config", type=PathType(dir_okay=False, path_type=Path),
              help="TOML file with the project's harvest sinks (default: SOURCE/pyproject.toml's).")
@format_option("text", "json", "github")
@quiet_option
def drift_command(source: Path, rev: str | None, sha: str | None, records: tuple[str, ...], repo: str | None,
                  config: Path | None, fmt: str, quiet: bool) -> int:
    """Say where each record's statement is at a new commit.

    Every record of the repository is followed from its own commit
    (analyzedSha) to REV by the git diff, the statement's message and its
    fingerprint (the call without its message, and the enclosing function),
    and classified: unchanged, moved, reworded or vanished. Sites no record
    covers are listed as new when the repository was harvested. Exit status:
    0 when everything is unchanged, 1 otherwise, 2 on a usage error.

    \b
    Example:
      errdex drift --source ../openssh.git --rev V_7_4_P1 --records ssh.jsonl --config sshd.toml
      errdex drift --source . --format github
    """
    with busy("following the records", quiet=quiet):
        report = drift(source, rev=rev, sha=sha, records=records, repo=repo, config=config)
    echo(render(report, fmt))
    return 0 if report.clean else 1
