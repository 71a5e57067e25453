"""Snapshot what every command prints and writes, to show a refactoring changed no behaviour.

Runs each command of the CLI on the bundled dataset and on a generated benchmark corpus (plus the real
Loghub and example logs), and writes, per command, its exit code, standard output, standard error and
the SHA-256 of every file it wrote into one folder. Two snapshots taken at two commits compare with
``diff -r``:

    PYTHONPATH=toolkit .venv/bin/python -m tests.benchmarks.outputs /tmp/before
    git checkout NEW && PYTHONPATH=toolkit .venv/bin/python -m tests.benchmarks.outputs /tmp/after
    diff -r /tmp/before /tmp/after && echo identical

Times that legitimately differ between runs (durations printed by ``prove`` and ``site build``) are
masked, and so is the fake server's ledger in ``prove --format json`` (how many times a client polled
before a deadline depends on the machine's load); nothing else is: the point is byte-identical output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.benchmarks.generate import generate, write_dataset

ROOT = Path(__file__).resolve().parents[2]
LOGHUB = ROOT.parent / "shared" / "data" / "loghub"
DURATION = re.compile(r"[ \t]*\b\d+(\.\d+)?\s?(ms|s)\b[ \t]*|\"(durationMs|elapsedMs|ms|seconds)\": \d+(\.\d+)?")


def _tree_digest(folder: Path) -> str:
    lines = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(folder)}")
    return "\n".join(lines) + "\n"


def _without(value: object, key: str) -> object:
    """``value`` with every ``key`` removed, at any depth."""
    if isinstance(value, dict):
        return {k: _without(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [_without(v, key) for v in value]
    return value


class Snapshot:
    def __init__(self, out: Path, work: Path) -> None:
        self.out, self.work = out, work
        self.env = dict(os.environ, SOURCE_DATE_EPOCH="1790000000", ERRDEX_CACHE_DIR=str(work / "cache"),
                        NO_COLOR="1", COLUMNS="100", TZ="UTC")
        self.count = 0

    def run(self, name: str, *args: str, stdin: bytes | None = None, mask: bool = False,
            wrote: Path | None = None, drop: str | None = None) -> None:
        result = subprocess.run([sys.executable, "-m", "errdex", *args], cwd=self.work, env=self.env,
                                input=stdin, capture_output=True, timeout=900)
        stdout = result.stdout.decode("utf-8", "replace").replace(str(self.work), "<work>")
        stderr = result.stderr.decode("utf-8", "replace").replace(str(self.work), "<work>")
        if drop is not None:
            stdout = json.dumps(_without(json.loads(stdout), drop), indent=2) + "\n"
        if mask:
            stdout, stderr = DURATION.sub(" <time> ", stdout), DURATION.sub(" <time> ", stderr)
        text = f"$ errdex {' '.join(args)}\nexit {result.returncode}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
        if wrote is not None and wrote.exists():
            text += "\n--- wrote\n" + (_tree_digest(wrote) if wrote.is_dir() else
                                       hashlib.sha256(wrote.read_bytes()).hexdigest() + "\n")
        self.count += 1
        (self.out / f"{self.count:03d}-{name}.txt").write_text(text, encoding="utf-8")


def snapshot(out: Path, *, corpus_size: int = 2000) -> int:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="errdex-outputs-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "records", work / "records")
        shutil.copytree(ROOT / "examples", work / "examples")
        corpus = work / "corpus"
        write_dataset(corpus, generate(corpus_size))
        s = Snapshot(out, work)
        log = "examples/worker.log"
        ssh = str(LOGHUB / "OpenSSH" / "OpenSSH_2k.log")
        for fmt in ("text", "json", "sarif", "github"):
            s.run(f"validate-{fmt}", "validate", "records", "--format", fmt)
        s.run("validate-list", "validate", "--list-checks")
        s.run("validate-strict", "validate", "records", "--strict")
        s.run("validate-corpus", "validate", "corpus", "--format", "json")
        s.run("fmt-check", "fmt", "--check", "records")
        s.run("fmt-corpus", "fmt", "--check", "corpus")
        for version in ("2", "3"):
            s.run(f"schema-{version}", "schema", "--version", version)
        s.run("schema", "schema")
        for fmt in ("text", "jsonl", "json"):
            s.run(f"match-{fmt}", "match", log, "--format", fmt)
        s.run("match-summary", "match", log, "--summary")
        s.run("match-stdin", "match", "-", stdin=(work / log).read_bytes())
        s.run("match-jobs", "match", log, "--jobs", "2", "--format", "jsonl")
        s.run("match-fail-on", "match", log, "--fail-on", "error", "-q")
        if Path(ssh).exists():
            s.run("match-loghub", "match", ssh, "--summary")
        s.run("match-corpus", "match", "--records", "corpus", log, "--format", "jsonl")
        first = (work / log).read_text(encoding="utf-8").splitlines()
        chosen = [line for line in first if "rror" in line or "fail" in line][:12] + first[:2]
        for number, line in enumerate(chosen):
            s.run(f"explain-line-{number}", "explain", line)
            s.run(f"explain-line-json-{number}", "explain", line, "--format", "json")
        ids = sorted(p.stem for p in (work / "records").glob("*/*/*.json"))
        for slug in ids[:6]:
            s.run(f"explain-{slug[:40]}", "explain", slug)
        s.run("index", "index", "--db", "idx.duckdb", "--format", "json")
        s.run("query", "query", "--db", "idx.duckdb", "--format", "csv",
              "select id, slug, severity, status from records order by id")
        s.run("query-json", "query", "--format", "json", "select count(*) as n from records")
        s.run("index-corpus", "index", "--records", "corpus", "--db", "corpus.duckdb")
        s.run("query-corpus", "query", "--db", "corpus.duckdb", "--format", "csv",
              "select severity, count(*) from records group by 1 order by 1")
        s.run("export-jsonl", "export", "--to", "jsonl", "--output", "out.jsonl", wrote=work / "out.jsonl")
        s.run("export-stdout", "export", "--to", "jsonl", "--output", "-")
        s.run("export-corpus", "export", "--records", "corpus", "--to", "jsonl", "--output", "corpus.jsonl",
              wrote=work / "corpus.jsonl")
        s.run("site", "site", "build", "--records", "records", "--out", "site-out", wrote=work / "site-out", mask=True)
        s.run("site-corpus", "site", "build", "--records", "corpus", "--out", "site-corpus",
              wrote=work / "site-corpus", mask=True)
        s.run("prove-text", "prove", "--records", "records", mask=True)
        s.run("prove-json", "prove", "--records", "records", "--format", "json", mask=True, drop="ledger")
        s.run("diff-same", "diff", "records", "records")
        s.run("diff-corpus", "diff", "records", "corpus.jsonl", "--format", "json")
        shutil.copytree(work / "records", work / "rel")
        s.run("release-check", "release", "--records", "rel", "--check", "--version", "2026-12-01T00:00:00Z")
        s.run("release", "release", "--records", "rel", "--out", "dist", "--version", "2026-12-01T00:00:00Z",
              "--changelog", "CHANGES.md", wrote=work / "dist")
        s.run("release-tree", "diff", "records", "rel", wrote=work / "rel")
        shutil.copytree(work / "records", work / "mig")
        s.run("migrate-check", "migrate", "--records", "mig", "--to", "2", "--check")
        s.run("migrate-down", "migrate", "--records", "mig", "--to", "2", "--allow-loss", wrote=work / "mig")
        s.run("migrate-up", "migrate", "--records", "mig", "--to", "3", wrote=work / "mig")
        (work / "imp").mkdir()
        s.run("import-check", "import", "corpus.jsonl", "--records", "imp", "--check", "--format", "json")
        s.run("import", "import", "corpus.jsonl", "--records", "imp", wrote=work / "imp")
        s.run("bad-usage", "match", "--records", "nowhere", log)
        s.run("bad-explain", "explain", "no-such-record")
    return s.count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--corpus", type=int, default=2000, help="generated records (default 2000)")
    args = parser.parse_args()
    count = snapshot(args.out, corpus_size=args.corpus)
    print(f"{count} command outputs in {args.out}")


if __name__ == "__main__":
    main()
