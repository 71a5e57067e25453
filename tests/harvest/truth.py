"""How well harvested records explain real logs: each line's top-1 record against the statement that wrote it.

The ground truth (``../shared/data/truth/``, read in place) says, per Loghub line, which source statement of
the upstream code wrote it: OpenSSH by event (a file and the span of the call, or null for lines PAM or
rsyslog wrote), ZooKeeper by line (the file and line log4j printed). A line is traced when the record that
ranks first for it names that file and a ``lineNumber`` inside that span.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.truth zookeeper RECORDS_FOLDER
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from errdex.match import load

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"


def shared_data() -> Path:
    """``../shared/data``; a skip with the reason when it is missing (a failure under CI=true)."""
    folder = Path(os.environ.get("ERRDEX_SHARED_DATA", SHARED))
    if not (folder / "truth").is_dir():
        reason = f"the shared real data is not at {folder} (set ERRDEX_SHARED_DATA)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return folder


@dataclass(frozen=True)
class Expected:
    """One log line and where its text was written (``spans``: any of these (file, first, last) is right)."""

    number: int
    line: str
    spans: tuple[tuple[str, int, int], ...]


@dataclass
class Score:
    traced: int = 0
    total: int = 0
    misses: list[tuple[Expected, str]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.traced / self.total if self.total else 0.0

    def summary(self, shown: int = 15) -> str:
        lines = [f"{self.traced} of {self.total} lines traced top-1 ({self.rate:.1%})"]
        reasons = Counter(reason for _, reason in self.misses)
        for (expected, reason) in self.misses[:shown]:
            where = ", ".join(f"{f}:{a}-{b}" for f, a, b in expected.spans)
            lines.append(f"  line {expected.number}: {reason}; wrote it: {where}; {expected.line[:140]}")
        if reasons:
            lines.append("  misses by reason: " + ", ".join(f"{r} {n}" for r, n in reasons.most_common()))
        return "\n".join(lines)


def openssh_expected(data: Path) -> list[Expected]:
    truth = json.loads((data / "truth" / "openssh-V_6_6_P1.json").read_text(encoding="utf-8"))
    raw = (data / truth["log"]).read_text(encoding="utf-8", errors="replace").splitlines()
    expected = []
    with (data / truth["structured"]).open(encoding="utf-8", errors="replace", newline="") as handle:
        for row in csv.DictReader(handle):
            spans = truth["events"].get(row["EventId"])
            if not spans:
                continue  # written by PAM or rsyslog, not by sshd
            number = int(row["LineId"])
            expected.append(Expected(number, raw[number - 1],
                                     tuple((s["file"], s["span"][0], s["span"][1]) for s in spans)))
    return expected


def zookeeper_expected(data: Path) -> list[Expected]:
    truth = json.loads((data / "truth" / "zookeeper-release-3.4.5.json").read_text(encoding="utf-8"))
    raw = (data / truth["log"]).read_text(encoding="utf-8", errors="replace").splitlines()
    return [Expected(int(number), raw[int(number) - 1], ((place["file"], place["line"], place["line"]),))
            for number, place in sorted(truth["lines"].items(), key=lambda item: int(item[0]))]


@cache
def _statements(path: Path) -> tuple[tuple[int, int], ...]:
    """The (first, last) lines of every simple statement of a Python file."""
    tree = ast.parse(path.read_bytes())
    return tuple((node.lineno, node.end_lineno or node.lineno) for node in ast.walk(tree)
                 if isinstance(node, ast.stmt) and not hasattr(node, "body"))


def python_span(root: Path, path: str, line: int) -> tuple[str, int, int] | None:
    """The statement of ``root`` holding ``path:line`` (the innermost), as (relative file, first, last)."""
    try:
        relative = Path(path).resolve().relative_to(root.resolve())
    except ValueError:
        return None
    spans = [(a, b) for a, b in _statements(Path(path)) if a <= line <= b]
    first, last = min(spans, key=lambda s: s[1] - s[0]) if spans else (line, line)
    return relative.as_posix(), first, last


def python_expected(log: Path, truth: Path, root: Path) -> tuple[list[Expected], int]:
    """The lines of a log written through Python's ``logging`` by the code under ``root`` (its truth: one JSON
    line per record, ``line``, ``path``, ``lineno``, and ``caller`` when the log call is a wrapper's whose
    message is its parameter: the caller's statement is right too), and how many lines other code wrote."""
    raw = log.read_text(encoding="utf-8", errors="replace").split("\n")  # as the handler counts lines
    expected, others = [], 0
    for row in map(json.loads, truth.read_text(encoding="utf-8").splitlines()):
        places = [(row["path"], row["lineno"]), *([tuple(row["caller"])] if row.get("caller") else [])]
        spans = tuple(span for p, n in places if (span := python_span(root, p, n)) is not None)
        if not spans:
            others += 1
            continue
        expected.append(Expected(row["line"], raw[row["line"] - 1], spans))
    return expected, others


def score(records: Path, expected: list[Expected]) -> Score:
    """Match each expected line against the records and compare its top-1 record with the truth."""
    kb = load([records], partial=True)
    result = Score()
    for item in expected:
        result.total += 1
        matches = kb.match(item.line)
        if not matches:
            result.misses.append((item, "no record matched"))
            continue
        top = matches[0].record
        path, number = top.get("filePath", ""), top.get("lineNumber", 0)
        if any(path == f or path.endswith("/" + f) for f, _, _ in item.spans):
            if any(a <= number <= b and (path == f or path.endswith("/" + f)) for f, a, b in item.spans):
                result.traced += 1
                continue
            result.misses.append((item, f"right file, line {number}"))
        else:
            result.misses.append((item, f"top-1 is {path}:{number}"))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system", choices=["openssh", "zookeeper"])
    parser.add_argument("records", type=Path)
    args = parser.parse_args()
    data = Path(os.environ.get("ERRDEX_SHARED_DATA", SHARED))
    expected = (openssh_expected if args.system == "openssh" else zookeeper_expected)(data)
    print(score(args.records, expected).summary(shown=40))


if __name__ == "__main__":
    main()
