"""Drafts are indexed like any record, with their status, and can be queried by it."""

from __future__ import annotations

from pathlib import Path

from errdex.index import build_index, query
from tests.conftest import write_envelope
from tests.records.drafts import draft_envelope


def test_drafts_are_indexed_with_their_status(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    for number in (1, 2):
        write_envelope(folder, draft_envelope(number))
    db = tmp_path / "x.duckdb"
    build_index([folder], db=db)
    result = query("select slug, status, schema_version, documentation, file_path, line_number from records "
                   "where status = 'draft' order by slug", db=db)
    assert [tuple(row) for row in result.rows] == [
        (draft_envelope(n)["record"]["slug"], "draft", 4, "", "src/lease.ts", 41) for n in (1, 2)]
