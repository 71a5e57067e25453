"""``errdex fmt``: a thin wrapper over :func:`errdex.fmt`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from errdex.checks.registry import problem_label
from errdex.cli._common import (
    PATH_TEXT,
    echo,
    echo_line,
    format_option,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.errors import UsageError
from errdex.records import canonical
from errdex.records.canonical import FmtResult


def fmt(paths: list[str | Path] | None = None, *, check: bool = False) -> FmtResult:
    """:func:`errdex.records.canonical.fmt`, with each file it refuses named by the check code and name
    ``validate`` reports for it (``EDX004 duplicate-key: ...``): the record layer knows problem kinds, the
    check registry their codes."""
    return canonical.fmt(paths, check=check, label=problem_label)


format_records = fmt  # the name the command uses: its --format option is called fmt there, as everywhere


def _fmt_stdin(targets: list[str], *, check: bool, fmt: str, quiet: bool) -> int:
    """``fmt -``: the canonical form of stdin on stdout; with --check, only whether it differs."""
    if targets != ["-"]:
        raise UsageError("fmt - formats stdin to stdout and takes no other path")
    result = canonical.fmt_text(sys.stdin.buffer.read(), label=problem_label)
    if fmt == "json":
        echo(json.dumps({"changed": ["<stdin>"] if result.changed else [],
                         "unchanged": ["<stdin>"] if result.text is not None and not result.changed else [],
                         "failed": [{"path": "<stdin>", "line": line, "column": column, "message": message}
                                    for line, column, message in result.failed]}, indent=2) + "\n")
    elif result.text is not None and not check:
        echo(result.text)
    for line, column, message in result.failed:
        stderr_line(f"<stdin>:{line}:{column}: cannot format: {message}")
    if check and result.changed and not quiet and fmt == "text":
        stderr_line("would reformat <stdin>")
    return 1 if result.failed or (check and result.changed) else 0


@click.command("fmt")
@click.argument("paths", nargs=-1, metavar="[PATH ...]", type=PATH_TEXT)
@records_option
@click.option("--check", is_flag=True, help="Change nothing; exit 1 when a file is not in canonical form.")
@format_option("text", "json")
@quiet_option
def fmt_command(paths: tuple[str, ...], records: tuple[str, ...], check: bool, fmt: str, quiet: bool) -> int:
    """Rewrite record files in canonical form (2-space JSON, keys in schema order).

    Files that validate reports a parse finding for (invalid JSON, a
    duplicate key, NaN, 1e999, a lone surrogate, ...) are reported and left
    untouched: formatting them would change data. Files are replaced
    atomically (a temporary file, then a rename). PATH - reads stdin and
    writes the canonical form to stdout (--check: exit 1 when it differs).

    \b
    Example:
      errdex fmt records/
      errdex fmt --check
      cat record.json | errdex fmt - > canonical.json
    """
    targets = [*paths, *records]
    if "-" in targets:
        return _fmt_stdin(targets, check=check, fmt=fmt, quiet=quiet)
    result = format_records(list(targets) or None, check=check)
    verb = "would reformat" if check else "reformatted"
    if fmt == "json":
        echo(json.dumps({"changed": result.changed, "unchanged": result.unchanged,
                         "failed": [{"path": path, "line": line, "column": column, "message": message}
                                    for path, line, column, message in result.failed]},
                        indent=2) + "\n")
    else:
        for path in result.changed:
            echo_line(f"{verb} {path}")
    for path, line, column, message in result.failed:
        stderr_line(f"{path}:{line}:{column}: cannot format: {message}")
    if not quiet and fmt == "text":
        stderr_line(f"{len(result.changed)} file(s) {verb}, {len(result.unchanged)} already canonical")
    return 1 if result.failed or (check and result.changed) else 0
