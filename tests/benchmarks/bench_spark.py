"""Benchmark: errdex's engine on Spark (local[1], local[2]) and inside DuckDB, against ``errdex match``.

Run: .venv/bin/python -m tests.benchmarks.bench_spark [--lines 1000000,10000000] [--records 10000]

The corpus is bench_match's: the Loghub lines repeated to N lines, about 1%
carrying a generated record's message. For each N it prints lines/s of:
- errdex match (the CLI on the file, jsonl to /dev/null, cached patterns);
- errdex spark-match on local[1] and local[2], each in a fresh process: the
  session's start, a job's fixed cost (one line, session warm) and the
  corpus itself (text in, Parquet out), and whether its rows equal the CLI's
  (the multiset of (line, matches): Spark does not number lines);
- DuckDB: errdex_matches(line) (errdex.duckdb) against the index's pure-SQL
  errdex_match macro on a sample, and the function over the whole corpus.
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
    command = [str(BIN), "match", str(log), "--records", str(records), "--format", "jsonl", "-q"]
    subprocess.run(command, stdout=subprocess.DEVNULL, env=env, check=False)  # compile and cache the patterns
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, env=env, check=False)
    took = time.perf_counter() - start
    lines = (json.loads(line) for line in done.stdout.splitlines())
    return took, Counter(_key(entry["text"], entry["matches"]) for entry in lines)


def _best(con: duckdb.DuckDBPyConnection, sql: str, runs: int = 3) -> tuple[float, Any]:
    """The best of ``runs`` timings of a query (the first warms both paths: RE2 compiles a regex on its first
    hit), and its result."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = con.execute(sql).fetchall()
        times.append(time.perf_counter() - start)
    return min(times), result


def _duckdb(log: Path, records: Path, tmpdir: Path, sample_size: int) -> tuple[float, float, float, int]:
    """(macro lines/s on the sample, function lines/s on the sample, function lines/s on the corpus, matches),
    each over a temporary table of lines (the lines' own loading left out)."""
    lines = log.read_text(encoding="utf-8").splitlines()
    db = build_index([records], db=tmpdir / "bench.duckdb").path
    con = duckdb.connect(str(db), read_only=True)
    errdex.duckdb.register(con, records=[records])
    con.execute("CREATE TEMP TABLE lines AS SELECT unnest($1) AS message", [lines])
    con.execute(f"CREATE TEMP TABLE sample AS SELECT message FROM lines LIMIT {int(sample_size)}")
    macro, _ = _best(con, "SELECT count(*) FROM sample l, errdex_match(l.message) m")
    function, _ = _best(con, "SELECT sum(len(errdex_matches(message))) FROM sample")
    whole, ((count,),) = _best(con, "SELECT sum(len(errdex_matches(message))) FROM lines", runs=2)
    con.close()
    n = min(sample_size, len(lines))
    return n / macro, n / function, len(lines) / whole, int(count or 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", default="1000000")
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--sql-sample", type=int, default=100_000)
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
            for master in ("local[1]", "local[2]"):
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
            macro, function, whole, count = _duckdb(log, records, tmpdir, args.sql_sample)
            print(f"DuckDB errdex_match macro   : {macro:12,.0f} lines/s (first {args.sql_sample:,} lines)")
            verdict = "met" if function / macro >= 20 else "MISSED"
            print(f"DuckDB errdex_matches()     : {function:12,.0f} lines/s on the same lines: "
                  f"{function / macro:,.0f}x the macro (target >= 20x: {verdict})")
            print(f"DuckDB errdex_matches() all : {whole:12,.0f} lines/s ({count:,} matches); "
                  f"the CLI is {(n / cli_time) / whole:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
