"""``errdex harvest``: a thin wrapper over :func:`errdex.harvest.run.harvest`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from errdex.cli._common import PathType, echo, echo_line, format_option, progress, quiet_option, stderr_line
from errdex.harvest.report import HarvestReport
from errdex.harvest.run import harvest

__all__ = ["harvest_command"]


def _lines(report: HarvestReport) -> list[str]:
    """One line per record that is (or would be) written, and per site that is gone."""
    verb_new, verb_updated = ("would add", "would update") if report.check else ("added", "updated")
    lines = [f"{verb_new:<12} {key} {path or ''}".rstrip() for key, path in report.new]
    lines += [f"{verb_updated:<12} {key} {path or ''}: {', '.join(fields)}" for key, path, fields in report.updated]
    lines += [f"{'gone':<12} {key} {path}:{line} (site no longer found; kept)" for key, path, line in report.gone]
    return lines


@click.command("harvest")
@click.argument("source", type=PathType(path_type=Path))
@click.option("--repo", required=True, metavar="OWNER/NAME", help="The GitHub repository SOURCE is (for ids and URLs).")
@click.option("--rev", metavar="REV", help="Read the git repository SOURCE (bare or not) at this revision.")
@click.option("--sha", metavar="SHA", help="The commit a folder holds (needed outside a git work tree).")
@click.option("--path-prefix", metavar="DIR",
              help="SOURCE's own path inside the repository, put in front of every file's path (a folder).")
@click.option("--out", type=PathType(file_okay=False, path_type=Path),
              help="Records folder to merge into (default: the project's records/).")
@click.option("--bundle", type=PathType(dir_okay=False, path_type=Path),
              help="Write a JSONL bundle instead (merged with the bundle when it exists).")
@click.option("--log-levels", metavar="LIST",
              help="Log levels harvested: a comma-separated list, each keeping itself and worse, or 'all' "
                   "(default: warning).")
@click.option("--config", "config", type=PathType(dir_okay=False, path_type=Path),
              help="TOML file with the project's sinks and settings (default: SOURCE/pyproject.toml's "
                   "[tool.errdex.harvest]).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files or folders matching GLOB (repeatable).")
@click.option("--include-tests", is_flag=True, help="Harvest test code too (skipped by default).")
@click.option("--jobs", type=click.IntRange(min=1), metavar="N", help="Find sites in N processes.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the harvest would change something.")
@format_option("text", "json")
@quiet_option
def harvest_command(source: Path, repo: str, rev: str | None, sha: str | None, path_prefix: str | None,
                    out: Path | None,
                    bundle: Path | None, log_levels: str | None, config: Path | None, exclude: tuple[str, ...],
                    include_tests: bool, jobs: int | None, check: bool, fmt: str, quiet: bool) -> int:
    """Draft records from a codebase's own throw and log sites.

    Every throw or raise of an error built with a message, and every log call
    at the levels asked, becomes a draft record: its message and pattern, the
    source excerpt, the URL at the commit, and a trigger draft taken from the
    code. Harvesting again keeps what contributors wrote (prose, status) and
    refreshes only the mechanical fields; nothing is deleted. Exit status:
    0, or 1 with --check when something would change.

    \b
    Example:
      errdex harvest ../openssh.git --repo openssh/openssh-portable --rev V_6_6_P1 --config sshd.toml
      errdex harvest src/ --repo owner/name --sha 0123abcd... --bundle drafts.jsonl
      errdex harvest copy/ --repo owner/name --sha 0123abcd... --path-prefix pkg/src
      errdex harvest . --repo owner/name --check
    """
    report = harvest(source, repo=repo, rev=rev, sha=sha, out=out, bundle=bundle, log_levels=log_levels,
                     config=config, exclude=exclude, include_tests=include_tests, jobs=jobs, check=check,
                     path_prefix=path_prefix, progress=progress("harvesting", quiet=quiet))
    if fmt == "json":
        echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        for line in _lines(report):
            echo_line(line)
    if not quiet:
        for line in report.summary_lines():
            stderr_line(line)
    return 1 if check and report.changed else 0
