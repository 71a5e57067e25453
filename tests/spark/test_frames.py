"""errdex.spark.match on local[2] gives, line for line, what ``errdex match --format jsonl`` gives."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from errdex.errors import InputError, UsageError
from tests.loghub import loghub_dir, require_loghub
from tests.spark.loghub_records import cli_lines, loghub_bundle, loghub_logs


def _spark_lines(spark: Any, logs: list[Path], records: list[str] | None) -> dict[str, list[dict[str, Any]]]:
    """The same, through Spark: the matched rows of each file in line order, shaped as the CLI's lines."""
    from pyspark.sql import functions as F

    from errdex.spark import match
    from errdex.spark.files import read_inputs

    df = read_inputs(spark, logs, column="line").withColumn("at", F.monotonically_increasing_id())
    rows = match(df, "line", records=records, all_matches=True).orderBy("file", "at").collect()
    found: dict[str, list[dict[str, Any]]] = {}
    number, previous = 0, None
    for row in rows:
        source = row["file"].removeprefix("file://")
        number = number + 1 if source == previous else 1
        previous = source
        if row["errdex"]:
            matches = [{"id": m["id"], "slug": m["slug"], "repo": m["repo"], "errorClass": m["errorClass"],
                        "severity": m["severity"], "score": m["score"], "span": m["span"], "groups": m["groups"]}
                       for m in row["errdex"]]
            assert [m["rank"] for m in row["errdex"]] == list(range(1, len(matches) + 1))
            found.setdefault(source, []).append({"file": source, "line": number, "text": row["line"],
                                                 "matches": matches})
    return found


def test_every_loghub_sample_matches_as_the_cli_does_with_their_templates(spark: Any, tmp_path: Path) -> None:
    logs = loghub_logs()
    bundle = str(loghub_bundle(require_loghub(), tmp_path / "loghub.jsonl"))
    expected = cli_lines(logs, [bundle])
    got = _spark_lines(spark, logs, [bundle])
    assert sorted(got) == sorted(str(p) for p in logs)
    for path in logs:
        assert got[str(path)] == expected[str(path)], path.name
    assert sum(len(v) for v in got.values()) > 0.9 * 2000 * len(logs)


def test_every_loghub_sample_matches_as_the_cli_does_with_the_bundled_dataset(spark: Any) -> None:
    logs = loghub_logs()
    expected = cli_lines(logs, [])
    got = _spark_lines(spark, logs, None)
    assert got == expected
    assert got  # the sshd records find OpenSSH's lines


def test_best_match_alone_and_the_errors_of_a_wrong_column(spark: Any) -> None:
    from errdex.spark import match

    line = "sshd[1]: error: kex_exchange_identification: Connection closed by remote host"
    df = spark.createDataFrame([(line,), ("nothing here",), (None,)], "message string")
    rows = match(df).collect()
    assert rows[0]["errdex"]["slug"] == "connection-closed-by-remote-host"
    assert rows[0]["errdex"]["rank"] == 1 and rows[0]["errdex"]["status"] == "active"
    assert rows[1]["errdex"] is None and rows[2]["errdex"] is None
    with pytest.raises(UsageError, match="no column 'msg'"):
        match(df, "msg")
    with pytest.raises(UsageError, match="not text"):
        match(spark.createDataFrame([(1,)], "message int"))


def test_spark_match_writes_parquet_of_the_matched_rows(spark: Any, tmp_path: Path) -> None:
    from errdex.spark import match_files

    log = tmp_path / "app.jsonl"
    log.write_text(json.dumps({"msg": "error: kex_exchange_identification: Connection closed by remote host"})
                   + "\n" + json.dumps({"msg": "all fine"}) + "\n")
    result = match_files([log], tmp_path / "out", input_format="jsonl", column="msg", spark=spark)
    assert result.rows == 1
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert [r["errdex"]["slug"] for r in rows] == ["connection-closed-by-remote-host"]
    with pytest.raises(UsageError, match="cannot write"):
        match_files([log], tmp_path / "out", input_format="jsonl", column="msg", spark=spark)


