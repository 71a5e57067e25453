"""Benchmark: which literal the matcher looks for first, compared in one run.

Run: .venv/bin/python -m tests.benchmarks.bench_prefilter [--records N] [--lines N]

For N generated records it compiles a hyperscan literal database from each
pattern's longest required literal (the obvious choice) and from each
pattern's rarest piece (errdex.match.prefilter.choose_keys), then scans the
same corpus as bench_match (Loghub lines plus about 1% rendered error
messages) with both, and prints compile time, scan time, candidate hits and
the ratios.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import hyperscan

from errdex.match.prefilter import choose_keys
from errdex.patterns import required_literals
from tests.benchmarks.bench_match import corpus
from tests.benchmarks.generate import generate


def measure(keys: list[bytes], data: bytes) -> tuple[float, float, int]:
    unique = list(dict.fromkeys(keys))
    start = time.perf_counter()
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=unique, ids=list(range(len(unique))), flags=[0] * len(unique), literal=True)
    compiled = time.perf_counter() - start
    hits = [0]

    def on_hit(*_: object) -> None:
        hits[0] += 1

    step = 8 << 20
    start = time.perf_counter()
    for offset in range(0, len(data), step):
        database.scan(data[offset : offset + step], match_event_handler=on_hit)
    return compiled, time.perf_counter() - start, hits[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    envelopes = generate(args.records)
    literals = [[p.encode() for p in required_literals(e["record"]["messagePattern"])] for e in envelopes]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "corpus.log"
        corpus(log, args.lines, envelopes)
        data = log.read_bytes()
    longest = [max(pieces, key=len) for pieces in literals]
    start = time.perf_counter()
    rarest = choose_keys(literals)
    choosing = time.perf_counter() - start
    if any(key is None for key in rarest):
        raise SystemExit("a generated pattern got no key")
    print(f"{args.records:,} records, {len(data) / 1e6:,.0f} MB; choosing the rarest pieces took {choosing:.2f} s")
    results = {}
    for name, keys in (("longest literal", longest), ("rarest piece", rarest)):
        compiled, scanned, hits = results[name] = measure(keys, data)  # type: ignore[arg-type]  # no key is None: checked above
        print(f"{name:16}: compile {compiled:6.2f} s   scan {scanned:6.3f} s "
              f"({len(data) / 1e6 / scanned:7.0f} MB/s)   {hits:,} hits")
    (c1, s1, _), (c2, s2, _) = results["longest literal"], results["rarest piece"]
    print(f"rarest piece vs longest literal: compile {c1 / c2:.1f}x faster, scan {s1 / s2:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
