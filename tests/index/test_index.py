"""The DuckDB index: documented tables, atomic builds, refresh on change, read-only queries."""

from __future__ import annotations

import csv
import io
import os
import resource
from pathlib import Path
from typing import Any

import duckdb
import pytest

from errdex.errors import DataError, InputError, UsageError
from errdex.index import build_index, default_index_path, ensure_index, query
from errdex.records import loader
from errdex.records.loader import load_record_store, load_records
from tests.conftest import ROOT, write_envelope
from tests.processes import leftovers, run, start


def test_bundled_dataset_index_has_every_record_and_list(tmp_path: Path) -> None:
    records = load_records()
    info = build_index(db=tmp_path / "x.duckdb")
    assert info.record_count == len(records)
    con = duckdb.connect(str(info.path), read_only=True)
    assert con.execute("SELECT count(*) FROM records").fetchone()[0] == len(records)
    solutions = sum(len(r.record["solutions"]) for r in records)
    assert con.execute("SELECT count(*) FROM solutions").fetchone()[0] == solutions
    scenarios = sum(len(r.record.get("scenarios", [])) for r in records)
    assert con.execute("SELECT count(*) FROM scenarios").fetchone()[0] == scenarios
    meta = dict(con.execute("SELECT key, value FROM metadata").fetchall())
    assert set(meta) == {"dataset_version", "content_hash", "errdex_version", "index_format", "built_at",
                         "record_count"}
    seed = con.execute(
        "SELECT error_class, line_number, literal_chars, variable_parts FROM records WHERE id = '2715d7d48ff9726c'"
    ).fetchone()
    assert seed == ("CreateosCleanupError", 197, 86, 0)
    first = con.execute("SELECT text FROM solutions WHERE record_id = '2715d7d48ff9726c' AND position = 1").fetchone()
    seed_record = next(r.record for r in records if r.record["id"] == "2715d7d48ff9726c")
    assert first[0] == seed_record["solutions"][0]
    assert [p.name for p in tmp_path.iterdir()] == ["x.duckdb"]


