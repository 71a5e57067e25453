"""errdex.duckdb.register: errdex_matches(line) in DuckDB gives what ``errdex match --format jsonl`` gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

import errdex.duckdb
from errdex.errors import UsageError
from tests.benchmarks.generate import generate, write_dataset
from tests.conftest import run_cli
from tests.loghub import require_loghub
from tests.spark.loghub_records import cli_lines, loghub_bundle, loghub_logs

_FIELDS = ("id", "slug", "repo", "errorClass", "severity", "score", "span", "groups")


def _duckdb_lines(con: duckdb.DuckDBPyConnection, logs: list[Path]) -> dict[str, list[dict[str, Any]]]:
    """The matched lines of each log, through SQL, shaped as the CLI's lines."""
    found: dict[str, list[dict[str, Any]]] = {}
    for log in logs:
        lines = log.read_bytes().decode("utf-8", "replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        con.execute("CREATE OR REPLACE TABLE lines (n INTEGER, line VARCHAR)")
        con.executemany("INSERT INTO lines VALUES (?, ?)", [(i + 1, t.rstrip("\r")) for i, t in enumerate(lines)])
        rows = con.execute("SELECT n, line, errdex_matches(line) FROM lines ORDER BY n").fetchall()
        found[str(log)] = [{"file": str(log), "line": n, "text": text,
                            "matches": [{k: m[k] for k in _FIELDS} for m in matches]}
                           for n, text, matches in rows if matches]
        assert all([m["rank"] for m in matches] == list(range(1, len(matches) + 1)) for _, _, matches in rows)
    return found


def test_every_loghub_sample_matches_as_the_cli_does(tmp_path: Path) -> None:
    logs = loghub_logs()
    bundle = str(loghub_bundle(require_loghub(), tmp_path / "loghub.jsonl"))
    con = duckdb.connect()
    errdex.duckdb.register(con, records=[bundle])
    expected = cli_lines(logs, [bundle])
    assert _duckdb_lines(con, logs) == {str(p): expected.get(str(p), []) for p in logs}


def test_every_loghub_sample_with_the_bundled_dataset_as_the_cli() -> None:
    logs = loghub_logs()
    con = duckdb.connect()
    errdex.duckdb.register(con)
    expected = cli_lines(logs, [])
    got = _duckdb_lines(con, logs)
    assert got == {str(p): expected.get(str(p), []) for p in logs}
    assert any(got.values())  # the sshd records find OpenSSH's lines


def test_generated_records_among_loghub_lines_as_the_cli(tmp_path: Path) -> None:
    envelopes = generate(400)
    write_dataset(tmp_path / "records", envelopes)
    base = loghub_logs()[0].read_text(encoding="utf-8", errors="replace").splitlines()
    log = tmp_path / "mixed.log"
    log.write_text("".join(f"2026-11-30T10:00:00Z worker[{i}] ERROR {envelopes[i % 400]['record']['errorMessage']}\n"
                           if i % 7 == 0 else base[i % len(base)] + "\n" for i in range(6000)), encoding="utf-8")
    con = duckdb.connect()
    errdex.duckdb.register(con, records=[str(tmp_path / "records")])
    expected = cli_lines([log], [str(tmp_path / "records")])
    got = _duckdb_lines(con, [log])
    assert got == {str(log): expected.get(str(log), [])}
    assert len(got[str(log)]) >= 6000 // 7


def test_the_bundled_dataset_by_default_and_records_in_memory() -> None:
    con = duckdb.connect()
    errdex.duckdb.register(con)
    line = "sshd[7]: error: kex_exchange_identification: Connection closed by remote host"
    [(matches,)] = con.execute("SELECT errdex_matches(?)", [line]).fetchall()
    assert [m["slug"] for m in matches] == ["connection-closed-by-remote-host"]
    assert con.execute("SELECT errdex_matches(NULL), errdex_matches('nothing')").fetchall() == [(None, [])]
    records = [{"id": "r1", "slug": "disk-full", "repo": "o/r", "errorClass": "E", "severity": "error",
                "messagePattern": "disk ([a-z]+) is full"}]
    errdex.duckdb.register(con, records=records, name="disk_matches")
    [(found,)] = con.execute("SELECT disk_matches('disk sda is full')").fetchall()
    assert found == [{"id": "r1", "slug": "disk-full", "repo": "o/r", "errorClass": "E", "severity": "error",
                      "status": "active", "rank": 1, "score": 13000 - 1, "groups": ["sda"], "span": [0, 16],
                      "moreMatches": 0, "unchecked": 0}]
    # a line that more records match than a line lists: the best, and in each of them what the line leaves out
    many = [{"id": f"t{i:03}", "slug": f"tok-{i}", "repo": "o/r", "errorClass": "E", "severity": "error",
             "messagePattern": f"tok{i} (.*)failed"} for i in range(30)]
    errdex.duckdb.register(con, records=many, name="tok_matches")
    heavy = " ".join(f"tok{i}" for i in range(30)) + " failed"
    [(found,)] = con.execute("SELECT tok_matches(?)", [heavy]).fetchall()
    assert [m["rank"] for m in found] == list(range(1, 21))
    assert {(m["moreMatches"], m["unchecked"]) for m in found} == {(10, 0)}


def test_errdex_query_calls_it_and_the_sql_macro_stays() -> None:
    line = "sshd[7]: error: kex_exchange_identification: Connection closed by remote host"
    native = run_cli("query", f"SELECT m.slug, m.rank FROM (SELECT unnest(errdex_matches('{line}')) AS m)",
                     "--format", "json")
    assert native.exit_code == 0, native.stderr
    assert json.loads(native.stdout) == [{"slug": "connection-closed-by-remote-host", "rank": 1}]
    macro = run_cli("query", f"SELECT slug, rank FROM errdex_match('{line}')", "--format", "json")
    assert macro.exit_code == 0, macro.stderr
    assert json.loads(macro.stdout) == json.loads(native.stdout)


def test_match_relation_streams_the_rows_with_what_the_function_gives(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "logs.duckdb"))
    line = "sshd[7]: error: kex_exchange_identification: Connection closed by remote host"
    rows = [(i, line if i % 3 == 0 else (None if i % 7 == 0 else f"line {i}")) for i in range(2500)]
    con.execute("CREATE TABLE logs (n INTEGER, message VARCHAR)")
    con.executemany("INSERT INTO logs VALUES (?, ?)", rows)
    errdex.duckdb.register(con)
    expected = con.execute("SELECT n, message, errdex_matches(message) FROM logs ORDER BY n").fetchall()
    reader = errdex.duckdb.match_relation(con.cursor().sql("SELECT n, message FROM logs"), batch_rows=1000)
    assert con.from_arrow(reader).order("n").fetchall() == expected
    best = errdex.duckdb.match_relation(con.cursor().sql("SELECT message FROM logs WHERE n < 10"), all_matches=False)
    assert [r[1]["slug"] if r[1] else None for r in con.from_arrow(best).fetchall()] == \
        ["connection-closed-by-remote-host" if i % 3 == 0 else None for i in range(10)]
    with pytest.raises(UsageError, match="no column 'line'"):
        errdex.duckdb.match_relation(con.sql("SELECT 1 AS x"), "line")
