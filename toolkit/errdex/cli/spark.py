"""``errdex spark-match``: a thin wrapper over :func:`errdex.spark.match_files`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from errdex import spark
from errdex.cli._common import PATH_TEXT, PathType, echo, format_option, quiet_option, records_option, stderr_line
from errdex.errors import UsageError

_MISSING = ("errdex spark-match needs PySpark and Java 17: pip install 'errdex[spark]' "
            "(and a Java runtime, e.g. apt-get install openjdk-17-jre-headless)")


@click.command("spark-match")
@click.argument("inputs", nargs=-1, required=True, type=PATH_TEXT)
@click.option("--output", required=True, type=PathType(file_okay=False, path_type=Path),
              help="Folder to write Parquet to (must not exist yet).")
@click.option("--input-format", type=click.Choice(["text", "jsonl", "parquet"]), default="text", show_default=True,
              help="text: a line per row; jsonl / parquet: the line is in --column.")
@click.option("--column", default="message", show_default=True,
              help="The column holding the log line (for text: the name given to the line).")
@click.option("--master", default="local[2]", show_default=True,
              help="Spark master: local[N] (bound to 127.0.0.1), spark://HOST:PORT, yarn, k8s://...")
@click.option("--all-matches", is_flag=True, help="Every matching record per line, best first, not only the best.")
@click.option("--keep-unmatched", is_flag=True, help="Write the rows no record matches too.")
@click.option("--include-retired", is_flag=True, help="Also match withdrawn and superseded records.")
@click.option("-a", "--text", is_flag=True, help="Match a local input that starts with binary data as text too.")
@records_option
@format_option("text", "json")
@quiet_option
def spark_match_command(inputs: tuple[str, ...], output: Path, input_format: str, column: str, master: str,
                        all_matches: bool, keep_unmatched: bool, include_retired: bool, text: bool,
                        records: tuple[str, ...], fmt: str, quiet: bool) -> int:
    """Match log files on Apache Spark with errdex's engine, writing Parquet.

    Each row gets an ``errdex`` column: the best match (id, slug, repo,
    errorClass, severity, status, rank, score, groups, span), exactly what
    ``errdex match`` finds in that line. INPUT: files, folders or globs
    Spark can read (local paths, or hdfs://, s3a:// ... on a cluster).

    \b
    Example:
      errdex spark-match logs/*.log --output matched.parquet
      errdex spark-match s3a://lake/app/2026-12-01/ --input-format jsonl --column msg --output out/
    """
    try:
        result = spark.match_files(list(inputs), output, input_format=input_format, column=column, master=master,
                                   records=list(records) or None, include_retired=include_retired,
                                   all_matches=all_matches, keep_unmatched=keep_unmatched, text=text)
    except ImportError as exc:
        raise UsageError(f"{_MISSING} ({exc})") from exc
    if fmt == "json":
        echo(json.dumps({"output": str(result.output), "rows": result.rows}) + "\n")
    else:
        echo(f"{result.output}\n")
        if not quiet:
            stderr_line(f"wrote {result.rows} row(s)")
    return 0
