"""Findings rendered for machines: SARIF locations are URI references a code-scanning tool can resolve."""

from __future__ import annotations

import json
import os
from pathlib import Path


def test_sarif_uri_is_percent_encoded_and_absolute_paths_are_file_uris(cli, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "a#b?c d%41.json").write_text("{ not json")
    odd = os.fsencode(tmp_path) + b"/x\xff.json"
    with open(odd, "wb") as handle:
        handle.write(b"{ not json")
    result = cli("validate", str(tmp_path), "--format", "sarif")
    assert result.exit_code == 1
    uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                  for r in json.loads(result.stdout)["runs"][0]["results"])
    base = "file://" + str(tmp_path)
    # '#' read as a fragment, '?' as a query and '%41' as 'A' before; a raw space is no URI at all
    assert uris == [base + "/a%23b%3Fc%20d%2541.json", base + "/x%FF.json"]
    monkeypatch.chdir(tmp_path)
    relative = json.loads(cli("validate", "a#b?c d%41.json", "--format", "sarif").stdout)
    assert relative["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "a%23b%3Fc%20d%2541.json"
