"""Log files matched on Spark into Parquet (``errdex spark-match``), and a local session for trying it.

Text inputs are read a line per ``\\n`` (as ``errdex match`` reads them: a
carriage return ending a line is dropped), JSON lines and Parquet by a
column. The output holds the input's columns (for text: ``file`` and the
line), the original bytes of the lines that were not valid UTF-8 (the column
named after the line's with ``_bytes``; the line itself holds U+FFFD in their
place, so any Parquet reader takes it), and the ``errdex`` column of
:func:`errdex.spark.match`.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.errors import AnalysisException, PySparkRuntimeError
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from errdex._files import alive, crash_point
from errdex._stopping import stop_on_signals
from errdex.errors import InputError, Stopped, UsageError
from errdex.spark.frames import match

__all__ = ["FORMATS", "LOCAL_CONF", "LOOPBACK_CONF", "SparkMatchResult", "local_session", "match_files", "read_inputs"]

FORMATS = ("text", "jsonl", "parquet")
#: What the line's column of a text input may be named: a plain identifier, which Spark never reads as a path.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Settings of a local session (``local[N]``): bound to the loopback interface, no web UI.
LOOPBACK_CONF: dict[str, str] = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
}
#: Settings of every session :func:`local_session` starts.
LOCAL_CONF: dict[str, str] = {
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.python.worker.reuse": "true",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "10000",
    # a task per 32 MB of input, not 128: one file of a few hundred MB keeps every local core busy
    "spark.sql.files.maxPartitionBytes": str(32 << 20),
}


def local_session(master: str = "local[2]", *, app_name: str = "errdex", conf: dict[str, str] | None = None) -> Any:
    """The active Spark session, or a new one on ``master`` with :data:`LOCAL_CONF`; a local master
    (``local[N]``) also gets :data:`LOOPBACK_CONF` and workers that run this Python."""
    settings = dict(LOCAL_CONF)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # never another interface, not even to look it up
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        settings |= LOOPBACK_CONF
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in {**settings, **(conf or {})}.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except PySparkRuntimeError as exc:  # no Java, or one Spark cannot start (the message says which)
        raise UsageError(f"cannot start Spark on {master}: {str(exc).splitlines()[0]} "
                         "(Spark needs a Java 17 runtime: apt-get install openjdk-17-jre-headless)") from exc
    session.sparkContext.setLogLevel("ERROR")
    return session


def read_inputs(spark: Any, inputs: Sequence[str | Path], *, input_format: str = "text",
                column: str = "message", text: bool = False) -> DataFrame:
    """The inputs as one DataFrame; for text, columns ``file`` and ``column`` (the line). A local text input
    whose start is binary data (``errdex match``'s rule: :func:`errdex.match.readers.binary_reason`) is refused,
    unless ``text``: Spark would read a database or a login record as lines."""
    paths = [str(p) for p in inputs]
    if not paths:
        raise UsageError("no input given")
    if input_format not in FORMATS:
        raise UsageError(f"unknown input format {input_format!r} (one of: {', '.join(FORMATS)})")
    if input_format == "text" and (not _NAME.match(column) or column == "file"):
        raise UsageError(f"the line's column cannot be named {column!r}: a name of letters, digits and _, "
                         "other than 'file' (the file's column)")
    local = [p for p in paths if "://" not in p]
    missing = [p for p in local if not Path(p).exists()]
    if missing:
        raise InputError(f"{_shown(missing[0])}: no such file or folder")
    for path in local:
        unnamed = next(_not_utf8_names(Path(path)), None)
        if unnamed is not None:  # Java cannot name it: a file given was a crash, a file in a folder lost silently
            raise InputError(f"{_shown(unnamed)}: the file name is not UTF-8, and Spark cannot open such a file "
                             "(rename it, or leave it out of the inputs)")
    if input_format == "text" and not text:
        for path in local:
            _refuse_binary_files(Path(path))
    try:
        if input_format == "text":
            lines = spark.read.option("lineSep", "\n").text(paths)
            line = F.rtrim("value", F.lit("\r"))  # carriage returns ending a line, as the reader drops (no regex)
            return lines.select(F.input_file_name().alias("file"), line.alias(column))
        if input_format == "jsonl":
            return spark.read.json(paths)
        return spark.read.parquet(*paths)
    except AnalysisException as exc:
        raise InputError(f"cannot read the inputs: {str(exc).splitlines()[0]}") from exc


def _shown(path: str) -> str:
    """A path as a message shows it: bytes that are not UTF-8 as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


#: How Spark opens a compressed text file, by its name's ending: sniffed after the same decompression.
_OPENERS = {".gz": "gzip", ".bz2": "bz2"}


def _refuse_binary_files(path: Path) -> None:
    """InputError naming the first file of ``path`` (a file, or the files Spark reads in a folder: not those
    named ``_...`` or ``.…``) whose start is binary data."""
    import importlib

    from errdex.match.readers import SNIFF_BYTES, binary_reason

    files = [path] if not path.is_dir() else sorted(
        entry for entry in path.iterdir() if entry.is_file() and not entry.name.startswith(("_", ".")))
    for file in files:
        opener = _OPENERS.get(file.suffix.lower())
        try:
            with (importlib.import_module(opener).open(file, "rb") if opener else file.open("rb")) as handle:
                head = handle.read(SNIFF_BYTES)
        except (OSError, EOFError):
            continue  # Spark says what it cannot read
        reason = binary_reason(head)
        if reason is not None:
            raise InputError(f"{_shown(str(file))}: binary data ({reason} in its first {SNIFF_BYTES // 1024} KiB), "
                             "not a log; leave it out of the inputs (--text matches it as text)")


def _not_utf8_names(path: Path) -> Iterator[str]:
    """The paths of ``path`` and (for a folder) of the files below it whose names are not UTF-8."""
    for found in (str(path), *(os.path.join(top, name) for top, _dirs, names in os.walk(path) for name in names)):
        try:
            found.encode("utf-8")
        except UnicodeEncodeError:
            yield found


@dataclass(frozen=True)
class SparkMatchResult:
    output: Path
    rows: int


def match_files(inputs: Sequence[str | Path], output: str | Path, *, input_format: str = "text",
                column: str = "message", master: str = "local[2]", records: Sequence[str | Path] | None = None,
                include_retired: bool = False, all_matches: bool = False, keep_unmatched: bool = False,
                spark: Any = None, text: bool = False) -> SparkMatchResult:
    """Match the inputs on Spark and write Parquet to ``output`` (a folder that must not exist yet): the rows
    that matched (every row with ``keep_unmatched``), with their ``errdex`` column.

    SIGTERM, SIGHUP and SIGINT unwind the run (:mod:`errdex._stopping`): the output being written is removed,
    and the Java process of a session this call started is ended at once, before Python exits (left to notice
    on its own, it printed pages of stack traces about the connection it lost)."""
    with stop_on_signals():
        own = spark is None
        spark = spark or local_session(master)
        try:
            return _match_files(spark, inputs, output, input_format=input_format, column=column, records=records,
                                include_retired=include_retired, all_matches=all_matches,
                                keep_unmatched=keep_unmatched, text=text)
        except (Stopped, KeyboardInterrupt):
            if own:
                _end_java(spark)
            raise


def _end_java(spark: Any) -> None:
    """Kill the Java process that runs this session (it dies without a word, where a lost connection makes it
    print stack traces); PySpark's server for accumulator updates, a thread of this process, is told to take
    the lost connection in silence too (it printed a Python traceback of its own)."""
    context = spark.sparkContext
    server = getattr(context, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, address: None
    proc = getattr(getattr(context, "_gateway", None), "proc", None)
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


def _match_files(spark: Any, inputs: Sequence[str | Path], output: str | Path, *, input_format: str, column: str,
                 records: Sequence[str | Path] | None, include_retired: bool, all_matches: bool,
                 keep_unmatched: bool, text: bool) -> SparkMatchResult:
    df = read_inputs(spark, inputs, input_format=input_format, column=column, text=text)
    try:
        found = match(df, column, records=records or None, include_retired=include_retired,
                      all_matches=all_matches, matched_only=not keep_unmatched, bytes_column=f"{column}_bytes")
    except AnalysisException as exc:  # a column name Spark cannot resolve (a backtick, a dot ...)
        raise UsageError(f"Spark cannot use the column {column!r}: {str(exc).splitlines()[0]}") from exc
    with _staged(output) as folder:
        try:
            found.write.mode("errorifexists").parquet(folder)
        except AnalysisException as exc:
            raise UsageError(f"cannot write {output}: {str(exc).splitlines()[0]}") from exc
        rows = spark.read.parquet(folder).count()
    return SparkMatchResult(Path(output), rows)


@contextmanager
def _staged(output: str | Path) -> Iterator[str]:
    """Where Spark writes ``output``: for a local folder, ``.NAME.PID.tmp`` beside it, renamed to it once whole
    (a run killed while writing leaves no half output under the name; the next run removes what it left); a
    remote one (``s3a://`` ...) is written in place, marked whole by Spark's ``_SUCCESS``."""
    text = str(output)
    if "://" in text:
        yield text
        return
    target = Path(text)
    if target.exists() or target.is_symlink():
        raise UsageError(f"cannot write {text}: it exists already (the output folder must not exist yet)")
    parent = target.parent
    for entry in parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        pid = entry.name[len(target.name) + 2:-len(".tmp")]
        if pid.isdigit() and not alive(int(pid)) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
    staging = parent / f".{target.name}.{os.getpid()}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        yield str(staging)
        crash_point("spark:written")
        os.rename(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
