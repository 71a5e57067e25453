"""Benchmark: `errdex match` end to end against the obvious alternatives, in one run.

Run: .venv/bin/python -m tests.benchmarks.bench_match [--lines N] [--sizes 1000,10000,100000]

The corpus: the Loghub lines (../shared/data/loghub or $ERRDEX_LOGHUB) repeated
to N lines, with about 1% of lines carrying a rendered error message of a
generated record. For each record count it prints lines/s and MB/s of:
- errdex match, end to end (the CLI on the file, jsonl to /dev/null): first
  start (compiling, empty cache), cached start (best of two), and cached
  with --jobs 1 (one process);
- a one-line match with the compiled patterns cached (wall time);
- the naive loop: every record's pattern with Python re on every line
  (measured on a sample and reported as a rate);
- the best DuckDB shape: the index's errdex_match macro over a table of lines
  (token join, contains, regexp_matches), on a sample;
- grep -F -f on the patterns' longest literals, as the floor (its count of
  matching lines is checked against errdex's, so a grep that did no work
  cannot pass for fast);
and the ratios of errdex to each, with each target of the issue met or missed.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from errdex.index import build_index
from errdex.patterns import python_regex, required_literals
from tests.benchmarks.generate import generate, write_dataset
from tests.loghub import loghub_dir, systems

BIN = Path(sys.executable).with_name("errdex")


def corpus(path: Path, lines: int, envelopes: list[dict]) -> int:
    folder = loghub_dir()
    if folder is None:
        raise SystemExit("Loghub samples not found: set ERRDEX_LOGHUB")
    base = [line for name in systems(folder)
            for line in (folder / name / f"{name}_2k.log").read_text(errors="replace").splitlines()]
    rng = random.Random(3)
    with path.open("w", encoding="utf-8") as out:
        for i in range(lines):
            if rng.random() < 0.01:
                record = rng.choice(envelopes)["record"]
                out.write(f"2026-11-30T10:00:00Z worker[{i % 97}] ERROR {record['errorMessage']}\n")
            else:
                out.write(base[i % len(base)] + "\n")
    return path.stat().st_size


def run(command: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start, done.stdout


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        env = {**os.environ, "ERRDEX_CACHE_DIR": str(tmpdir / "cache")}
        one = tmpdir / "one.log"
        one.write_text("2026-11-30T10:00:01Z worker[7] ERROR "
                       "CreateOS request failed (HTTP 502) during process creation.\n")
        run([str(BIN), "match", str(one), "-q"], env)
        bundled = min(run([str(BIN), "match", str(one), "-q"], env)[0] for _ in range(3))
        print(f"one-line match, bundled dataset, cached: {bundled:.2f} s wall   "
              f"target < 0.5 s: {verdict(bundled < 0.5)}")
        for size in (int(s) for s in args.sizes.split(",")):
            envelopes = generate(size)
            records = tmpdir / f"records-{size}"
            write_dataset(records, envelopes)
            log = tmpdir / f"corpus-{size}.log"
            size_bytes = corpus(log, args.lines, envelopes)
            mb = size_bytes / 1e6
            n = args.lines
            command = [str(BIN), "match", str(log), "--records", str(records), "--format", "jsonl", "-q"]
            first, output = run(command, env)
            matched = output.count(b"\n")
            cached = min(run(command, env)[0] for _ in range(2))
            single = run([*command, "--jobs", "1"], env)[0]
            one_log = tmpdir / "one-generated.log"
            one_log.write_text(envelopes[0]["record"]["errorMessage"] + "\n")
            one_line = min(run([str(BIN), "match", str(one_log), "--records", str(records), "-q"], env)[0]
                           for _ in range(2))

            sample = log.read_text(encoding="utf-8").splitlines()[: max(20, 200_000 // size)]
            compiled = [python_regex(e["record"]["messagePattern"]) for e in envelopes]
            start = time.perf_counter()
            for line in sample:
                for regex in compiled:
                    regex.search(line)
            naive_rate = len(sample) / (time.perf_counter() - start)

            db = build_index([records], db=tmpdir / f"i-{size}.duckdb").path
            con = duckdb.connect(str(db), read_only=True)
            sql_sample = log.read_text(encoding="utf-8").splitlines()[:20_000]
            start = time.perf_counter()
            con.execute("SELECT count(*) FROM (SELECT unnest($1) AS message) l, errdex_match(l.message) m",
                        [sql_sample]).fetchall()
            sql_rate = len(sql_sample) / (time.perf_counter() - start)
            con.close()

            literals = tmpdir / "literals.txt"
            longest = [max(required_literals(e["record"]["messagePattern"]), key=len) for e in envelopes]
            literals.write_text("\n".join(longest) + "\n")
            grep, grep_out = run(["grep", "-c", "-F", "-f", str(literals), str(log)], env)
            grep_count = int(grep_out.strip() or 0)

            rate = n / cached
            print(f"== {size:,} records, {n:,} lines, {mb:,.0f} MB, {matched:,} lines matched")
            print(f"errdex match, first start : {n / first:12,.0f} lines/s {mb / first:8.1f} MB/s ({first:.1f} s)")
            print(f"errdex match, cached      : {rate:12,.0f} lines/s {mb / cached:8.1f} MB/s ({cached:.2f} s)")
            print(f"errdex match, --jobs 1    : {n / single:12,.0f} lines/s {mb / single:8.1f} MB/s ({single:.2f} s)")
            print(f"one-line match, cached    : {one_line:.2f} s wall")
            print(f"naive Python re loop      : {naive_rate:12,.0f} lines/s   ratio {rate / naive_rate:,.0f}x")
            print(f"DuckDB errdex_match macro : {sql_rate:12,.0f} lines/s   ratio {rate / sql_rate:,.1f}x")
            fewer = "" if grep_count >= matched else " - FEWER THAN errdex: not a valid floor"
            print(f"grep -F -f literals       : {n / grep:12,.0f} lines/s {mb / grep:8.1f} MB/s   "
                  f"ratio {rate / (n / grep):.2f}x   ({grep_count:,} lines found{fewer})")
            if size == 10_000:
                print(f"targets at 10k: >= 1M lines/s {verdict(rate >= 1e6)}; "
                      f">= 1,000x naive {verdict(rate / naive_rate >= 1000)}; "
                      f">= 5x SQL {verdict(rate / sql_rate >= 5)}")
            if size == 100_000:
                print(f"targets at 100k: >= 500k lines/s cached {verdict(rate >= 5e5)}; "
                      f"first compile < 40 s {verdict(first < 40)}; cached start < 2 s {verdict(one_line < 2)}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
