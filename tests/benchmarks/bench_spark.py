"""Benchmark: errdex's engine on Spark (local[1], local[2]) and inside DuckDB, against ``errdex match``.

Run: .venv/bin/python -m tests.benchmarks.bench_spark [--lines 1000000,10000000] [--records 10000]
     [--duckdb-records 53,1000,10000] [--no-spark]

The corpus is bench_match's: the Loghub lines repeated to N lines, about 1%
carrying a generated record's message. For each N it prints lines/s of:
- errdex match (the CLI on the file, jsonl to /dev/null, cached patterns);
- errdex spark-match on local[1] and local[2], each in a fresh process: the
  session's start, a job's fixed cost (one line, session warm) and the
  corpus itself (text in, Parquet out), and whether its rows equal the CLI's
  (the multiset of (line, matches): Spark does not number lines);
- DuckDB, at each of --duckdb-records (53: the bundled dataset, on the same
  Loghub lines with no generated message): errdex_matches(line) (errdex.duckdb)
  against the index's pure-SQL errdex_match macro on the same sample of lines,
  the function over the whole corpus, and errdex.duckdb.match_relation (the
  table route: 100,000-row Arrow batches) over the whole corpus. Each figure
  is the best of a few runs, wall time, with the CPU seconds the process
  spent (DuckDB runs the macro on every core; the Python function holds the
  GIL).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb

import errdex.duckdb
from errdex.index import build_index
from errdex.records.loader import load_record_store
from tests.benchmarks.bench_match import BIN, corpus
from tests.benchmarks.generate import generate, write_dataset

_FIELDS = ("id", "slug", "repo", "errorClass", "severity", "score", "span", "groups")


def _key(text: str, matches: list[dict[str, Any]]) -> str:
    return json.dumps([text, [{k: m[k] for k in _FIELDS} for m in matches]], ensure_ascii=False)


def spark_worker(master: str, log: str, records: str, out: str) -> None:
    """In a fresh process: session start, one-line job, the corpus; prints one JSON line of timings."""
    from errdex.spark import local_session, match_files  # here: only this mode needs PySpark

    start = time.perf_counter()
    spark = local_session(master, app_name="errdex-bench")
    started = time.perf_counter() - start
    one = Path(out + "-one.log")
    one.write_text("nothing to see\n")
    start = time.perf_counter()
    match_files([one], out + "-one", records=[records], spark=spark)
    fixed = time.perf_counter() - start
    start = time.perf_counter()
    result = match_files([log], out, records=[records], spark=spark, all_matches=True)
    took = time.perf_counter() - start
    rows = spark.read.parquet(out).select("message", "errdex").collect()
    found = Counter(_key(r["message"], [m.asDict() for m in r["errdex"]]) for r in rows)
    Path(out + ".json").write_text(json.dumps(dict(found)))
    print(json.dumps({"start": started, "fixed": fixed, "corpus": took, "rows": result.rows}))
    spark.stop()


def _cli(log: Path, records: Path, env: dict[str, str]) -> tuple[float, Counter[str]]:
    command = [*BIN, "match", str(log), "--records", str(records), "--format", "jsonl", "-q"]
    subprocess.run(command, stdout=subprocess.DEVNULL, env=env, check=False)  # compile and cache the patterns
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, env=env, check=False)
    took = time.perf_counter() - start
    lines = (json.loads(line) for line in done.stdout.splitlines())
    return took, Counter(_key(entry["text"], entry["matches"]) for entry in lines)


def _best(run: Any, runs: int = 3) -> tuple[float, float, Any]:
    """The best wall and CPU seconds of ``runs`` calls (the first warms both paths: RE2 compiles a regex on
    its first hit), and the result."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def _duckdb(log: Path, records: Path | None, tmpdir: Path, sample_size: int) -> dict[str, tuple[float, float]]:
    """Lines/s (wall, CPU) of the macro and the function on the sample, and of the function and
    match_relation on the corpus, each over a table of lines (the lines' own loading left out)."""
    lines = log.read_text(encoding="utf-8").splitlines()
    paths = [records] if records is not None else None
    db = build_index(paths, db=tmpdir / f"bench-{log.stem}.duckdb").path
    con = duckdb.connect(str(db))
    kb = errdex.duckdb.register(con, records=paths)
    con.execute("CREATE OR REPLACE TABLE lines AS SELECT unnest($1) AS message", [lines])
    con.execute(f"CREATE OR REPLACE TABLE sample AS SELECT message FROM lines LIMIT {int(sample_size)}")
    n = min(sample_size, len(lines))

    def table() -> Any:
        reader = errdex.duckdb.match_relation(con.cursor().sql("SELECT message FROM lines"), records=kb)
        return con.from_arrow(reader).aggregate("sum(len(errdex))").fetchall()

    runs = {"macro": (n, lambda: con.execute("SELECT count(*) FROM sample l, errdex_match(l.message) m").fetchall()),
            "function": (n, lambda: con.execute("SELECT sum(len(errdex_matches(message))) FROM sample").fetchall()),
            "function all": (len(lines),
                             lambda: con.execute("SELECT sum(len(errdex_matches(message))) FROM lines").fetchall()),
            "match_relation all": (len(lines), table)}
    found: dict[str, tuple[float, float]] = {}
    counts = set()
    for name, (count, run) in runs.items():
        wall, cpu, result = _best(run, 3 if count == n else 2)
        found[name] = (count / wall, count / cpu)
        if name.endswith("all"):
            counts.add(result[0][0])
    con.close()
    assert len(counts) == 1, counts  # the function and the table route find the same matches
    return found


