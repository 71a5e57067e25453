"""The fast engine, DuckDB's SQL path and a reference implementation agree on matches and groups."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import errdex
from errdex.index import SQL_MAX_GROUPS, build_index
from errdex.match.engine import Matcher
from errdex.patterns import literal_chars, python_regex, to_python, variable_parts
from errdex.records.loader import load_records

RECORDS = [item.record for item in load_records()]


@pytest.fixture(scope="module")
def kb() -> errdex.KnowledgeBase:
    return errdex.load()


@pytest.fixture(scope="module")
def sql(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    db = build_index(db=tmp_path_factory.mktemp("index") / "x.duckdb").path
    return duckdb.connect(str(db), read_only=True)


def reference(line: str) -> list[tuple[str, tuple[str | None, ...]]]:
    """Every record whose pattern Python's re finds in the line, ranked as documented."""
    found = []
    for record in RECORDS:
        hit = python_regex(record["messagePattern"]).search(line)
        if hit:
            key = (-literal_chars(record["messagePattern"]), variable_parts(record["messagePattern"]), record["id"])
            found.append((key, record["id"], hit.groups()))
    return [(rid, groups) for _, rid, groups in sorted(found)]


def fast(kb: errdex.KnowledgeBase, line: str) -> list[tuple[str, tuple[str | None, ...]]]:
    return [(m.record["id"], m.groups) for m in kb.matcher.match(line)]


def by_sql(con: duckdb.DuckDBPyConnection, line: str) -> list[tuple[str, tuple[str, ...]]]:
    rows = con.execute("SELECT record_id, groups FROM errdex_match($1) ORDER BY rank", [line]).fetchall()
    return [(rid, tuple(groups)) for rid, groups in rows]


def sql_view(groups: tuple[str | None, ...]) -> tuple[str, ...]:
    """DuckDB gives '' for a group that did not take part, and at most nine groups."""
    return tuple("" if g is None else g for g in groups[:SQL_MAX_GROUPS])


messages = st.sampled_from(RECORDS).flatmap(
    lambda record: st.from_regex(to_python(record["messagePattern"]), fullmatch=True)
).filter(lambda message: "\n" not in message and "\r" not in message)  # a log line never holds a line break
noise = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Zl", "Zp", "Cc")), max_size=30)
lines = st.tuples(noise, st.lists(messages, max_size=3), noise).map(lambda t: t[0] + " ".join(t[1]) + t[2])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(line=lines)
def test_engines_agree(kb: errdex.KnowledgeBase, sql: duckdb.DuckDBPyConnection, line: str) -> None:
    expected = reference(line)
    assert fast(kb, line) == expected
    assert by_sql(sql, line) == [(rid, sql_view(groups)) for rid, groups in expected]


def test_every_record_message_agrees(kb: errdex.KnowledgeBase, sql: duckdb.DuckDBPyConnection) -> None:
    for record in RECORDS:
        line = f"2026-11-30 ERROR {record['errorMessage']} (job 7)"
        expected = reference(line)
        assert expected and expected[0][0] == record["id"]
        assert fast(kb, line) == expected
        assert by_sql(sql, line) == [(rid, sql_view(groups)) for rid, groups in expected]


def test_sql_matches_a_table_of_logs_like_the_cli(kb: errdex.KnowledgeBase, sql: duckdb.DuckDBPyConnection) -> None:
    log = Path(__file__).resolve().parents[2] / "examples" / "worker.log"
    text = log.read_text(encoding="utf-8").splitlines()
    rows = sql.execute(
        "SELECT n, m.record_id FROM (SELECT unnest($1) AS message, generate_subscripts($1, 1) AS n) logs, "
        "errdex_match(logs.message) m WHERE m.rank = 1 ORDER BY n",
        [text],
    ).fetchall()
    cli: list[Any] = [(f.number, f.matches[0].record["id"]) for f in kb.match_lines(text)]
    assert rows == cli and len(rows) == 6


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(batch=st.lists(lines, min_size=1, max_size=6))
def test_scanning_many_lines_at_once_changes_nothing(kb: errdex.KnowledgeBase, batch: list[str]) -> None:
    block = "\n".join(batch).encode()
    at_once = {block.count(b"\n", 0, start): ms for start, _, ms in kb.matcher.match_block(block)}
    one_by_one = {i: kb.matcher.match(line) for i, line in enumerate(batch) if kb.matcher.match(line)}
    assert at_once == one_by_one


def test_anchors_hold_per_line_in_a_batch() -> None:
    records = [
        {"id": "0000000000000001", "messagePattern": "^start here", "errorMessage": "start here"},
        {"id": "0000000000000002", "messagePattern": "at the end$", "errorMessage": "at the end"},
        {"id": "0000000000000003", "messagePattern": "a\\nb", "errorMessage": "a\nb"},
    ]
    matcher = Matcher(records)
    batch = ["x start here", "start here", "at the end", "at the end x", "a", "b"]
    block = "\n".join(batch).encode()
    found = {block.count(b"\n", 0, start): [m.record["id"] for m in ms] for start, _, ms in matcher.match_block(block)}
    assert found == {1: ["0000000000000001"], 2: ["0000000000000002"]}
