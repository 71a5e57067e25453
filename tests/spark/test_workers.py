"""On Spark's workers: one knowledge base per Python worker, reused by its tasks; and a property test against
the CLI's matching on small generated patterns and lines."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.match import KnowledgeBase
from errdex.match.run import match_files
from errdex.spark.shipped import ship

WORDS = ["disk", "full", "error", "sda", "timeout", "é", "ms", "a"]


def _probe(key: str, data: bytes, batches: Iterator[Any]) -> Iterator[Any]:
    import pyarrow as pa  # here: runs on a worker

    from errdex.spark import shipped

    for _ in batches:
        shipped.knowledge(data, key)
        yield pa.RecordBatch.from_pylist([{"pid": os.getpid(), "builds": shipped.builds[key]}])


def test_each_python_worker_builds_the_matcher_once_for_all_its_tasks(spark: Any) -> None:
    import functools

    sent = ship([{"id": "r1", "slug": "s", "repo": "o/r", "errorClass": "E", "severity": "error",
                  "messagePattern": "disk ([a-z]+) is full"}])
    df = spark.range(0, 8, numPartitions=8)
    rows = df.mapInArrow(functools.partial(_probe, sent.key, sent.data), "pid long, builds long").collect()
    assert len(rows) == 8
    assert {r["builds"] for r in rows} == {1}  # never built again by a later task of the same worker
    assert len({r["pid"] for r in rows}) < 8  # workers are reused across tasks


_piece = st.sampled_from([*WORDS, " ", ": "])
_pattern = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from([" ", "([0-9]+)", "(.*?)", " ([a-z]+)"])),
                    min_size=1, max_size=4).map("".join).filter(lambda p: any(w in p for w in WORDS))
_line = st.lists(st.one_of(_piece, st.integers(0, 999).map(str)), max_size=8).map("".join)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(patterns=st.lists(_pattern, min_size=1, max_size=5), lines=st.lists(_line, min_size=1, max_size=12))
def test_spark_matches_generated_lines_as_the_cli_does(spark: Any, tmp_path: Path, patterns: list[str],
                                                       lines: list[str]) -> None:
    from errdex.spark import match
    from errdex.spark.files import read_inputs

    records = [{"id": f"r{i}", "slug": f"s{i}", "repo": "o/r", "errorClass": f"E{i}", "severity": "error",
                "messagePattern": p} for i, p in enumerate(patterns)]
    log = tmp_path / f"gen-{abs(hash((tuple(patterns), tuple(lines))))}.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = {m.number: [x.as_dict() for x in m.matches]
                for m in match_files([log], kb=KnowledgeBase(records), unclassified=False, jobs=1)}
    rows = match(read_inputs(spark, [log], column="line"), "line", records=records, all_matches=True).collect()
    got = {n: [{k: x[k] for k in ("id", "slug", "repo", "errorClass", "severity", "score", "span", "groups")}
               for x in row["errdex"]]
           for n, row in enumerate(rows, start=1) if row["errdex"]}
    assert got == expected
