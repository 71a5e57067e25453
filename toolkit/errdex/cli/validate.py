"""``errdex validate``: a thin wrapper over :func:`errdex.validate`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from errdex.checks.config import find_config, load_config
from errdex.checks.explain import explain, explanation
from errdex.checks.output import (
    FORMATS,
    render_check_list,
    render_findings,
    summary_line,
)
from errdex.checks.registry import registry
from errdex.checks.runner import validate
from errdex.cli._common import (
    PATH_TEXT,
    PathType,
    color_enabled,
    color_option,
    echo,
    echo_text,
    format_option,
    progress,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.drift.anchors import open_anchors
from errdex.errors import UsageError


@click.command("validate")
@click.argument("paths", nargs=-1, metavar="[PATH ...]", type=PATH_TEXT)
@records_option
@format_option(*FORMATS)
@click.option("--select", multiple=True, metavar="CHECKS",
              help="Run only these checks: codes or names, comma-separated, or 'all'.")
@click.option("--ignore", multiple=True, metavar="CHECKS", help="Skip these checks: codes or names, comma-separated.")
@click.option("--strict", is_flag=True, default=None, help="Count warnings as errors.")
@click.option("--config", "config_path", type=PathType(dir_okay=False, path_type=Path),
              help="Configuration file (errdex.toml or pyproject.toml).")
@click.option("--no-config", is_flag=True, help="Ignore errdex.toml and [tool.errdex].")
@click.option("--list-checks", is_flag=True, help="Print every check (code, name, severity, summary) and exit.")
@click.option("--explain", "explain_code", metavar="CHECK",
              help="Explain one check (code or name): what it looks for, why, a failing and a fixed example.")
@click.option("--source", "source_path", type=PathType(file_okay=False, path_type=Path),
              help="Also check each record against this code (a git repository, or a folder) at its commit.")
@click.option("--sha", metavar="SHA", help="The commit a --source folder holds (default: its work tree's HEAD).")
@click.option("--source-config", type=PathType(dir_okay=False, path_type=Path),
              help="A harvest configuration whose sinks --source counts as statements (as harvest --config).")
@color_option
@quiet_option
def validate_command(paths: tuple[str, ...], records: tuple[str, ...], fmt: str, select: tuple[str, ...],
                     ignore: tuple[str, ...], strict: bool | None, config_path: Path | None, no_config: bool,
                     list_checks: bool, explain_code: str | None, source_path: Path | None, sha: str | None,
                     source_config: Path | None, quiet: bool) -> int:
    """Check records against the schema and every semantic check, reporting all findings at once.

    PATH is a record file, a folder of records, a JSONL bundle or - for stdin;
    without one, the bundled dataset is checked. Exit status: 0 when no
    finding has error severity, 1 when one has, 2 for a usage error.

    Configuration (select, ignore, strict, per-record-ignores) is read from the
    nearest errdex.toml or [tool.errdex] table of a pyproject.toml.

    --source also compares each record with the code it quotes (EDX137-EDX139):
    a git repository is read at each record's analyzedSha, a folder at --sha
    (or its work tree's HEAD). A record whose commit or file is not there is
    skipped with a note on standard error.

    \b
    Example:
      errdex validate
      errdex validate records/paperclipai/paperclip --format json
      errdex validate --ignore message-in-source --format github records/
      errdex validate --explain EDX154
      errdex validate --source ../paperclip.git
      errdex validate --source openssh.git --source-config sshd-sinks.toml
      cat record.json | errdex validate -
    """
    if explain_code is not None:
        if fmt == "json":
            echo(json.dumps(explanation(explain_code).as_dict(), indent=2) + "\n")
        else:
            echo_text(explain(explain_code))
        return 0
    checks = registry()
    if list_checks:
        echo(render_check_list(checks, "json" if fmt == "json" else "text"))
        return 0
    if (sha is not None or source_config is not None) and source_path is None:
        raise UsageError(f"{'--sha' if sha is not None else '--source-config'} qualifies --source: give --source too")
    anchors = open_anchors(source_path, sha=sha, config=source_config) if source_path is not None else None
    config = load_config(None if no_config else (config_path or find_config(Path.cwd())))
    report = validate(
        [*paths, *records] or None,
        select=select or None,
        ignore=ignore or None,
        strict=strict,
        config=config,
        progress=progress("validating", quiet=quiet),
        source=anchors,
    )
    echo(render_findings(report, fmt, checks={c: checks[c] for c in report.checks}, color=color_enabled()))
    if not quiet:
        for note in report.notes:
            stderr_line(f"note: {note}")
    if not quiet and fmt in ("text", "github"):
        stderr_line(summary_line(report))
    return 0 if report.ok else 1
