"""Benchmark: `errdex harvest` on real trees and a generated one, against a plain text scan, in one run.

Harvests the OpenSSH (V_6_6_P1) and ZooKeeper (release-3.4.5) trees of ``../shared/data/repos`` and a
generated tree of about 1M source lines (C, Java, Python and Go files with log and throw sites), each with 1
and 2 processes, and prints source lines per second, the peak memory of the harvest process and the CPU
seconds it used (lines per CPU second do not depend on what else the shared machine runs). In the same
run, ``grep -rn`` for the sinks' names over the same files gives the floor of a plain text scan.

Run: PYTHONPATH=toolkit:. .venv/bin/python -m tests.benchmarks.bench_harvest [--lines 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPOS = ROOT.parent / "shared" / "data" / "repos"
SINKS = ["LOG", "error", "fatal", "logit", "verbose", "debug", "logger", "raise", "throw", "Errorf"]
TARGET_LINES_PER_S = 300_000
TARGET_BYTES = 1 << 30

_C = """#include <stdio.h>
static int step_{n}(int fd, const char *path) {{
\tif (fd < 0) {{
\t\terror("open %s failed for worker {n}: %d", path, fd);
\t\treturn -1;
\t}}
\tverbose("worker {n} opened %s", path);
\treturn 0;
}}
"""
_JAVA = """package gen;
public class Worker{n} {{
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Worker{n}.class);
    void run(int id) {{
        if (id < 0) {{
            throw new IllegalStateException("worker {n} got a negative id " + id);
        }}
        LOG.warn("worker {n} is slow: {{}} ms", id);
    }}
}}
"""
_PY = """import logging
logger = logging.getLogger(__name__)


def run_{n}(value):
    if value is None:
        raise ValueError(f"worker {n} has no value for {{value!r}}")
    logger.error("worker {n} failed with %s", value)
"""
_GO = """package gen

import "fmt"

func Run{n}(id int) error {{
\tif id < 0 {{
\t\treturn fmt.Errorf("worker {n}: negative id %d", id)
\t}}
\treturn nil
}}
"""


def generate_tree(root: Path, lines: int) -> int:
    """A tree of small files in four languages holding about ``lines`` source lines; the lines written."""
    rng = random.Random(7)
    written, n = 0, 0
    templates = [(".c", _C), (".java", _JAVA), (".py", _PY), (".go", _GO)]
    while written < lines:
        suffix, template = templates[n % 4]
        body = template.format(n=n) + "".join(f"// filler {rng.random()}\n" if suffix != ".py" else
                                              f"# filler {rng.random()}\n" for _ in range(40))
        folder = root / f"pkg{n // 500}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"worker{n}{suffix}").write_text(body, encoding="utf-8")
        written += body.count("\n")
        n += 1
    return written


def _measured(args: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (user and system, of the child and the workers it waited for), peak
    resident bytes of the child (and its children), and its stdout."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(args, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if status != 0:
        raise SystemExit(f"{' '.join(args)} failed ({status})")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, text


def _harvest(source: Path, jobs: int, extra: list[str], work: Path) -> tuple[float, float, int, int]:
    bundle = work / f"out-{jobs}.jsonl"
    bundle.unlink(missing_ok=True)
    seconds, cpu, peak, text = _measured([sys.executable, "-m", "errdex", "harvest", str(source), "--bundle",
                                     str(bundle), "--jobs", str(jobs), "--format", "json", "--log-levels", "all",
                                     *extra])
    return seconds, cpu, peak, int(json.loads(text)["lines"])


def _grep(folder: Path) -> float:
    pattern = "\\|".join(SINKS)
    started = time.perf_counter()
    subprocess.run(["grep", "-rn", pattern, str(folder)], stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def bench(name: str, source: Path, extra: list[str], tree: Path, work: Path) -> None:
    print(f"== {name}")
    lines = 0
    for jobs in (1, 2):
        seconds, cpu, peak, lines = _harvest(source, jobs, extra, work)
        rate = lines / seconds
        print(f"errdex harvest, {jobs} process(es): {lines:>9,} lines in {seconds:6.2f} s  {rate:>9,.0f} lines/s  "
              f"peak {peak / 2**20:6.0f} MiB  cpu {cpu:6.2f} s ({lines / max(cpu, 1e-9):>9,.0f} lines/cpu-s)")
    floor = _grep(tree)
    print(f"grep -rn for the sinks' names : {floor:6.2f} s  {lines / floor:>9,.0f} lines/s (a plain text scan)")
    print(f"target >= {TARGET_LINES_PER_S:,} lines/s with 2 processes, < 1 GiB: "
          f"{'met' if lines / seconds >= TARGET_LINES_PER_S and peak < TARGET_BYTES else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="lines of the generated tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-harvest-") as tmp:
        work = Path(tmp)
        for name, repo, rev, extra in (
                ("OpenSSH V_6_6_P1", "openssh-portable.git", "V_6_6_P1",
                 ["--repo", "openssh/openssh-portable", "--rev", "V_6_6_P1", "--config",
                  str(ROOT / "examples" / "harvest" / "openssh-sshd.toml")]),
                ("ZooKeeper release-3.4.5", "zookeeper.git", "release-3.4.5",
                 ["--repo", "apache/zookeeper", "--rev", "release-3.4.5"])):
            if not (REPOS / repo).is_dir():
                print(f"== {name}: skipped, {REPOS / repo} is missing")
                continue
            tree = work / repo
            tree.mkdir()
            archive = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(REPOS / repo), "archive", rev],
                                     capture_output=True, check=True).stdout
            with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
                tar.extractall(tree, filter="data")
            bench(name, REPOS / repo, extra, tree, work)
        generated = work / "generated"
        count = generate_tree(generated, args.lines)
        print(f"(generated tree: {count:,} lines)")
        bench("generated tree", generated, ["--repo", "bench/generated", "--sha", "0" * 40], generated, work)


if __name__ == "__main__":
    main()
