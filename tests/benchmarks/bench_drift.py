"""Benchmark: `errdex drift` of the whole OpenSSH harvest across one tag, against the obvious alternative.

Harvests OpenSSH at V_6_6_P1 (every log level, the sshd sinks) into a temporary bundle, then times
:func:`errdex.drift.run.drift` to V_7_4_P1 (target: under 10 s). In the same run, the obvious alternative:
harvest V_7_4_P1 afresh and pair each record with the first unclaimed site writing the same message text.
Both are scored against the diff oracle (:mod:`tests.drift.oracle`): of the records whose call line git's diff
leaves untouched, how many land on exactly the mapped line.

Run: PYTHONPATH=toolkit:. .venv/bin/python -m tests.benchmarks.bench_drift
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from errdex.drift.run import drift
from errdex.harvest.run import harvest, harvest_sites
from tests.drift.oracle import FileDiff, diff_lines

ROOT = Path(__file__).resolve().parents[2]
REPO = ROOT.parent / "shared" / "data" / "repos" / "openssh-portable.git"
CONFIG = ROOT / "examples" / "harvest" / "openssh-sshd.toml"
OLD, NEW = "V_6_6_P1", "V_7_4_P1"
TARGET_S = 10.0


def _by_message(records: list[dict[str, Any]]) -> dict[str, tuple[str, int] | None]:
    """The alternative: a fresh harvest of NEW, each record paired with the first free site of its message."""
    _, pairs, _ = harvest_sites(REPO, repo="openssh/openssh-portable", rev=NEW, log_levels="all", config=CONFIG)
    free: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for site, draft in pairs:
        free[draft["errorMessage"]].append((site.path, site.line))
    return {record["id"]: (free[record["errorMessage"]].pop(0) if free.get(record["errorMessage"]) else None)
            for record in records}


def _score(found: dict[str, tuple[str, int] | None], records: list[dict[str, Any]],
           files: dict[str, FileDiff]) -> tuple[int, int]:
    exact = untouched = 0
    for record in records:
        path, line = record["filePath"], record["lineNumber"]
        diff = files.get(path)
        want = (path, line) if diff is None else None if (mapped := diff.untouched(line)) is None else (
            diff.new_path, mapped)
        if want is not None:
            untouched += 1
            exact += found.get(record["id"]) == want
    return exact, untouched


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        bundle = Path(folder) / "openssh.jsonl"
        harvest(REPO, repo="openssh/openssh-portable", rev=OLD, bundle=bundle, config=CONFIG, log_levels="all")
        records = [json.loads(line)["record"] for line in bundle.read_text(encoding="utf-8").splitlines()]
        started = time.monotonic()
        report = drift(REPO, rev=NEW, records=[bundle], config=CONFIG)
        drift_s = time.monotonic() - started
        started = time.monotonic()
        naive = _by_message(records)
        naive_s = time.monotonic() - started
    files = diff_lines(REPO, OLD, NEW)
    ours = {item.record_id: None if item.new is None else (item.new.path, item.new.line) for item in report.drifted}
    exact, untouched = _score(ours, records, files)
    naive_exact, _ = _score(naive, records, files)
    print(f"records: {len(records)}, on lines the diff leaves untouched: {untouched}")
    print(f"drift {OLD} -> {NEW}: {drift_s:.2f} s (target < {TARGET_S:.0f} s), exact {exact}/{untouched} "
          f"({exact / untouched:.2%})")
    print(f"fresh harvest + pairing by message text: {naive_s:.2f} s, exact {naive_exact}/{untouched} "
          f"({naive_exact / untouched:.2%})")
    print(f"time ratio drift / alternative: {drift_s / naive_s:.2f}")


if __name__ == "__main__":
    main()
