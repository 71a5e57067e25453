"""Benchmark: what an errdex start costs before any work, beside its peers in the same run.

Run: PYTHONPATH=toolkit:. .venv/bin/python -m tests.benchmarks.bench_start [--files 100000] [--repeat 3]

Prints (best of ``--repeat``):
- the import time (``python -X importtime``, the sum of every module's own
  time) of ``errdex explain ID``, ``errdex explain LINE`` and a one-line
  ``errdex match`` on the bundled dataset, beside the interpreter's own start
  (``-c pass``) and ``import click`` alone; the issue's bound is 60 ms;
- the loader cache's check that no record file changed, at ``--files`` empty
  record files in 50 folders: the full check (walk, a stat per file) against
  the manifest of folder times (:mod:`errdex.records.file_state`).
The cached start at 100,000 records as a whole: ``bench_match --memory 100000``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from errdex.records import file_state

LINE = "2026-11-30T10:00:01Z worker[7] ERROR CreateOS request failed (HTTP 502) during process creation."


def import_ms(args: list[str], env: dict[str, str], repeat: int) -> tuple[float, int]:
    """The best sum of the modules' own import times (ms), and how many modules were imported."""
    best, count = float("inf"), 0
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-X", "importtime", *args], env=env, capture_output=True, text=True,
                              check=False)
        rows = [line.split("|") for line in done.stderr.splitlines()
                if line.startswith("import time:") and "self [us]" not in line]
        total = sum(int(row[0].split(":")[1]) for row in rows) / 1000
        if total < best:
            best, count = total, len(rows)
    return best, count


def imports(env: dict[str, str], repeat: int, tmpdir: Path) -> None:
    one = tmpdir / "one.log"
    one.write_text(LINE + "\n")
    cases = {"python -c pass": ["-c", "pass"], "import click": ["-c", "import click"],
             "errdex explain ID --short": ["-m", "errdex", "explain", "2715d7d4", "--short", "--no-pager"],
             "errdex explain ID": ["-m", "errdex", "explain", "2715d7d4", "--no-pager"],
             "errdex explain LINE": ["-m", "errdex", "explain", LINE, "--no-pager"],
             "errdex match one line": ["-m", "errdex", "match", str(one), "-q"]}
    for args in cases.values():  # fill the caches (records, patterns, bytecode) first
        subprocess.run([sys.executable, *args], env=env, capture_output=True, check=False)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    measured = {name: import_ms(args, env, repeat) for name, args in cases.items()}
    base, click = measured["python -c pass"][0], measured["import click"][0]
    for name, (total, count) in measured.items():
        verdict = "" if not name.startswith("errdex") else \
            f"  {total - click:+6.1f} ms beyond click (<= 60 ms: {'met' if total <= 60 else 'MISSED'})"
        print(f"imports of {name:<26} {total:7.1f} ms {count:4} modules  {total / base:5.2f}x -c pass{verdict}")


def loader_check(files: int, repeat: int, tmpdir: Path) -> None:
    root, cache = tmpdir / "records", tmpdir / "check-cache"
    cache.mkdir()
    for index in range(files):
        folder = root / f"owner{index % 5}" / f"repo{index % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"r{index}.json").write_bytes(b"{}")
    past = time.time() - 3600
    for walked, _, _ in os.walk(root):
        os.utime(walked, (past, past))
    file_state.records_fingerprint([root], cache)  # writes the manifest
    timings = {}
    for name, where in (("full check", None), ("manifest", cache)):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            file_state.records_fingerprint([root], where)
            best = min(best, time.perf_counter() - start)
        timings[name] = best
    print(f"loader cache check at {files:,} files: full {timings['full check']:.3f} s, manifest "
          f"{timings['manifest']:.4f} s ({timings['full check'] / max(timings['manifest'], 1e-6):,.0f}x faster)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        env = {**os.environ, "ERRDEX_CACHE_DIR": str(tmpdir / "cache")}
        imports(env, args.repeat, tmpdir)
        if args.files:
            loader_check(args.files, args.repeat, tmpdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
