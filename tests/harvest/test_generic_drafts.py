"""Drafts that hold on code they were never tuned on: every draft of real trees passes ``validate``, and no
draft takes the top-1 of a fifth of a real log's lines while being right on none.

``data/java-loggers`` is a small Java tree written for these idioms (loggers of other classes, nested and
anonymous classes, constant-only messages, a message ending ``":\\n"`` before the exception, addresses, a
host:port, an IPv6 address and a path with a drive letter in holes); ``run.log`` is what it printed when
compiled with javac 17 and run (``java -cp out org.acme.net.NameNode``): its ``Log`` prints the class and line
of its caller as log4j's ``%C{1}@%L`` does, from the JVM's own stack trace.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from errdex.checks.config import ValidationConfig
from errdex.checks.runner import validate
from errdex.harvest.run import harvest
from errdex.match import load
from tests.harvest.truth import Expected, score, shared_data

DATA = Path(__file__).resolve().parent / "data" / "java-loggers"
#: Log line -> the statement that wrote it, read from the code (the lines after line 9 and the last two are
#: the exception's text, which the tree's Log prints on the lines after the message).
JAVA_TRUTH = {
    1: ("NameNode.java", 12), 2: ("NameNode.java", 13), 3: ("NameNode.java", 14), 4: ("DataNode.java", 15),
    5: ("DataNode.java", 16), 6: ("DataNode.java", 48), 7: ("DataNode.java", 49), 8: ("DataNode.java", 23),
    9: ("DataNode.java", 30), 11: ("DataNode.java", 37), 12: ("DataNode.java", 37), 13: ("Backup.java", 19),
    14: ("Backup.java", 20), 15: ("Backup.java", 26), 16: ("NameNode.java", 23),
}
#: Constant-only messages (a version, "1"): too generic to draft, so no record can be right on their lines.
TOO_GENERIC_LINES = {1, 2}


def _java_records(tmp_path: Path) -> Path:
    out = tmp_path / "records.jsonl"
    harvest(DATA / "src", repo="acme/acme", sha="0" * 40, bundle=out, log_levels="all",
            exclude=["org/acme/util"])  # the logger's own print is not a message of the tree
    return out


def fifth_offenders(records: Path, lines: list[str], right: dict[int, tuple[str, int]]) -> list[str]:
    """Records top-1 on a fifth of ``lines`` or more (numbered from 1) and right on fewer than half of those
    (``right``: line number -> the file, by its end, and line that wrote it)."""
    kb = load([records], partial=True)
    tops: Counter[str] = Counter()
    rights: Counter[str] = Counter()
    shown = {}
    for number, line in enumerate(lines, 1):
        matches = kb.match(line)
        if not matches:
            continue
        record = matches[0].record
        tops[record["id"]] += 1
        shown[record["id"]] = f"{record['filePath']}:{record['lineNumber']} {record['messagePattern']!r}"
        truth = right.get(number)
        path = record["filePath"]
        if truth is not None and (path == truth[0] or path.endswith("/" + truth[0])) \
                and record["lineNumber"] == truth[1]:
            rights[record["id"]] += 1
    return [f"{shown[i]} top-1 on {n} of {len(lines)} lines" for i, n in tops.items()
            if n * 5 >= len(lines) and rights[i] * 2 < n]


def test_java_loggers_of_other_classes_nested_classes_and_addresses_trace_top_1(tmp_path: Path) -> None:
    records = _java_records(tmp_path)
    raw = (DATA / "run.log").read_text(encoding="utf-8").split("\n")
    expected = [Expected(n, raw[n - 1], ((path, line, line),)) for n, (path, line) in JAVA_TRUTH.items()
                if n not in TOO_GENERIC_LINES]
    result = score(records, expected)
    assert result.rate == 1.0, result.summary()
    kb = load([records], partial=True)
    assert all(not kb.match(raw[n - 1]) for n in TOO_GENERIC_LINES)


def test_no_java_draft_takes_a_fifth_of_the_lines_while_wrong_on_most(tmp_path: Path) -> None:
    lines = (DATA / "run.log").read_text(encoding="utf-8").splitlines()
    assert fifth_offenders(_java_records(tmp_path), lines, JAVA_TRUTH) == []


def test_the_java_log_is_what_the_tree_prints(tmp_path: Path) -> None:
    """run.log again from the tree, when a JDK is here: the truth's lines and classes are the JVM's."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no JDK (javac and java) on PATH")
    sources = sorted(str(p) for p in (DATA / "src").rglob("*.java"))
    subprocess.run([javac, "-d", str(tmp_path / "out"), *sources], check=True, capture_output=True, timeout=120)
    done = subprocess.run([java, "-cp", str(tmp_path / "out"), "org.acme.net.NameNode"], check=True,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == (DATA / "run.log").read_text(encoding="utf-8")


def _extract(repo: Path, rev: str, paths: list[str], into: Path) -> Path:
    for path in paths:
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), "show",
                                           f"{rev}:{path}"], check=True, capture_output=True).stdout)
    return into


def test_every_draft_of_real_trees_passes_validate(tmp_path: Path) -> None:
    """requests whole (Python), and the real C files whose drafts EDX123 rejected, with the headers that
    declare their sinks: redis 7.0.15's module.c (``%s_%s:%I``), nginx 1.22.1's userid filter
    (``userid cookie "%V=%08XD%08XD%08XD%08XD" was reset``)."""
    data = shared_data()
    c_tree = tmp_path / "c"
    _extract(data / "repos" / "redis.git", "7.0.15", ["src/module.c", "src/sds.h"], c_tree)
    _extract(data / "repos" / "nginx.git", "release-1.22.1",
             ["src/http/modules/ngx_http_userid_filter_module.c", "src/core/ngx_log.h"], c_tree)
    bundles = [tmp_path / "requests.jsonl", tmp_path / "c.jsonl"]
    harvest(data / "repos" / "requests.git", repo="psf/requests", rev="v2.34.2", bundle=bundles[0],
            log_levels="all")
    harvest(c_tree, repo="acme/c", sha="0" * 40, bundle=bundles[1], log_levels="all")
    for bundle in bundles:
        assert bundle.read_bytes().count(b"\n") > 5
        report = validate([bundle], config=ValidationConfig())
        errors = [f"{f.code} {f.record_id}: {f.message}" for f in report.findings if f.severity == "error"]
        assert errors == [], bundle.name
