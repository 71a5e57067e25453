"""Benchmark: `errdex site build` for generated records, full and incremental, against the alternatives, in one run.

Run: PYTHONPATH=. .venv/bin/python -m tests.benchmarks.bench_site [--records 10000] [--out-dir DIR]

It generates N realistic records and prints, in the same run:
- the whole build (pages, API files, search index) into an empty --out, as `errdex site build` runs it;
- a rebuild after one record's documentation changed (incremental: only what shows it is written), with
  how many files it wrote, against a full rebuild of the same records into an empty folder;
- the same full build in one process (no forked children);
- Pagefind indexing the same record pages through its Python API (the usual static-site search), when
  `pagefind[bin]` is installed;
and the ratios. Builds write into --out-dir (default: a temporary folder on the same disk as the project's
build/), after a sync, so each starts from a quiet disk; the disk of this machine varies from run to run.
Targets for 10,000 records: the whole build with search under 15 s, the rebuild after one change under 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from errdex import build_site
from errdex.site import build as build_module
from tests.benchmarks.generate import generate, write_dataset

FULL_TARGET = 15.0
INCREMENTAL_TARGET = 2.0


def timed_build(out: Path, records: Path, *, fresh: bool = True) -> float:
    """One build into ``out``; ``fresh``: into an empty folder (a full build), else over the previous site."""
    if fresh:
        shutil.rmtree(out, ignore_errors=True)
    os.sync()
    time.sleep(1)
    started = time.perf_counter()
    build_site(out, records=[records])
    return time.perf_counter() - started


def _stamps(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


def _change_one(paths: list[Path], step: int) -> None:
    """Edit the documentation of one record in the middle of the dataset."""
    path = paths[len(paths) // 2]
    envelope = json.loads(path.read_text(encoding="utf-8"))
    envelope["record"]["documentation"] += f" Changed by the benchmark ({step})."
    path.write_text(json.dumps(envelope, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _incremental(out: Path, records: Path, paths: list[Path]) -> tuple[float, int]:
    """The best of two rebuilds after one change, and how many files the last one wrote."""
    times, written = [], 0
    for step in range(2):
        before = _stamps(out)
        _change_one(paths, step)
        times.append(timed_build(out, records, fresh=False))
        written = sum(1 for path, inode in _stamps(out).items() if before.get(path) != inode)
    return min(times), written


async def _pagefind(site: Path) -> None:
    from pagefind.index import IndexConfig, PagefindIndex  # optional: only when installed (checked by the caller)

    async with PagefindIndex(IndexConfig(output_path=str(site / "pagefind"))) as index:
        await index.add_directory(str(site), glob="records/**/*.html")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--out-dir", type=Path, default=None)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-site-", dir=args.out_dir))
    os.environ["ERRDEX_CACHE_DIR"] = str(base / "cache")
    try:
        records = base / "records"
        paths = write_dataset(records, generate(args.records))
        out = base / "site"
        build_site(out, records=[records])  # warms the caches a contributor's machine has after validation
        best = min(timed_build(out, records), timed_build(out, records))
        files = sum(1 for _ in out.rglob("*") if _.is_file())
        pages = sum(1 for _ in out.rglob("*.html"))
        print(f"{args.records:,} records, {pages:,} pages, {files:,} files")
        print(f"full build (with search)   : {best:6.2f} s  {pages / best:8.0f} pages/s")
        incremental, written = _incremental(out, records, paths)
        full = timed_build(out, records)
        print(f"rebuild after one change   : {incremental:6.2f} s  ({written:,} of {files:,} files written)")
        print(f"full rebuild, same records : {full:6.2f} s  ratio {full / incremental:.1f}x")
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
            asyncio.run(_pagefind(out))
            pagefind = time.perf_counter() - started
            print(f"Pagefind, index only       : {pagefind:6.2f} s  "
                  f"(the search index alone, against errdex's whole build: {pagefind / best:.2f}x)")
        else:
            print("Pagefind                   : not installed (pip install 'pagefind[bin]') - not compared")
        if args.records == 10_000:
            print(f"target full < {FULL_TARGET:.0f} s: {'met' if best < FULL_TARGET else 'MISSED'}; "
                  f"target one change < {INCREMENTAL_TARGET:.0f} s: "
                  f"{'met' if incremental < INCREMENTAL_TARGET else 'MISSED'}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
