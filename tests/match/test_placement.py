"""A tie for first place is broken by where the line says it was written, the same way by ``errdex match`` and
the index's ``errdex_match`` macro (the site's matcher: tests/site/test_placement.py)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

import errdex
from errdex.index import build_index
from errdex.records.placement import origin_pattern, placement_pattern
from tests.match.twins import LINES, TWINS, write_twins


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_twins(tmp_path_factory.mktemp("twins") / "records")


def test_the_cli_matcher_ranks_the_placed_twin_first(twins: Path) -> None:
    kb = errdex.load([twins])
    for line, expected in LINES.items():
        found = [m.view["id"] for m in kb.match(line)]
        assert found[0] == expected and sorted(found) == sorted(TWINS), line


def test_the_sql_macro_ranks_the_placed_twin_first(twins: Path, tmp_path: Path) -> None:
    db = build_index([twins], db=tmp_path / "twins.duckdb").path
    con = duckdb.connect(str(db), read_only=True)
    try:
        for line, expected in LINES.items():
            rows = con.execute("SELECT record_id, rank FROM errdex_match($1) ORDER BY rank", [line]).fetchall()
            assert [rank for _, rank in rows] == [1, 2] and rows[0][0] == expected, line
        stored = dict(con.execute("SELECT id, placement FROM records").fetchall())
    finally:
        con.close()
    assert stored == {ident: placement_pattern({"filePath": path, "lineNumber": number})
                      for ident, (path, number) in TWINS.items()}


@pytest.mark.parametrize(("record", "line", "names"), [
    ({"filePath": "a/Client.java", "lineNumber": 42}, "x Client.java:42 y", "placement"),
    ({"filePath": "a/Client.java", "lineNumber": 42}, "[Client@42]", "placement"),
    ({"filePath": "a/Client.java", "lineNumber": 42}, "Client@421", "origin"),  # the class, another line
    ({"filePath": "a/Client.java", "lineNumber": 42}, "MyClient@42", False),
    ({"filePath": "a/Client.java", "lineNumber": 42}, "Client-java:42", False),  # the dot is not any character
    ({"filePath": "cmd\\main.go", "lineNumber": 17}, "main.go:17: failed", "placement"),
    # Python's %(name)s of getLogger(__name__): a package is its __init__.py, src/ and lib/ are layouts, and
    # the harvested folder's own prefix may stand before the module
    ({"filePath": "pkg/sub/mod.py", "lineNumber": 9}, "INFO pkg.sub.mod: started", "origin"),
    ({"filePath": "sub/mod.py", "lineNumber": 9}, "INFO pkg.sub.mod: started", "origin"),
    ({"filePath": "pkg/sub/mod.py", "lineNumber": 9}, "INFO pkg.sub.model: started", False),
    ({"filePath": "pkg/sub/__init__.py", "lineNumber": 9}, "INFO pkg.sub: started", "origin"),
    ({"filePath": "pkg/sub/__init__.py", "lineNumber": 9}, "INFO pkg.sub.mod: started", False),
    ({"filePath": "src/pkg/mod.py", "lineNumber": 9}, "WARNING:pkg.mod:started", "origin"),
    ({"filePath": "lib/pkg/mod.py", "lineNumber": 9}, "pkg.mod - started", "origin"),
    ({"filePath": "__init__.py", "lineNumber": 9}, "INFO __init__: started", False),
    ({"filePath": "x.py", "lineNumber": 0}, "x.py:0", None),
    ({"filePath": None, "lineNumber": 3}, "x.py:3", None),
])
def test_the_placement_and_origin_patterns(record: dict[str, object], line: str, names: str | bool | None) -> None:
    """``placement``: the line names the record's file and line; ``origin``: only its module or class."""
    patterns = {"placement": placement_pattern(record), "origin": origin_pattern(record)}
    if names is None:
        assert patterns["placement"] is None
        return
    con = duckdb.connect()
    try:
        for kind, source in patterns.items():
            if kind == "origin" and names == "placement":
                continue  # a line naming the file and line may name the class too (Client@42)
            expected = names == kind
            if source is None:
                assert not expected, (kind, record)
                continue
            assert (re.search(source, line) is not None) is expected, (kind, line)
            assert con.execute("SELECT regexp_matches($1, $2)", [line, source]).fetchone() == (expected,)
    finally:
        con.close()
