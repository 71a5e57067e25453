"""Benchmark: full `errdex validate` against schema-only jsonschema on 10,000 generated records.

Run: .venv/bin/python -m tests.benchmarks.bench_validate [--count N]

Both sides read the same files from disk. errdex runs every check (schema,
identity, patterns with engine compiles, source, metadata, cross-record
uniqueness); jsonschema (Draft 2020-12) only checks the schema. The cache is
emptied first, so the cold errdex time includes analysing every pattern and
its engine verdicts (on both cores); the warm runs replay the per-record
findings the cache keeps by record text and run the checks across records.
The peer runs before and after errdex (the best of each side is compared, in
CPU seconds: this process and the children it waited for).
Targets (issue 16): cold, 10,000 never-seen patterns in at most 5 s; warm, at
least 3x jsonschema's records/s. A cold cache is the first validation of
never-seen patterns (a harvest brings thousands at a time; patterns of one
shape share one engine compile); every later run (the contributor's loop, CI
with a kept cache) is warm.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import jsonschema

from errdex import validate
from errdex.records.schema import envelope_schema
from tests.benchmarks.generate import generate, write_dataset


def _jsonschema_only(paths: list[Path]) -> int:
    validator = jsonschema.Draft202012Validator(envelope_schema(2))
    invalid = 0
    for path in paths:
        if not validator.is_valid(json.loads(path.read_bytes())):
            invalid += 1
    return invalid


class _Timed:
    """Wall and CPU seconds (this process and the children it waited for: the forked checker, node)."""

    def __enter__(self) -> _Timed:
        self.wall, self.times = time.perf_counter(), os.times()
        return self

    def __exit__(self, *exc: object) -> None:
        end = os.times()
        self.wall = time.perf_counter() - self.wall
        self.cpu = sum(end[:4]) - sum(self.times[:4])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "records"
        cache = Path(tmp) / "cache"
        os.environ["ERRDEX_CACHE_DIR"] = str(cache)
        paths = write_dataset(root, generate(args.count))
        n = len(paths)
        # Interleaved on a shared machine: the peer before and after, the best of each side.
        schema, warm = [], []
        with _Timed() as timed:
            invalid = _jsonschema_only(paths)
        schema.append(timed)
        shutil.rmtree(cache, ignore_errors=True)
        with _Timed() as cold:
            report = validate([root], config=None)
        with _Timed() as timed:
            validate([root], config=None)
        warm.append(timed)
        with _Timed() as timed:
            _jsonschema_only(paths)
        schema.append(timed)
        with _Timed() as timed:
            validate([root], config=None)
        warm.append(timed)

    best_schema, best_warm = min(schema, key=lambda t: t.cpu), min(warm, key=lambda t: t.cpu)
    print(f"records: {n} (generated, valid); errdex findings: {len(report.findings)}; jsonschema invalid: {invalid}")
    print(f"{'':38}  {'wall':>7}  {'CPU':>7}  {'records/s (CPU)':>15}  ratio (CPU)")
    for name, timed in (("jsonschema Draft 2020-12, schema only", best_schema),
                        ("errdex validate, all checks, cold", cold), ("errdex validate, all checks, warm", best_warm)):
        print(f"{name:38}  {timed.wall:6.2f}s  {timed.cpu:6.2f}s  {n / timed.cpu:15,.0f}  "
              f"{best_schema.cpu / timed.cpu:.1f}x")
    scale = 10_000 / n
    ratio = best_schema.cpu / best_warm.cpu
    warm_met = ratio >= 3
    cold_met = cold.wall * scale <= 5.0
    print(f"target warm >= 3x jsonschema: {ratio:.1f}x CPU ({best_schema.wall / best_warm.wall:.1f}x wall), "
          f"{'met' if warm_met else 'NOT met'}")
    print(f"target cold <= 5 s per 10k new patterns: {cold.wall * scale:.2f} s wall ({cold.cpu * scale:.2f} s CPU "
          f"on both cores), {'met' if cold_met else 'NOT met'} "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0 if warm_met and cold_met else 1


if __name__ == "__main__":
    sys.exit(main())
