"""``errdex schema``: print the JSON Schema, or keep ``schema/`` in step with the models."""

from __future__ import annotations

import json
from pathlib import Path

import click

from errdex.cli._common import PathType, echo, no_dash, quiet_option, stderr_line
from errdex.errors import UsageError
from errdex.records.schema import (
    SUPPORTED_VERSIONS,
    envelope_schema,
    record_schema,
    sync_schema_files,
)


@click.command("schema")
@click.option("--version", "version", type=int, default=SUPPORTED_VERSIONS[-1], show_default=True,
              help="Format version to print.")
@click.option("--kind", type=click.Choice(["envelope", "record"]), default="envelope", show_default=True,
              help="Print the schema of an envelope or of a bare record.")
@click.option("--write", "write_dir", type=PathType(file_okay=False, path_type=Path), callback=no_dash,
              help="Regenerate every schema file in this folder from the models.")
@click.option("--check", "check_dir", type=PathType(file_okay=False, path_type=Path), callback=no_dash,
              help="Exit 1 when a schema file in this folder differs from the models.")
@quiet_option
def schema_command(version: int, kind: str, write_dir: Path | None, check_dir: Path | None, quiet: bool) -> int:
    """Print the JSON Schema (draft 2020-12) of the record format, generated from the models.

    \b
    Example:
      errdex schema --kind record
      errdex schema --check schema      # in CI: is schema/ up to date?
      errdex schema --write schema      # after changing a model
    """
    if write_dir or check_dir:
        folder = write_dir or check_dir
        assert folder is not None
        stale = sync_schema_files(folder, write=write_dir is not None)
        for name in stale:
            if not quiet:
                stderr_line(f"{'wrote' if write_dir else 'stale'}: {folder / name}")
        return 1 if stale and check_dir else 0
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(map(str, SUPPORTED_VERSIONS))
        raise UsageError(f"schema version {version} is not supported (supported: {supported})")
    schema = envelope_schema(version) if kind == "envelope" else record_schema(version)
    echo(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    return 0
