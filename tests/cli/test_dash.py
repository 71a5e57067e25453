"""'-' means stdin or stdout wherever a path is taken, or is refused in one line; never a file named '-'."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errdex.records.canonical import canonical_text
from tests.conftest import SEED_PATH

SEED_TEXT = SEED_PATH.read_text(encoding="utf-8")

#: Commands whose '-' reads stdin or writes stdout: args, and what stdout must hold.
WORKS = [
    (["validate", "-"], "no findings"),
    (["validate", "--records", "-"], "no findings"),
    (["fmt", "-"], SEED_TEXT),
    (["export", "--to", "jsonl", "--output", "-", "--records", "-"], None),
    (["explain", "createos-process-creation-could-not-be-confirmed-destroy-the", "--records", "-"], "CreateOS"),
    (["diff", "-", str(SEED_PATH)], ""),
]

#: Commands that cannot take '-' there, and must say so (exit 2, one line).
REFUSED = [
    ["index", "--db", "-"],
    ["query", "--db", "-", "select 1"],
    ["export", "--to", "parquet", "--output", "-"],
    ["export", "--to", "duckdb", "--output", "-"],
    ["migrate", "--to", "3", "-"],
    ["release", "--records", "-", "--check"],
    ["release", "--out", "-", "--check"],
    ["release", "--changelog", "-", "--check"],
    ["diff", "-", "-"],
    ["match", "--records", "-", "-"],
    ["match", "--records", "-"],
    ["site", "build", "--out", "-"],
    ["site", "build", "--proofs", "-"],
    ["site", "serve", "--dir", "-"],
    ["schema", "--write", "-"],
    ["schema", "--check", "-"],
    ["executor", "serve", "--plan", "-"],
    ["fmt", "-", "records"],
]


@pytest.fixture(autouse=True)
def _in_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(("args", "expected"), WORKS, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_dash_reads_stdin_or_writes_stdout(cli, tmp_path: Path, args: list[str], expected: str | None) -> None:
    result = cli(*args, input=SEED_TEXT)
    assert result.exit_code == 0, result.stderr
    assert not (tmp_path / "-").exists()
    if expected is None:
        assert [json.loads(line)["record"]["id"] for line in result.stdout.splitlines()] == \
            [json.loads(SEED_TEXT)["record"]["id"]]
    elif expected == SEED_TEXT:
        assert result.stdout == expected
    else:
        assert expected in result.stdout + result.stderr


@pytest.mark.parametrize("args", REFUSED, ids=" ".join)
def test_dash_is_refused_in_one_line_where_it_cannot_work(cli, tmp_path: Path, args: list[str]) -> None:
    result = cli(*args, input=SEED_TEXT)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("errdex: error: ") and result.stderr.count("\n") == 1
    assert "'-'" in result.stderr or "stdin" in result.stderr or "stdout" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_prove_records_from_stdin(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    result = cli("prove", "--records", "-", input=canonical_text(seed))
    assert result.exit_code == 1 and "the record has no scenarios" in result.stdout
    assert not (tmp_path / "-").exists()


def test_explain_dash_reads_one_line_from_stdin(cli) -> None:
    shown = cli("explain", "-", input="ERROR CreateOS returned invalid JSON.\n")
    assert shown.exit_code == 0 and "slug createos-returned-invalid-json" in shown.stdout
    for text, message in (("a\nb\n", "several lines"), ("\n", "no line")):
        refused = cli("explain", "-", input=text)
        assert refused.exit_code == 2 and message in refused.stderr and refused.stderr.count("\n") == 1
    both = cli("explain", "-", "--records", "-", input="x")
    assert both.exit_code == 2 and "both read stdin" in both.stderr