def test_text_with_carriage_returns_matched_only_or_every_row_as_the_cli(spark: Any, tmp_path: Path) -> None:
    from errdex.spark import match_files

    line = "sshd[1]: error: kex_exchange_identification: Connection closed by remote host"
    log = tmp_path / "crlf.log"
    log.write_bytes(f"{line}\r\nfine\r\n{line}\r\r\n\rmid\rline {line}\n".encode())
    expected = [(e["text"], [m["slug"] for m in e["matches"]]) for e in cli_lines([log], [])[str(log)]]
    for keep in (False, True):
        out = tmp_path / f"out-{keep}"
        result = match_files([log], out, spark=spark, all_matches=True, keep_unmatched=keep)
        rows = spark.read.parquet(str(out)).collect()
        assert result.rows == (4 if keep else 3)
        got = sorted((r["message"], [m["slug"] for m in r["errdex"]]) for r in rows if r["errdex"])
        assert got == sorted(expected)
        assert len(expected) == 3 and expected[0][0] == line


def test_loghub_is_where_the_tests_look() -> None:
    if loghub_dir() is None:
        pytest.skip("Loghub samples not found")
    assert loghub_logs()


def test_lines_that_are_not_utf8_are_written_so_duckdb_reads_them(spark: Any, tmp_path: Path) -> None:
    """Spark's text reader keeps a line's bytes in a string column; DuckDB refused the whole file. The line is
    written as ``errdex match`` reads it (U+FFFD for each bad sequence, which the span indexes) and the bytes
    beside it, in ``message_bytes``."""
    import duckdb

    from errdex.spark import match_files

    line = b"sshd[1]: \xff\xfe error: kex_exchange_identification: Connection closed by remote host"
    log = tmp_path / "bad.log"
    log.write_bytes(line + b"\nfine \xc3\x28\r\nplain\n")
    expected = cli_lines([log], [])[str(log)]
    out = tmp_path / "out"
    assert match_files([log], out, spark=spark, keep_unmatched=True).rows == 3
    rows = duckdb.sql(f"SELECT message, message_bytes, errdex.slug, errdex.span FROM '{out}/*.parquet' "
                      "ORDER BY message").fetchall()
    assert [r[:2] for r in rows] == [("fine \ufffd(", b"fine \xc3\x28"), ("plain", None),
                                     (line.decode("utf-8", "replace"), line)]
    assert [(rows[2][0], rows[2][2], rows[2][3])] == [(e["text"], e["matches"][0]["slug"], e["matches"][0]["span"])
                                                      for e in expected]
    malformed = tmp_path / "app.jsonl"  # a JSON line that is not UTF-8: Spark keeps it whole in _corrupt_record
    malformed.write_bytes(b'{"msg": "Connection closed by remote host \xff"}\n{"msg": "ok"}\n')
    match_files([malformed], tmp_path / "out-json", input_format="jsonl", column="msg", spark=spark,
                keep_unmatched=True)
    assert sorted(duckdb.sql(f"SELECT _corrupt_record, msg, msg_bytes FROM '{tmp_path}/out-json/*.parquet'")
                  .fetchall(), key=str) == [('{"msg": "Connection closed by remote host \ufffd"}', None, None),
                                            (None, "ok", None)]
    for name in ("file", "a b`c", "x.y", ""):
        with pytest.raises(UsageError, match="the line's column cannot be named"):
            match_files([log], tmp_path / "out-name", column=name, spark=spark)
    odd = tmp_path / "logs" / b"odd\xe9.log".decode("utf-8", "surrogateescape")  # Java cannot name it
    odd.parent.mkdir()
    odd.write_bytes(b"x\n")
    for given in (odd, odd.parent):
        with pytest.raises(InputError, match=r"odd\\xe9.log: the file name is not UTF-8"):
            match_files([given], tmp_path / "out-odd", spark=spark)