def test_ensure_index_rebuilds_only_when_records_change(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = tmp_path / "records"
    path = write_envelope(folder, seed)
    db = tmp_path / "i.duckdb"
    assert ensure_index([folder], db=db).rebuilt
    assert not ensure_index([folder], db=db).rebuilt
    seed["record"]["severity"] = "warning"
    path.write_text(path.read_text().replace('"severity": "error"', '"severity": "warning"'))
    assert ensure_index([folder], db=db).rebuilt
    assert query("SELECT severity FROM records", db=db).rows == [("warning",)]


def test_a_failed_build_leaves_the_old_index(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = tmp_path / "records"
    path = write_envelope(folder, seed)
    db = tmp_path / "i.duckdb"
    build_index([folder], db=db)
    before = db.read_bytes()
    path.write_text('{"record": ')
    with pytest.raises(DataError, match=r"i\.duckdb|records/.*json:1:12"):
        build_index([folder], db=db)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.duckdb", "records"]


def test_load_errors_name_file_line_and_column(tmp_path: Path, seed: dict[str, Any]) -> None:
    seed["record"]["lineNumber"] = "x"
    path = write_envelope(tmp_path, seed)
    with pytest.raises(DataError) as caught:
        load_records([path])
    message = str(caught.value)
    assert message.startswith(f"{path}:") and "/record/lineNumber" in message and "errdex validate" in message


def test_queries_are_read_only(tmp_path: Path) -> None:
    db = build_index(db=tmp_path / "x.duckdb").path
    with pytest.raises(UsageError, match="read-only"):
        query("DELETE FROM records", db=db)
    with pytest.raises(UsageError, match="query failed"):
        query("SELEC 1", db=db)


def test_cli_index_and_query(cli, tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    result = cli("index", "--db", str(db), "--format", "json")
    assert result.exit_code == 0 and result.json()["path"] == str(db)
    rows = cli("query", "SELECT slug, severity FROM records ORDER BY slug", "--db", str(db), "--format", "json").json()
    assert rows and set(rows[0]) == {"slug", "severity"}
    text = cli("query", "SELECT count(*) AS n FROM records", "--db", str(db)).stdout
    assert text.splitlines()[0].strip() == "n" and text.splitlines()[2].strip() == str(len(rows))
    table = list(csv.reader(io.StringIO(cli("query", "SELECT id, slug FROM records", "--format", "csv").stdout)))
    assert table[0] == ["id", "slug"] and len(table) == len(rows) + 1
    bad = cli("query", "DROP TABLE records", "--db", str(db))
    assert bad.exit_code == 2 and bad.stderr.startswith("errdex: error: query failed") and bad.stderr.count("\n") == 1


def test_cached_loading_sees_every_change(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = tmp_path / "records"
    path = write_envelope(folder, seed)
    first = load_record_store([folder]).loaded()
    again = load_record_store([folder])  # from the cache this time
    assert again.loaded() == first and again.views[0]["severity"] == "error"
    assert set(again.views[0]) <= {"schemaVersion", "id", "slug", "repo", "errorClass", "severity", "messagePattern",
                                   "status"}
    path.write_text(path.read_text().replace('"severity": "error"', '"severity": "warning"'))
    changed = load_record_store([folder])
    assert changed.views[0]["severity"] == "warning" and changed.full(0)["severity"] == "warning"
    path.write_text('{"record": ')
    with pytest.raises(DataError):
        load_record_store([folder])


def test_fingerprint_sees_sizes_times_and_missing_files(tmp_path: Path) -> None:
    files = []
    for i in range(12):
        path = tmp_path / f"{i}.json"
        path.write_text("{}" * i)
        files.append(str(path))
    alone = loader._fingerprint(files)
    assert alone is not None and loader._fingerprint(files) == alone
    assert loader._fingerprint([*files, str(tmp_path / "gone.json")]) is None
    (tmp_path / "3.json").write_text("changed")
    assert loader._fingerprint(files) != alone


@pytest.fixture(scope="module")
def built_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(db=tmp_path_factory.mktemp("index") / "x.duckdb").path


@pytest.mark.parametrize("sql", [
    "COPY (SELECT 1) TO '{out}/copied.csv'",
    "EXPORT DATABASE '{out}/exported'",
    "ATTACH '{out}/attached.duckdb' (READ_WRITE)",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM glob('/etc/*')",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "SET threads = 1",
    "RESET memory_limit",
    "PRAGMA threads = 4",
])
def test_query_reaches_nothing_but_the_index(built_index: Path, tmp_path: Path, cli, sql: str) -> None:
    result = cli("query", sql.format(out=tmp_path), "--db", str(built_index))
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("errdex: error: query refused: ") and result.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing was written


def test_query_settings_are_the_bounded_ones(built_index: Path) -> None:
    rows = query("SELECT current_setting('enable_external_access'), current_setting('threads'), "
                 "current_setting('lock_configuration')", db=built_index).rows
    assert rows == [(False, 2, True)]


def test_empty_sql_is_a_usage_error(built_index: Path, cli) -> None:
    for given in ("", "\n", "   \n\t"):
        result = cli("query", "-", "--db", str(built_index), input=given)
        assert result.exit_code == 2 and "no SQL given" in result.stderr and result.stderr.count("\n") == 1
    assert cli("query", "-", "--db", str(built_index), input="SELECT 41 + 1 AS n").stdout.splitlines()[2] == "42"


def test_query_rows_are_limited(built_index: Path, cli) -> None:
    result = query("SELECT range FROM range(100000000)", db=built_index, limit=5)
    assert result.rows == [(i,) for i in range(5)] and result.truncated
    assert not query("SELECT range FROM range(5)", db=built_index, limit=5).truncated
    assert len(query("SELECT range FROM range(20000)", db=built_index, limit=0).rows) == 20000
    out = cli("query", "SELECT range FROM range(10)", "--db", str(built_index), "--limit", "3", "--format", "csv")
    assert out.exit_code == 0 and out.stdout.split() == ["range", "0", "1", "2"]
    assert "only the first 3 rows" in out.stderr


def test_a_long_query_is_stopped_by_its_timeout(built_index: Path, cli) -> None:
    result = cli("query", "SELECT count(*) FROM range(1000000000000)", "--db", str(built_index), "--timeout", "0.5")
    assert result.exit_code == 1 and "query stopped after 0.5 s" in result.stderr


def test_query_never_creates_the_index_a_typo_names(tmp_path: Path, cli) -> None:
    typo = tmp_path / "typo.duckdb"
    result = cli("query", "SELECT 1", "--db", str(typo))
    assert result.exit_code == 1 and f"{typo}: no such index" in result.stderr
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InputError, match="no such index"):
        query("SELECT 1", db=typo, records=[str(ROOT / "records")])
    assert list(tmp_path.iterdir()) == []


def test_index_never_replaces_a_text_file_and_export_neither(tmp_path: Path, cli) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n")
    result = cli("index", "--db", str(notes))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert f"{notes}: exists and is not an errdex index" in result.stderr
    assert notes.read_text() == "keep me\n"
    exported = cli("export", "--to", "duckdb", "--output", str(notes))
    assert exported.exit_code == 1 and notes.read_text() == "keep me\n"
    index = tmp_path / "errdex.duckdb"
    (tmp_path / "empty.duckdb").write_bytes(b"")
    assert cli("index", "--db", str(index)).exit_code == 0
    assert cli("index", "--db", str(index)).exit_code == 0  # an index is replaced, as before
    assert cli("index", "--db", str(tmp_path / "empty.duckdb")).exit_code == 0


def test_a_killed_index_build_leaves_nothing_behind_after_the_next_run(tmp_path: Path) -> None:
    killed = run("index", "--db", "errdex.duckdb", cwd=tmp_path, ERRDEX_CRASH_AT="index:written")
    assert killed.returncode == -9
    left = leftovers(tmp_path)
    assert left and all(p.name.startswith(".errdex.duckdb.") for p in left)
    assert not (tmp_path / "errdex.duckdb").exists()
    again = run("index", "--db", "errdex.duckdb", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["errdex.duckdb"]
    assert query("SELECT count(*) FROM records", db=tmp_path / "errdex.duckdb").rows[0][0] > 0


def test_a_killed_build_of_the_cached_index_is_cleaned_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    killed = run("query", "SELECT 1", cwd=tmp_path, ERRDEX_CACHE_DIR=str(cache), ERRDEX_CRASH_AT="index:written")
    assert killed.returncode == -9 and leftovers(cache / "index")
    again = run("query", "SELECT count(*) AS n FROM records", cwd=tmp_path, ERRDEX_CACHE_DIR=str(cache))
    assert again.returncode == 0, again.stderr
    assert leftovers(cache) == [] and len(os.listdir(cache / "index")) == 1


def test_two_runs_that_need_the_same_index_build_it_once(tmp_path: Path, seed: dict[str, Any]) -> None:
    write_envelope(tmp_path / "records", seed)
    cache = tmp_path / "cache"
    runs = [start("query", "SELECT value FROM metadata WHERE key = 'built_at'", "--records", "records",
                  "--format", "csv", cwd=tmp_path, ERRDEX_CACHE_DIR=str(cache)) for _ in range(3)]
    outputs = [process.communicate(timeout=60) for process in runs]
    assert [process.returncode for process in runs] == [0, 0, 0], outputs
    built = {out.splitlines()[1] for out, _ in outputs}
    assert len(built) == 1  # the ones that waited found the first one's index fresh


def test_an_oversized_pattern_is_left_out_of_sql_matching(tmp_path: Path, seed: dict[str, Any]) -> None:
    """A pattern over EDX125's bounds is never handed to DuckDB's RE2, as the CLI never compiles it."""
    seed["record"]["messagePattern"] = "Job a failed at .{0,1000}x.{0,1000}y\\."
    seed["record"]["errorMessage"] = "Job a failed at x y."
    db = build_index([write_envelope(tmp_path / "records", seed)], db=tmp_path / "i.duckdb").path
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT pattern_re2 FROM records").fetchall() == [(None,)]
    assert con.execute("SELECT record_id FROM errdex_match($1)", ["Job a failed at x y."]).fetchall() == []


def test_the_query_table_escapes_control_characters_of_records(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    seed["record"]["documentation"] = "\x1b]0;owned\x07\x1b[2J cleared \u202e reversed\rover"
    folder = tmp_path / "records"
    write_envelope(folder, seed)
    db = build_index([folder], db=tmp_path / "x.duckdb").path
    text = cli("query", "SELECT documentation AS \"d\x1b[1m\" FROM records", "--db", str(db))
    assert text.exit_code == 0, text.stderr
    assert "\x1b" not in text.stdout and "\x07" not in text.stdout and "\r" not in text.stdout
    assert "\u202e" not in text.stdout
    assert "\\x1b]0;owned\\x07\\x1b[2J cleared \\u202e reversed\\x0dover" in text.stdout
    exact = cli("query", "SELECT documentation FROM records", "--db", str(db), "--format", "json")
    assert exact.json() == [{"documentation": seed["record"]["documentation"]}]  # data formats stay exact


def test_an_index_never_replaces_a_file_that_is_not_one(tmp_path: Path, cli) -> None:
    mine = tmp_path / "mine.duckdb"
    con = duckdb.connect(str(mine))
    con.execute("CREATE TABLE precious AS SELECT 42 AS answer")
    con.close()
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    records = str(ROOT / "records")
    for target in (mine, notes):
        before = target.read_bytes()
        for args in (("index", "--db", str(target)), ("query", "SELECT 1", "--db", str(target), "--records", records)):
            result = cli(*args)
            assert result.exit_code == 1, (args, result.stdout, result.stderr)
            assert result.stderr.startswith(f"errdex: error: {target}: ") and result.stderr.count("\n") == 1
            assert "not an errdex index" in result.stderr
            assert target.read_bytes() == before  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.duckdb", "notes.txt"]
    # An index (even a stale one) and an empty file are replaced as before.
    built = tmp_path / "built.duckdb"
    assert cli("index", "--db", str(built)).exit_code == 0
    assert cli("index", "--db", str(built)).exit_code == 0
    empty = tmp_path / "empty.duckdb"
    empty.touch()
    assert cli("query", "SELECT count(*) FROM records", "--db", str(built), "--records", records).exit_code == 0
    assert cli("index", "--db", str(empty)).exit_code == 0


def test_a_damaged_cached_index_is_rebuilt(tmp_path: Path) -> None:
    records = [str(ROOT / "records")]
    path = ensure_index(records).path
    assert path == default_index_path(records)
    path.write_bytes(b"\0garbage" * 100)
    assert query("SELECT count(*) FROM records", records=records).rows[0][0] > 0


def test_a_query_that_builds_a_huge_value_is_stopped_by_the_memory_cap(built_index: Path, cli) -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    # 4 GB in one value: DuckDB's memory_limit does not cover it; the process's address space cap does.
    result = cli("query", "SELECT length(repeat('xxxx', 1000000000)) AS n", "--db", str(built_index))
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert "query stopped: it needs more than" in result.stderr and result.stderr.count("\n") == 1
    assert resource.getrlimit(resource.RLIMIT_AS) == before  # the cap ends with the query
    assert query("SELECT length(repeat('x', 1000)) AS n", db=built_index).rows == [(1000,)]


def test_every_row_of_a_large_result_is_written_without_building_the_output_whole(built_index: Path,
                                                                                   tmp_path: Path) -> None:
    """``--limit 0`` over a million rows: the JSON text, built whole, took three times the rows' memory (out of
    memory under a 1.5 GiB address-space limit, exit 70); written a chunk at a time it fits beside them."""
    import subprocess
    import sys

    from tests.processes import errdex_env

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))

    sql = "SELECT i, repeat('x', 100) AS x FROM range(1000000) t(i)"
    done = subprocess.run([sys.executable, "-m", "errdex", "query", sql, "--db", str(built_index), "--limit", "0",
                           "--format", "json"], cwd=tmp_path, env=errdex_env(), capture_output=True, text=True,
                          timeout=600, preexec_fn=limited)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('[\n  {\n    "i": 0,\n    "x": "xxx') and done.stdout.endswith('"\n  }\n]\n')
    assert done.stdout.count('\n    "i": ') == 1000000
