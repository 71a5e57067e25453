"""Every command loads records through one loader and refuses what validate refuses, in one clear line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from errdex.errors import DataError
from errdex.records.canonical import canonical_text
from errdex.records.loader import load_records

# Not a test of the cache: these validate the bundled records and small variants of them again and again, and
# share one cache (of their patterns' engine verdicts and parsed records) for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")

#: (name, the seed's canonical text -> hostile text, the finding validate must give, its pointer)
HOSTILE = [
    ("decimal-line", lambda t: t.replace('"lineNumber": 197', '"lineNumber": 197.0'), "EDX010", "/record/lineNumber"),
    ("huge-line", lambda t: t.replace('"lineNumber": 197', '"lineNumber": 100000000000000000000'), "EDX008",
     "/record/lineNumber"),
    ("line-past-32-bits", lambda t: t.replace('"lineNumber": 197', '"lineNumber": 4294967296'), "EDX133",
     "/record/lineNumber"),
    ("5000-digits", lambda t: t.replace('"lineNumber": 197', '"lineNumber": ' + "7" * 5000), "EDX008",
     "/record/lineNumber"),
    ("lone-surrogate", lambda t: t.replace('"errorClass": "CreateosCleanupError"', '"errorClass": "E\\ud800"'),
     "EDX009", "/record/errorClass"),
    ("overflow", lambda t: t.replace('"httpStatus": null', '"httpStatus": 1e999'), "EDX003", "/record/httpStatus"),
    ("nan", lambda t: t.replace('"httpStatus": null', '"httpStatus": NaN'), "EDX003", "/record/httpStatus"),
    ("duplicate-key", lambda t: t.replace('"httpStatus": null', '"httpStatus": null, "httpStatus": 404'), "EDX004",
     "/record/httpStatus"),
    ("deep", lambda t: t.replace('"errorCode": null', '"errorCode": ' + "[" * 256 + "]" * 256), "EDX001", ""),
    ("decimal-dataset-version", lambda t: t.replace('"datasetVersion": "2026-09-22T11:17:16.035Z"',
                                                     '"datasetVersion": 79.0'), "EDX010", "/datasetVersion"),
    ("surrogate-slug", lambda t: t.replace('"slug": "createos-', '"slug": "\\udc00createos-'), "EDX009",
     "/record/slug"),
    ("http-700", lambda t: t.replace('"httpStatus": null', '"httpStatus": 700'), "EDX154", "/record/httpStatus"),
]


@pytest.fixture
def hostile(tmp_path: Path, seed: dict[str, Any], request: pytest.FixtureRequest) -> tuple[Path, str, str]:
    name, mutate, code, pointer = request.param
    record = seed["record"]
    target = tmp_path / "records" / record["repo"] / f"{record['slug']}.json"
    target.parent.mkdir(parents=True)
    text = mutate(canonical_text(seed))
    assert text != canonical_text(seed), name
    target.write_text(text, encoding="utf-8")
    return target, code, pointer


@pytest.mark.parametrize("hostile", HOSTILE, indirect=True, ids=[h[0] for h in HOSTILE])
def test_validate_reports_the_value_where_it_is(cli, hostile: tuple[Path, str, str]) -> None:
    path, code, pointer = hostile
    result = cli("validate", "--no-config", "--format", "json", str(path))
    assert result.exit_code == 1, result.stderr
    assert (code, pointer) in {(f["code"], f["pointer"]) for f in result.json()}


COMMANDS = [
    ["index", "--db", "{tmp}/x.duckdb", "--records", "{path}"],
    ["export", "--to", "parquet", "--output", "{tmp}/x.parquet", "--records", "{path}"],
    ["export", "--to", "jsonl", "--output", "{tmp}/x.jsonl", "--records", "{path}"],
    ["explain", "createos-process-creation-could-not-be-confirmed-destroy-the", "--records", "{path}"],
    ["prove", "--records", "{path}"],
    ["migrate", "--to", "3", "{path}"],
    ["site", "build", "--out", "{tmp}/site", "--records", "{path}"],
]


@pytest.mark.parametrize("hostile", HOSTILE, indirect=True, ids=[h[0] for h in HOSTILE])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_command_refuses_what_validate_refuses(cli, hostile: tuple[Path, str, str], command: list[str]) -> None:
    path, _, _ = hostile
    before = path.read_bytes()
    args = [part.format(tmp=path.parents[3], path=path) for part in command]
    result = cli(*args)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert lines and all("internal error" not in line and "Traceback" not in line for line in lines)
    assert any(str(path) in line for line in lines), result.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize("hostile", HOSTILE, indirect=True, ids=[h[0] for h in HOSTILE])
def test_import_reports_a_hostile_bundle_line_without_crashing(cli, hostile: tuple[Path, str, str]) -> None:
    path, _, _ = hostile
    bundle = path.parents[3] / "in.jsonl"
    bundle.write_text(path.read_text(encoding="utf-8").replace("\n", " ") + "\n", encoding="utf-8")
    for fmt in ("text", "json"):
        result = cli("import", str(bundle), "--records", str(path.parents[3] / "target"), "--format", fmt)
        assert result.exit_code == 1, (result.stdout, result.stderr)
        assert "internal error" not in result.stderr and f"{bundle}:1:" in result.stdout + result.stderr
    assert not (path.parents[3] / "target").exists()


def test_a_bad_bundle_line_is_named_and_the_other_lines_are_still_validated(cli, tmp_path: Path,
                                                                            seed: dict[str, Any]) -> None:
    good = canonical_text(seed, bundle_line=True)
    bundle = tmp_path / "b.jsonl"
    bundle.write_text(good + "\n" + good.replace('"lineNumber":197', '"lineNumber":' + "9" * 5000) + "\n"
                      + good.replace('"httpStatus":null', '"httpStatus":NaN') + "\n", encoding="utf-8")
    report = cli("validate", "--no-config", "--format", "json", str(bundle))
    assert report.exit_code == 1
    assert {(f["code"], f["line"]) for f in report.json()} >= {("EDX008", 2), ("EDX003", 3), ("EDX102", 3)}
    with pytest.raises(DataError, match=r"b\.jsonl:2:\d+: "):
        load_records([bundle])
    exported = cli("export", "--to", "jsonl", "--output", str(tmp_path / "out.jsonl"), "--records", str(bundle))
    assert exported.exit_code == 1 and f"{bundle}:2:" in exported.stderr and not (tmp_path / "out.jsonl").exists()


def test_the_loader_names_a_missing_schema_version_in_its_own_words(tmp_path: Path, seed: dict[str, Any]) -> None:
    del seed["record"]["schemaVersion"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seed), encoding="utf-8")
    with pytest.raises(DataError, match="schemaVersion is missing") as caught:
        load_records([path])
    assert "None" not in str(caught.value)


@pytest.mark.parametrize(("version", "shown"), [([3], "[3]"), ({"a": 1}, '{"a": 1}'), (None, "null"), (True, "true"),
                                                (3.0, "3.0"), ("3", '"3"')])
def test_a_schema_version_that_is_no_integer_is_refused_in_json_words(tmp_path: Path, seed: dict[str, Any], cli,
                                                                      version: Any, shown: str) -> None:
    seed["record"]["schemaVersion"] = version  # a list or an object was an internal error (unhashable)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(seed), encoding="utf-8")
    with pytest.raises(DataError, match=rf"r\.json:\d+:\d+: schemaVersion is {re.escape(shown)}, which errdex"):
        load_records([path])
    for command in (["index", "--records", str(path), "--db", str(tmp_path / "x.duckdb")],
                    ["migrate", "--to", "2", "--check", str(path)]):
        result = cli(*command)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, (command, result.stderr)
        assert f"schemaVersion is {shown}," in result.stderr
    found = cli("validate", "--no-config", "--format", "json", str(path)).json()
    assert [f["message"] for f in found if f["code"] == "EDX011"] == [
        f"schemaVersion {shown} is not supported (supported: 2, 3, 4); migrate the record"]


@pytest.mark.parametrize("command", [["index", "--db", "{tmp}/x.duckdb"], ["export", "--to", "jsonl",
                                                                           "--output", "{tmp}/out.jsonl"],
                                     ["diff", "{records}", "{records}"]])
def test_every_build_refuses_two_records_of_one_id_naming_both_files(cli, tmp_path: Path, seed: dict[str, Any],
                                                                     command: list[str]) -> None:
    records = tmp_path / "records"
    folder = records / seed["record"]["repo"]
    folder.mkdir(parents=True)
    first, second = folder / "a.json", folder / "b.json"
    for path in (first, second):
        path.write_text(canonical_text(seed), encoding="utf-8")
    args = [part.format(tmp=tmp_path, records=records) for part in command]
    if command[0] != "diff":
        args += ["--records", str(records)]
    result = cli(*args)
    assert result.exit_code == (2 if command[0] == "diff" else 1)  # diff: 1 means "they differ"
    assert f"record id {seed['record']['id']!r} appears twice" in result.stderr
    assert "a.json" in result.stderr and "b.json" in result.stderr, result.stderr
