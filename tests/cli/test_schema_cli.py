from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT


def test_committed_schema_is_current(cli) -> None:
    assert cli("schema", "--check", str(ROOT / "schema")).exit_code == 0


def test_write_then_check(cli, tmp_path: Path) -> None:
    assert cli("schema", "--check", str(tmp_path)).exit_code == 1
    assert cli("schema", "--write", str(tmp_path)).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "envelope-v2.schema.json", "envelope-v3.schema.json", "envelope-v4.schema.json",
        "record-v2.schema.json", "record-v3.schema.json", "record-v4.schema.json",
    ]
    assert cli("schema", "--check", str(tmp_path)).exit_code == 0


def test_print_and_unknown_version(cli) -> None:
    assert json.loads(cli("schema", "--kind", "record").stdout)["$id"] == "urn:errdex:schema:record-v4"
    assert json.loads(cli("schema", "--version", "2").stdout)["$id"] == "urn:errdex:schema:envelope-v2"
    result = cli("schema", "--version", "1")
    assert result.exit_code == 2 and "not supported" in result.stderr
