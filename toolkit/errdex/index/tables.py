"""What the index holds: its tables, columns and SQL macros, and how records become rows."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import duckdb

from errdex import patterns
from errdex._version import __version__
from errdex.records.loader import LoadedRecord
from errdex.records.placement import (
    FOREIGN_STANDING,
    PROGRAM_TAG,
    build_programs,
    origin_pattern,
    placement_pattern,
    standing,
)
from errdex.records.vocabulary import status_of

__all__ = ["INDEX_FORMAT", "SQL_MAX_GROUPS"]


INDEX_FORMAT = 8  # 6: the placement column, read by errdex_match to break a tie; 7: programs and standing;
#: 8: origin (a line naming the record's module or class)

#: Columns of the ``records`` table computed from a record besides its own scalar fields.
_EXTRA = [
    ("dataset_version", "VARCHAR"), ("source_path", "VARCHAR"), ("pattern_re2", "VARCHAR"),
    ("literal_chars", "INTEGER"), ("variable_parts", "INTEGER"), ("group_count", "INTEGER"),
    ("prefilter", "VARCHAR"), ("key_word", "VARCHAR"), ("placement", "VARCHAR"), ("origin", "VARCHAR"),
    ("programs", "VARCHAR[]"),
    ("standing", "INTEGER"),
]
_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]+(?![A-Za-z0-9_])")
#: DuckDB's regexp_extract reaches groups 1-9 only: errdex_match returns at most nine groups.
SQL_MAX_GROUPS = 9


def _key_word(literals: list[str]) -> str | None:
    """The longest word that stands whole inside a literal: every matching line has it as a token."""
    words = [w for literal in literals for w in _inner_words(literal)]
    return max(words, key=lambda w: (len(w), w)) if words else None


def _inner_words(literal: str) -> list[str]:
    found = []
    for match in _WORD.finditer(literal):
        if match.start() > 0 and match.end() < len(literal):
            found.append(match.group())
    return found


def _match_macro(max_groups: int) -> str:
    """The ``errdex_match(line)`` table macro: the records whose pattern occurs in the line, ranked as
    :func:`errdex.match.placement.prefer_placed` ranks them: a record whose ``programs`` do not hold the
    program the line's syslog tag names after every other, then a foreign one (test code, another platform:
    ``standing`` from :data:`~errdex.records.placement.FOREIGN_STANDING`), then literal characters, variable
    parts, then among equals the ones whose ``placement`` the line holds, whose ``origin`` it holds, whose
    ``programs`` hold the line's, by ``standing``, then id."""
    tag = f"lower(regexp_extract(line, '{PROGRAM_TAG}', 1))"
    extracts = ", ".join(f"regexp_extract(line, r.pattern_re2, {i})" for i in range(1, max_groups + 1))
    groups = f"[{extracts}][1:least(r.group_count, {max_groups})]"
    return f"""
CREATE MACRO errdex_match(line) AS TABLE
SELECT record_id, slug, repo, error_class, severity, score, groups,
       row_number() OVER (ORDER BY excluded, standing >= {FOREIGN_STANDING}, literal_chars DESC, variable_parts,
                          placed DESC, named DESC, agrees DESC, standing, record_id) AS rank
FROM (
  SELECT r.id AS record_id, r.slug, r.repo, r.error_class, r.severity,
         r.literal_chars * 1000 - r.variable_parts AS score,
         {groups} AS groups,
         r.literal_chars, r.variable_parts, r.standing,
         r.placement IS NOT NULL AND regexp_matches(line, r.placement) AS placed,
         r.origin IS NOT NULL AND regexp_matches(line, r.origin) AS named,
         {tag} <> '' AND len(r.programs) > 0 AND NOT list_contains(r.programs, {tag}) AS excluded,
         {tag} <> '' AND list_contains(r.programs, {tag}) AS agrees
  FROM records r
  WHERE r.pattern_re2 IS NOT NULL
    AND r.status = 'active'
    AND (r.key_word IS NULL
         OR r.key_word IN (SELECT unnest(regexp_split_to_array(line, '[^A-Za-z0-9_]+'))))
    AND contains(line, r.prefilter)
    AND regexp_matches(line, r.pattern_re2)
)
ORDER BY rank
"""


@functools.cache
def _scalars() -> list[tuple[str, str]]:
    """The ``records`` table's columns that hold a record's own fields: every scalar field of the models, in
    format order except that ``slug`` comes before ``repo`` (the table's column order since format 1)."""
    # start-up: the models load only when an index is built
    from errdex.records.columns import scalar_columns

    columns = scalar_columns()
    order = ["id", "slug", "repo", *(name for name in columns if name not in ("id", "slug", "repo"))]
    return [(name, "VARCHAR PRIMARY KEY" if name == "id" else columns[name]) for name in order]


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)