def test_a_run_killed_while_writing_leaves_no_output_and_the_next_removes_its_folder(tmp_path: Path) -> None:
    """Spark writes beside the output and the folder is renamed to it once whole: a kill before the rename leaves
    no half output under the name (which the next run refused as existing), and the next run removes it."""
    import subprocess
    import sys

    from tests.processes import errdex_env
    from tests.spark.conftest import require_spark

    require_spark()
    from errdex.spark.files import _staged  # here: PySpark may be missing (the skip above says so)

    script = ("import os, sys\nfrom errdex.spark.files import _staged\nwith _staged(sys.argv[1]) as folder:\n"
              "    os.mkdir(folder)\n    open(os.path.join(folder, 'part-0.parquet'), 'wb').write(b'PAR1')\n")
    killed = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out")], env=errdex_env(
        ERRDEX_CRASH_AT="spark:written"), capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    left = [p.name for p in tmp_path.iterdir()]
    assert left and all(name.startswith(".out.") and name.endswith(".tmp") for name in left)
    with _staged(tmp_path / "out") as folder:
        Path(folder).mkdir()
        (Path(folder) / "part-0.parquet").write_bytes(b"PAR1")
    assert [p.name for p in tmp_path.iterdir()] == ["out"] and os.listdir(tmp_path / "out") == ["part-0.parquet"]
    with pytest.raises(UsageError, match="exists already"), _staged(tmp_path / "out"):
        pass


def test_spark_match_stopped_by_sigterm_removes_its_output_and_its_java_in_one_line(tmp_path: Path) -> None:
    """SIGTERM while the output is written: the staged output is removed, the session's Java process ends at
    once and says nothing (it printed pages of stack traces about its lost connection), errdex says one line."""
    import subprocess
    import sys

    from tests.processes import errdex_env, wait_until
    from tests.spark.conftest import require_spark

    require_spark()
    log = tmp_path / "app.log"
    log.write_text("ERROR CreateOS returned invalid JSON.\n")
    marker = f"errdex-test-{os.getpid()}-{tmp_path.name}"  # finds this run's processes, whoever their parent
    stopped = subprocess.run([sys.executable, "-m", "errdex", "spark-match", str(log), "--output",
                              str(tmp_path / "out")], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                             env=errdex_env(ERRDEX_CRASH_AT="spark:written", ERRDEX_CRASH_SIGNAL="TERM",
                                            ERRDEX_TEST_MARK=marker))
    assert stopped.returncode == 143, stopped.stderr
    lines = stopped.stderr.splitlines()  # Spark's own start-up lines, then errdex's one
    assert lines[-1] == "errdex: stopped by SIGTERM; what the run had started is stopped and removed", lines
    assert not any(word in line for line in lines for word in ("Traceback", "Exception", "\tat ")), lines
    assert [p.name for p in tmp_path.iterdir()] == ["app.log"]

    def ours() -> list[str]:
        found = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and marker.encode() in (proc / "environ").read_bytes():
                    found.append(proc.name)
            except OSError:
                pass
        return found

    # the Java process is gone at once; PySpark's Python workers end when they find it gone
    wait_until(lambda: ours() == [], what="the run's Java process and Python workers to end", timeout=60)


def test_an_input_that_starts_with_binary_data_is_refused_unless_read_as_text(spark: Any, tmp_path: Path) -> None:
    """A login record (/var/log/btmp) or a database among the logs was read as lines; as ``errdex match``
    does, it is named and refused, and ``text=True`` (``--text``) reads it."""
    import gzip

    from errdex.spark import match_files

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "app.log").write_text("ERROR CreateOS returned invalid JSON.\n")
    login = b"\x06\x00\x00\x00ssh:notty\x00\x00" * 20
    (logs / "btmp").write_bytes(login + b"\nERROR CreateOS returned invalid JSON.\n")
    (logs / "_SUCCESS").write_bytes(b"\x00")  # a name Spark does not read is not sniffed
    packed = tmp_path / "db.gz"
    packed.write_bytes(gzip.compress(b"SQLite format 3\x00" + b"\x00" * 100))
    for given, named in ((logs, logs / "btmp"), (packed, packed)):
        with pytest.raises(InputError, match=rf"^{re.escape(str(named))}: binary data \(a NUL byte in its first 32 "
                                             r"KiB\), not a log; leave it out of the inputs \(--text"):
            match_files([given], tmp_path / "out", spark=spark)
        assert not (tmp_path / "out").exists()
    result = match_files([logs], tmp_path / "out", spark=spark, text=True)
    assert result.rows == 2
