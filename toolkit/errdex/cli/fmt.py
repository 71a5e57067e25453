"""``errdex fmt``: a thin wrapper over :func:`errdex.fmt`."""

from __future__ import annotations

import json

import click

from errdex.cli._common import echo, format_option, quiet_option, records_option, stderr_line
from errdex.records import canonical


@click.command("fmt")
@click.argument("paths", nargs=-1, metavar="[PATH ...]")
@records_option
@click.option("--check", is_flag=True, help="Change nothing; exit 1 when a file is not in canonical form.")
@format_option("text", "json")
@quiet_option
def fmt_command(paths: tuple[str, ...], records: tuple[str, ...], check: bool, fmt: str, quiet: bool) -> int:
    """Rewrite record files in canonical form (2-space JSON, keys in schema order).

    Files that cannot be parsed are reported and left untouched. Files are
    replaced atomically (a temporary file, then a rename).

    \b
    Example:
      errdex fmt records/
      errdex fmt --check
    """
    result = canonical.fmt([*paths, *records] or None, check=check)
    verb = "would reformat" if check else "reformatted"
    if fmt == "json":
        echo(json.dumps({"changed": result.changed, "unchanged": result.unchanged,
                         "failed": [{"path": p, "line": l, "column": c, "message": m} for p, l, c, m in result.failed]},
                        indent=2) + "\n")
    else:
        for path in result.changed:
            echo(f"{verb} {path}\n")
    for path, line, column, message in result.failed:
        stderr_line(f"{path}:{line}:{column}: cannot format: {message}")
    if not quiet and fmt == "text":
        stderr_line(f"{len(result.changed)} file(s) {verb}, {len(result.unchanged)} already canonical")
    return 1 if result.failed or (check and result.changed) else 0
