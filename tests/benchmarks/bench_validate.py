"""Benchmark: full `errdex validate` against schema-only jsonschema on 10,000 generated records.

Run: .venv/bin/python -m tests.benchmarks.bench_validate [--count N]

Both sides read the same files from disk. errdex runs every check (schema,
identity, patterns with engine compiles, source, metadata, cross-record
uniqueness); jsonschema (Draft 2020-12) only checks the schema. The pattern
verdict cache is emptied first, so the errdex time includes compiling every
pattern in every engine; a second errdex run shows the warm cache.
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

        start = time.perf_counter()
        invalid = _jsonschema_only(paths)
        schema_only = time.perf_counter() - start

        shutil.rmtree(cache, ignore_errors=True)
        start = time.perf_counter()
        report = validate([root], config=None)
        cold = time.perf_counter() - start

        start = time.perf_counter()
        validate([root], config=None)
        warm = time.perf_counter() - start

    rate = {name: n / seconds for name, seconds in (("schema", schema_only), ("cold", cold), ("warm", warm))}
    print(f"records: {n} (generated, valid); errdex findings: {len(report.findings)}; jsonschema invalid: {invalid}")
    print(f"jsonschema Draft 2020-12, schema only : {schema_only:6.2f} s  {rate['schema']:9,.0f} records/s")
    print(f"errdex validate, all checks, cold     : {cold:6.2f} s  {rate['cold']:9,.0f} records/s  "
          f"ratio {rate['cold'] / rate['schema']:.1f}x")
    print(f"errdex validate, all checks, warm     : {warm:6.2f} s  {rate['warm']:9,.0f} records/s  "
          f"ratio {rate['warm'] / rate['schema']:.1f}x")
    scale = 10_000 / n
    warm_met = rate["warm"] >= 3 * rate["schema"]
    cold_met = cold * scale <= 5.0
    print(f"target warm >= 3x jsonschema: {rate['warm'] / rate['schema']:.1f}x, {'met' if warm_met else 'NOT met'}")
    print(f"target cold <= 5 s per 10k new patterns: {cold * scale:.2f} s, {'met' if cold_met else 'NOT met'} "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0 if warm_met else 1


if __name__ == "__main__":
    sys.exit(main())
