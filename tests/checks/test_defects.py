"""Each defect in a record gives exit 1 and a finding whose pointer names the defective field."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errdex import validate
from errdex.checks.registry import registry
from tests.checks.test_scenario_checks import SCENARIO_DEFECTS
from tests.conftest import write_envelope

# Not a test of the cache: these validate the bundled records and small variants of them again and again, and
# share one cache (of their patterns' engine verdicts and parsed records) for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")

Mutation = Callable[[dict[str, Any]], None]


def _set(field: str, value: Any) -> Mutation:
    def mutate(envelope: dict[str, Any]) -> None:
        envelope["record"][field] = value

    return mutate


def _delete(field: str) -> Mutation:
    def mutate(envelope: dict[str, Any]) -> None:
        del envelope["record"][field]

    return mutate


def _append(field: str, value: Any) -> Mutation:
    def mutate(envelope: dict[str, Any]) -> None:
        envelope["record"][field].append(value)

    return mutate


def _far_line(envelope: dict[str, Any]) -> None:
    envelope["record"]["lineNumber"] = envelope["record"]["sourceCodeStart"] + 1


def _short_excerpt(envelope: dict[str, Any]) -> None:
    envelope["record"]["sourceCode"] = "\n".join(envelope["record"]["sourceCode"].split("\n")[:-2])


DEFECTS: list[tuple[str, Mutation, str, str]] = [
    ("bad-id", _set("id", "2715D7D48FF9726C"), "EDX101", "/record/id"),
    ("slug-not-derived", _set("slug", "createos-process-creation"), "EDX111", "/record/slug"),
    ("lookahead", _set("messagePattern", "CreateOS process creation(?= could).*"), "EDX121", "/record/messagePattern"),
    ("named-group", _set("messagePattern", "CreateOS (?<what>.+)"), "EDX121", "/record/messagePattern"),
    ("nested-quantifier", _set("messagePattern", "CreateOS( process| creation|.)+ reusing it\\."), "EDX123",
     "/record/messagePattern"),
    ("pattern-too-big", _set("messagePattern", "CreateOS process creation .{0,1000}\\."), "EDX125",
     "/record/messagePattern"),
    ("pattern-misses", _set("messagePattern", "CreateOS process creation could not be confirmed"), "EDX124",
     "/record/messagePattern"),
    ("unescaped-dot-ok-but-wrong", _set("messagePattern", "CreateOS process deletion.*"), "EDX124",
     "/record/messagePattern"),
    ("file-path-climbs", _set("filePath", "../../etc/passwd"), "EDX130", "/record/filePath"),
    ("file-path-newline", _set("filePath", "src/a\nb.ts"), "EDX130", "/record/filePath"),
    ("file-path-surrogate", _set("filePath", "src/x\udcff.ts"), "EDX009", "/record/filePath"),
    ("github-url", _set("githubUrl", "https://github.com/paperclipai/paperclip/blob/main/x.ts#L1-L2"), "EDX131",
     "/record/githubUrl"),
    ("short-sha", _set("analyzedSha", "3f1d897"), "EDX132", "/record/analyzedSha"),
    ("line-outside", _set("lineNumber", 250), "EDX133", "/record/lineNumber"),
    ("line-zero", _set("lineNumber", 0), "EDX133", "/record/lineNumber"),
    ("excerpt-lines", _short_excerpt, "EDX134", "/record/sourceCode"),
    ("message-far", _far_line, "EDX135", "/record/lineNumber"),
    ("timestamp", _set("analyzedAt", "2026-13-18T08:03:59Z"), "EDX141", "/record/analyzedAt"),
    ("timestamp-order", _set("analyzedAt", "2026-09-19T08:03:59.046Z"), "EDX142", "/record/contentChangedAt"),
    ("tag-case", _set("tags", ["sandbox", "Cleanup"]), "EDX151", "/record/tags/1"),
    ("duplicate-tip", _append("preventionTips",
                              "Never reuse a lease after a CreateosCleanupError — always destroy it first."), "EDX152",
     "/record/preventionTips/3"),
    ("duplicate-tag", _append("tags", "sandbox"), "EDX152", "/record/tags/4"),
    ("blank-solution", _append("solutions", "   "), "EDX153", "/record/solutions/4"),
    ("http-status", _set("httpStatus", 700), "EDX154", "/record/httpStatus"),
    ("schema-version", _set("schemaVersion", 9), "EDX011", "/record/schemaVersion"),
    ("missing-field", _delete("documentation"), "EDX010", "/record/documentation"),
    ("unknown-field", _set("documentaton", "typo"), "EDX010", "/record/documentaton"),
    ("wrong-type", _set("lineNumber", "197"), "EDX010", "/record/lineNumber"),
    ("null-not-allowed", _set("errorClass", None), "EDX010", "/record/errorClass"),
    ("bad-severity", _set("severity", "fatal"), "EDX010", "/record/severity"),
    ("empty-solutions", _set("solutions", []), "EDX010", "/record/solutions"),
]


@pytest.mark.parametrize(("label", "mutate", "code", "pointer"), DEFECTS, ids=[d[0] for d in DEFECTS])
def test_defect_is_reported_at_its_field(tmp_path: Path, seed: dict[str, Any], cli, label: str,
                                         mutate: Mutation, code: str, pointer: str) -> None:
    mutate(seed)
    path = write_envelope(tmp_path / "records", seed, name=f"{_slug_of(seed)}.json")
    result = cli("validate", str(path), "--format", "json", "--no-config")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    findings = result.json()
    matching = [f for f in findings if f["code"] == code and f["pointer"] == pointer]
    assert matching, findings
    finding = matching[0]
    assert finding["line"] >= 1 and finding["column"] >= 1
    assert finding["path"] == str(path)
    assert finding["severity"] == "error"


def _slug_of(envelope: dict[str, Any]) -> str:
    slug = envelope["record"].get("slug")
    return slug if isinstance(slug, str) else "createos-process-creation-could-not-be-confirmed-destroy-the"


def test_finding_line_and_column_point_at_the_value(tmp_path: Path, seed: dict[str, Any]) -> None:
    seed["record"]["httpStatus"] = 700
    path = write_envelope(tmp_path, seed)
    finding = next(f for f in validate([path], config=None).findings if f.code == "EDX154")
    line = path.read_text(encoding="utf-8").split("\n")[finding.line - 1]
    assert line[finding.column - 1 :].startswith("700")


def test_every_finding_is_reported_in_one_pass(tmp_path: Path, seed: dict[str, Any]) -> None:
    seed["record"]["httpStatus"] = 700
    seed["record"]["tags"].append("Bad Tag")
    seed["record"]["analyzedSha"] = "abc"
    seed["record"]["lineNumber"] = 999
    codes = {f.code for f in validate([write_envelope(tmp_path, seed)]).findings}
    assert {"EDX154", "EDX151", "EDX132", "EDX133"} <= codes


def test_duplicate_ids_and_slugs_across_files(tmp_path: Path, seed: dict[str, Any]) -> None:
    write_envelope(tmp_path / "a", seed)
    write_envelope(tmp_path / "b", seed)
    report = validate([tmp_path / "a", tmp_path / "b"])
    assert [f.code for f in report.findings] == ["EDX102", "EDX112"]
    assert all(f.path.startswith(str(tmp_path / "b")) for f in report.findings)
    assert {f.pointer for f in report.findings} == {"/record/id", "/record/slug"}


def _in_repo(seed: dict[str, Any], repo: str, record_id: str) -> dict[str, Any]:
    envelope = json.loads(json.dumps(seed))
    envelope["record"].update(repo=repo, id=record_id)
    return envelope


def test_records_that_would_share_a_page(tmp_path: Path, seed: dict[str, Any]) -> None:
    first = write_envelope(tmp_path, _in_repo(seed, "Evil/Repo", "0000000000000001"))
    second = write_envelope(tmp_path, _in_repo(seed, "evil/repo", "0000000000000002"))
    found = [f for f in validate([first, second]).findings if f.code in ("EDX112", "EDX115")]
    assert [(f.code, f.name, f.path, f.pointer) for f in found] == [
        ("EDX115", "page-path-unique", str(second), "/record/repo")]
    assert "records/evil/repo/" in found[0].message and str(first) in found[0].message


def test_names_that_once_shared_a_page_no_longer_do(tmp_path: Path, seed: dict[str, Any]) -> None:
    paths = [write_envelope(tmp_path, _in_repo(seed, repo, f"000000000000000{n}"))
             for n, repo in enumerate(("evil/repo", "evil/-repo", "evil/repo-", "evil/re--po"), start=1)]
    assert [f for f in validate(paths).findings if f.code in ("EDX112", "EDX115")] == []


def test_file_name_and_folder_must_follow_the_record(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = write_envelope(tmp_path, seed, name="other-name.json", folder="someone/else")
    codes = {(f.code, f.pointer) for f in validate([path]).findings}
    assert codes == {("EDX113", "/record/slug"), ("EDX114", "/record/repo")}


def test_numbered_slug_for_messages_sharing_sixty_characters(tmp_path: Path, seed: dict[str, Any]) -> None:
    first = seed
    second = json.loads(json.dumps(seed))
    second["record"]["id"] = "0000000000000002"
    second["record"]["slug"] = "createos-process-creation-could-not-be-confirmed-destroy-t-2"
    write_envelope(tmp_path, first)
    write_envelope(tmp_path, second)
    assert validate([tmp_path]).findings == []


@pytest.mark.parametrize(
    ("content", "code", "line", "column"),
    [
        (b"", "EDX005", 1, 1),
        (b"\n  \n", "EDX005", 1, 1),
        (b'{"record": {"id": "a"\n  "slug": 1}}', "EDX001", 2, 3),
        (b'{"record": {"id": "\xff\xfe"}}', "EDX002", 1, 20),
        (b'{"record": {"httpStatus": NaN}, "datasetVersion": "x"}', "EDX003", 1, 27),
        (b'{"record": {"id": "a",\n "id": "b"}, "datasetVersion": "x"}', "EDX004", 2, 2),
        (b"[1, 2, 3]", "EDX006", 1, 1),
        (b'"just a string"', "EDX006", 1, 1),
        (b'{"hello": "world"}', "EDX006", 1, 1),
    ],
)
def test_parse_problems_have_line_and_column(tmp_path: Path, cli, content: bytes, code: str, line: int,
                                            column: int) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    result = cli("validate", str(path), "--format", "json")
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    finding = next(f for f in result.json() if f["code"] == code)
    assert (finding["line"], finding["column"]) == (line, column)


def test_record_stage_checks_are_all_exercised() -> None:
    """Every record check has a defect above that triggers it (EDX102/112-115/122 and EDX161-162 have own tests)."""
    covered = {code for _, _, code, _ in DEFECTS} | {"EDX102", "EDX112", "EDX113", "EDX114", "EDX115", "EDX122"}
    covered |= {code for _, _, code, _ in SCENARIO_DEFECTS}
    covered |= {"EDX161", "EDX162"}  # tests/checks/test_lifecycle_checks.py
    covered |= {"EDX136", "EDX163"}  # tests/checks/test_draft_checks.py
    covered |= {"EDX137", "EDX138", "EDX139"}  # tests/checks/test_anchored.py (they need a source)
    missing = {code for code, cls in registry().items() if cls.stage == "record"} - covered
    assert not missing


def test_hostile_pattern_cannot_hang_validation(tmp_path: Path, seed: dict[str, Any]) -> None:
    seed["record"]["errorMessage"] = "a" * 5000 + "!"
    seed["record"]["slug"] = "a" * 60
    seed["record"]["messagePattern"] = "(a+)+b"
    findings = validate([write_envelope(tmp_path, seed)]).findings
    assert ("EDX123", "/record/messagePattern") in {(f.code, f.pointer) for f in findings}


@pytest.mark.parametrize("folder", ["", "elsewhere", "acme/api"])
def test_record_path_names_where_the_file_really_is(cli, tmp_path: Path, seed: dict[str, Any],
                                                    monkeypatch: pytest.MonkeyPatch, folder: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_envelope(tmp_path, seed, folder=folder or ".")
    shown = str(path.relative_to(tmp_path))
    result = cli("validate", "--no-config", "--select", "EDX114", "--format", "json", shown)
    [finding] = result.json()
    where = folder or "the current folder"
    assert finding["message"] == (
        "a record of paperclipai/paperclip belongs in paperclipai/paperclip/ of a records "
        f"folder (records/paperclipai/paperclip/), but this file is in {where}; move it there")


def test_a_field_with_millions_of_wrong_items_gives_a_bounded_report(tmp_path: Path, seed: dict[str, Any]) -> None:
    # One schema violation per array item: 5 million tags once gave 5 million findings (30 s and 5 GB, then
    # killed); the report now stops after a bounded number and says that more were not shown.
    from errdex.checks.schema_findings import MAX_SCHEMA_PROBLEMS

    seed["record"]["tags"] = [1] * 200_000
    path = write_envelope(tmp_path, seed)
    report = validate([path])
    schema = [f for f in report.findings if f.code == "EDX010"]
    assert len(schema) == MAX_SCHEMA_PROBLEMS + 1
    items = [f for f in schema if f.pointer.startswith("/record/tags/")]
    (summary,) = [f for f in schema if f not in items]
    assert len(items) == MAX_SCHEMA_PROBLEMS
    assert "not shown" in summary.message and summary.severity == "error" and summary.pointer == "/record/tags"
