"""``errdex sync``: a thin wrapper over :func:`errdex.sync.sync`, with :func:`errdex.drift.drift` finding what
changed."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import click

from errdex.cli._common import PathType, busy, echo, echo_line, format_option, quiet_option, records_option, stderr_line
from errdex.errors import UsageError
from errdex.sync import sync
from errdex.sync.run import DriftFunction

__all__ = ["sync_command"]


def drift_function() -> DriftFunction:
    """``errdex.drift.drift``, looked up by name when the command runs (drift and sync are built apart)."""
    for name in ("errdex.drift", "errdex.drift.run"):
        try:
            found: DriftFunction | None = getattr(importlib.import_module(name), "drift", None)
        except ImportError:
            found = None
        if callable(found):
            return found
    raise UsageError("errdex sync needs errdex drift, which this installation does not have")


@click.command("sync")
@click.option("--source", required=True, type=PathType(path_type=Path), metavar="SOURCE",
              help="The code: a folder, or a git repository read at --rev (as for harvest).")
@click.option("--rev", metavar="REV", help="The commit to bring the records to (a git repository's revision).")
@records_option
@click.option("--repo", metavar="OWNER/NAME", help="The repository SOURCE is, when its records do not tell.")
@click.option("--config", type=PathType(dir_okay=False, path_type=Path),
              help="TOML file with the project's harvest settings (sinks, levels).")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the sync would change something.")
@click.option("--accept-reworded", is_flag=True,
              help="Take a reworded record's new errorMessage and messagePattern (and its new place).")
@click.option("--retire-vanished", is_flag=True,
              help="Withdraw a record whose message no statement writes any more, naming the commit.")
@click.option("--add-new", is_flag=True, help="Add the sites no record covers as drafts (into the first --records).")
@format_option("text", "json")
@quiet_option
def sync_command(source: Path, rev: str | None, records: tuple[str, ...], repo: str | None, config: Path | None,
                 check: bool, accept_reworded: bool, retire_vanished: bool, add_new: bool, fmt: str,
                 quiet: bool) -> int:
    """Bring records to a new commit of their code.

    Runs drift, then rewrites what is mechanical: a moved record's file,
    line, excerpt, URL and commit. A reworded record's message, a vanished
    record's status and new sites change only with their flag. Prose is
    never touched. All files change together or none does. Exit status: 0,
    or 1 with --check when something would change.

    \b
    Example:
      errdex sync --source ../openssh.git --rev V_7_4_P1 --records drafts/ --check
      errdex sync --source ../openssh.git --rev V_7_4_P1 --records drafts/ --accept-reworded
    """
    with busy("syncing", quiet=quiet):
        report = sync(source, drift=drift_function(), rev=rev, records=records, repo=repo, config=config,
                      check=check, accept_reworded=accept_reworded, retire_vanished=retire_vanished, add_new=add_new)
    if fmt == "json":
        echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        for line in report.lines():
            echo_line(line)
    if not quiet:
        for line in report.summary_lines():
            stderr_line(line)
    return 1 if check and report.changed else 0