def _duckdb_report(n: int, tmpdir: Path, sizes: list[int], sample: int, cli_speed: dict[int, float]) -> None:
    for size in sizes:
        if size == 53:  # the bundled dataset: its sshd records match Loghub's OpenSSH lines
            store = load_record_store(None)
            envelopes, records = [{"record": store.full(i)} for i in range(len(store.views))], None
        else:
            envelopes = generate(size)
            records = tmpdir / f"duckdb-records-{size}"
            if not records.exists():
                write_dataset(records, envelopes)
        log = tmpdir / f"duckdb-{size}-{n}.log"
        corpus(log, n, envelopes)
        got = _duckdb(log, records, tmpdir, sample)
        (macro, macro_cpu), (function, function_cpu) = got["macro"], got["function"]
        verdict = "met" if function / macro >= 20 else "MISSED"
        print(f"-- DuckDB, {len(envelopes) if size == 53 else size:,} records, {n:,} lines")
        print(f"DuckDB errdex_match macro   : {macro:12,.0f} lines/s ({macro_cpu:,.0f} per CPU s; "
              f"first {sample:,} lines)")
        print(f"DuckDB errdex_matches()     : {function:12,.0f} lines/s ({function_cpu:,.0f} per CPU s) on the same "
              f"lines: {function / macro:,.1f}x the macro ({function_cpu / macro_cpu:,.1f}x per CPU s; "
              f"target >= 20x: {verdict})")
        for name in ("function all", "match_relation all"):
            wall, cpu = got[name]
            label = "errdex_matches() all" if name == "function all" else "match_relation() all"
            print(f"DuckDB {label:21}: {wall:12,.0f} lines/s ({cpu:,.0f} per CPU s)"
                  + (f"; the CLI: {cli_speed[size]:,.0f} lines/s" if size in cli_speed else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", default="1000000")
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--sql-sample", type=int, default=100_000)
    parser.add_argument("--duckdb-records", default="53,1000,10000",
                        help="record counts the DuckDB figures are taken at (53: the bundled dataset)")
    parser.add_argument("--no-spark", action="store_true", help="the DuckDB figures only")
    parser.add_argument("--spark-worker", nargs=4, metavar=("MASTER", "LOG", "RECORDS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.spark_worker:
        spark_worker(*args.spark_worker)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        env = {**os.environ, "ERRDEX_CACHE_DIR": str(tmpdir / "cache")}
        envelopes = generate(args.records)
        records = tmpdir / "records"
        write_dataset(records, envelopes)
        for n in (int(x) for x in args.lines.split(",")):
            log = tmpdir / f"corpus-{n}.log"
            mb = corpus(log, n, envelopes) / 1e6
            cli_time, cli_found = _cli(log, records, env)
            print(f"== {args.records:,} records, {n:,} lines, {mb:,.0f} MB, {sum(cli_found.values()):,} lines matched")
            print(f"errdex match (cached)       : {n / cli_time:12,.0f} lines/s ({cli_time:.2f} s)")
            for master in () if args.no_spark else ("local[1]", "local[2]"):
                out = str(tmpdir / f"out-{n}-{master[6]}")
                done = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_spark", "--spark-worker", master,
                                       str(log), str(records), out], env=env, capture_output=True, text=True,
                                      check=False)
                if done.returncode != 0:
                    print(f"spark {master}: failed\n{done.stderr[-2000:]}")
                    continue
                t = json.loads(done.stdout.strip().splitlines()[-1])
                same = Counter(json.loads(Path(out + ".json").read_text())) == cli_found
                print(f"spark-match {master:9}       : {n / t['corpus']:12,.0f} lines/s ({t['corpus']:.1f} s; session "
                      f"start {t['start']:.1f} s, a job's fixed cost {t['fixed']:.1f} s); equals the CLI: {same}")
            _duckdb_report(n, tmpdir, [int(x) for x in args.duckdb_records.split(",")], args.sql_sample,
                           {args.records: n / cli_time})
    return 0


if __name__ == "__main__":
    sys.exit(main())