def _columns(records: Sequence[LoadedRecord]) -> dict[str, list[Any]]:
    columns: dict[str, list[Any]] = {name: [] for name, _ in _scalars()}
    columns.update({name: [] for name, _ in _EXTRA})
    for item in records:
        record = item.record
        for name, _ in _scalars():
            columns[name].append(status_of(record) if name == "status" else record.get(name))
        pattern = patterns.normalize_escapes(record["messagePattern"])  # as the CLI matcher reads it
        portable = patterns.refusal(pattern) is None  # the CLI matcher's rule
        every_line = portable and patterns.matches_every_line(pattern)  # matched on every line, as the CLI does
        columns["dataset_version"].append(item.dataset_version)
        columns["source_path"].append(item.path)
        columns["pattern_re2"].append(patterns.to_re2(pattern, allow_empty=every_line) if portable else None)
        columns["literal_chars"].append(patterns.literal_chars(pattern) if portable else 0)
        columns["variable_parts"].append(patterns.variable_parts(pattern) if portable else 0)
        literals = patterns.required_literals(pattern) if portable and not every_line else []
        columns["group_count"].append(patterns.group_count(pattern) if portable else 0)
        columns["prefilter"].append(max(literals, key=len) if literals else "")
        columns["key_word"].append(_key_word(literals))
        columns["placement"].append(placement_pattern(record))
        columns["origin"].append(origin_pattern(record))
        columns["programs"].append(build_programs(record))
        columns["standing"].append(standing(record))
    return columns


def _insert(con: duckdb.DuckDBPyConnection, table: str, columns: dict[str, list[Any]]) -> None:
    names = list(columns)
    if not columns[names[0]]:
        return
    selects = ", ".join(f"unnest(${i + 1}) AS c{i}" for i in range(len(names)))
    con.execute(f"INSERT INTO {table} SELECT * FROM (SELECT {selects})", [columns[n] for n in names])


def write_tables(con: duckdb.DuckDBPyConnection, records: Sequence[LoadedRecord], digest: str) -> None:
    definitions = ", ".join(f"{_snake(name)} {kind}" for name, kind in [*_scalars(), *_EXTRA])
    con.execute(f"CREATE TABLE records ({definitions})")
    con.execute("CREATE TABLE solutions (record_id VARCHAR, position INTEGER, text VARCHAR)")
    con.execute("CREATE TABLE prevention_tips (record_id VARCHAR, position INTEGER, text VARCHAR)")
    con.execute("CREATE TABLE tags (record_id VARCHAR, position INTEGER, tag VARCHAR)")
    con.execute(
        "CREATE TABLE scenarios (record_id VARCHAR, position INTEGER, scenario_id VARCHAR, summary VARCHAR, "
        "operation VARCHAR, outcome VARCHAR, error_class VARCHAR, definition JSON)"
    )
    con.execute("CREATE TABLE metadata (key VARCHAR PRIMARY KEY, value VARCHAR)")
    _insert(con, "records", _columns(records))
    lists: dict[str, dict[str, list[Any]]] = {
        name: {"record_id": [], "position": [], "value": []} for name in ("solutions", "preventionTips", "tags")
    }
    scenario_rows: dict[str, list[Any]] = {k: [] for k in ("r", "p", "s", "m", "o", "u", "e", "d")}
    for item in records:
        record = item.record
        for name, table in lists.items():
            for position, value in enumerate(record.get(name) or (), start=1):
                table["record_id"].append(record["id"])
                table["position"].append(position)
                table["value"].append(value)
        for position, scenario in enumerate(record.get("scenarios") or (), start=1):
            expect = scenario.get("expect", {})
            for key, value in zip(
                scenario_rows,
                (record["id"], position, scenario.get("id"), scenario.get("summary"),
                 scenario.get("call", {}).get("operation"), expect.get("outcome"), expect.get("errorClass"),
                 json.dumps(scenario, ensure_ascii=False)),
                strict=True,
            ):
                scenario_rows[key].append(value)
    _insert(con, "solutions", lists["solutions"])
    _insert(con, "prevention_tips", lists["preventionTips"])
    _insert(con, "tags", lists["tags"])
    _insert(con, "scenarios", scenario_rows)
    versions = sorted(v for v in (r.dataset_version for r in records) if v)
    metadata = {
        "dataset_version": versions[-1] if versions else "",
        "content_hash": digest,
        "errdex_version": __version__,
        "index_format": str(INDEX_FORMAT),
        "built_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "record_count": str(len(records)),
    }
    _insert(con, "metadata", {"key": list(metadata), "value": list(metadata.values())})
    con.execute(_match_macro(SQL_MAX_GROUPS))
