"""The tidy checks (EDX137-EDX139) against a tiny real git repository, the CreateOS copy, and through the CLI."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errdex.checks.config import ValidationConfig
from errdex.checks.runner import ValidationReport, validate
from errdex.drift.anchors import open_anchors
from tests.conftest import CliResult
from tests.harvest.truth import shared_data

Cli = Callable[..., CliResult]
CODES = ["EDX137", "EDX138", "EDX139"]
BASE = Path(__file__).resolve().parents[2] / "toolkit/errdex/checks/explanations/base-record.json"
APP_V1 = 'def run(command):\n    if not command:\n        raise ValueError("command is required")\n    return command\n'
APP_V2 = '# the second version\n' + APP_V1
CREATEOS_SHA = "b51bb95ae50463a3fc4a1baf72c078a534da0ea3"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A git repository with two commits of src/app.py: (folder, first commit, second commit)."""
    folder = tmp_path / "repo"
    (folder / "src").mkdir(parents=True)
    _git(folder, "init", "-q")
    shas = []
    for text in (APP_V1, APP_V2):
        (folder / "src/app.py").write_text(text, encoding="utf-8")
        _git(folder, "add", "src/app.py")
        _git(folder, "commit", "-q", "-m", "app")
        shas.append(_git(folder, "rev-parse", "HEAD"))
    return folder, shas[0], shas[1]


def _record(sha: str, slug: str, **changes: Any) -> dict[str, Any]:
    envelope = json.loads(BASE.read_text(encoding="utf-8"))
    record = envelope["record"]
    record.update({
        "repo": "acme/app", "slug": slug, "errorMessage": "command is required",
        "messagePattern": "command is required", "filePath": "src/app.py", "lineNumber": 3,
        "sourceCode": '        raise ValueError("command is required")', "sourceCodeStart": 3, "sourceCodeEnd": 3,
        "analyzedSha": sha, "githubUrl": f"https://github.com/acme/app/blob/{sha}/src/app.py#L3-L3",
    })
    record.update(changes)
    return envelope


def _write(folder: Path, records: dict[str, dict[str, Any]]) -> Path:
    target = folder / "records/acme/app"
    target.mkdir(parents=True)
    for slug, envelope in records.items():
        (target / f"{slug}.json").write_text(json.dumps(envelope, indent=2) + "\n", encoding="utf-8")
    return folder / "records"


def _run(records: Path, source: Path, sha: str | None = None) -> ValidationReport:
    return validate([str(records)], select=CODES, config=ValidationConfig(), source=open_anchors(source, sha=sha))


def _found(report: ValidationReport) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in report.findings:
        found.setdefault(Path(finding.path).stem, []).append(finding.code)
    return found


def test_each_check_finds_its_problem_and_a_missing_commit_is_a_note(repo: tuple[Path, str, str],
                                                                    tmp_path: Path) -> None:
    folder, first, second = repo
    records = _write(tmp_path, {
        "passes": _record(first, "passes"),
        "stale": _record(first, "stale", sourceCode='        raise ValueError("command needed")'),
        "outside": _record(first, "outside", lineNumber=4, sourceCodeEnd=4,
                           sourceCode='        raise ValueError("command is required")\n    return command',
                           githubUrl=f"https://github.com/acme/app/blob/{first}/src/app.py#L3-L4"),
        "other-commit": _record(first, "other-commit",
                                githubUrl=f"https://github.com/acme/app/blob/{second}/src/app.py#L3-L3"),
        "later": _record(second, "later", lineNumber=4, sourceCodeStart=4, sourceCodeEnd=4,
                         githubUrl=f"https://github.com/acme/app/blob/{second}/src/app.py#L4-L4"),
        "missing": _record("f" * 40, "missing"),
        "no-file": _record(first, "no-file", filePath="src/gone.py",
                           githubUrl=f"https://github.com/acme/app/blob/{first}/src/gone.py#L3-L3"),
    })
    report = _run(records, folder)
    assert _found(report) == {"stale": ["EDX137"], "outside": ["EDX138"], "other-commit": ["EDX139"]}
    messages = {finding.code: finding.message for finding in report.findings}
    assert "at line 3: it quotes" in messages["EDX137"] and "command needed" in messages["EDX137"]
    assert messages["EDX138"].endswith("raises it at line 3")
    assert f"names commit {second}" in messages["EDX139"]
    assert len(report.notes) == 2
    assert any("missing.json" in note and f"commit {'f' * 40} is not in" in note for note in report.notes)
    assert any("no-file.json" in note and "src/gone.py is not in" in note for note in report.notes)


def test_a_folder_is_read_at_its_commit_and_other_commits_are_skipped(repo: tuple[Path, str, str],
                                                                     tmp_path: Path) -> None:
    folder, first, second = repo
    records = _write(tmp_path, {"at-head": _record(second, "at-head", lineNumber=4, sourceCodeStart=4,
                                                   sourceCodeEnd=4, githubUrl=f"https://github.com/acme/app/blob/"
                                                                              f"{second}/src/app.py#L4-L4"),
                                "older": _record(first, "older")})
    report = _run(records, folder / "src")  # inside the work tree: its HEAD, paths from the top
    assert report.findings == []
    assert [note.split(": ", 1)[0] for note in report.notes] == [str(records / "acme/app/older.json")]
    assert "holds commit" in report.notes[0]


def test_without_a_source_the_checks_do_not_run(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    _, first, _ = repo
    records = _write(tmp_path, {"stale": _record(first, "stale", sourceCode="    something else")})
    report = validate([str(records)], select=CODES, config=ValidationConfig())
    assert (report.findings, report.notes) == ([], [])


def test_the_bundled_createos_records_pass_where_their_file_is_there() -> None:
    folder = shared_data() / "sources/paperclip-createos"
    createos = Path(__file__).resolve().parents[2] / "records" / "paperclipai"
    report = validate([createos], select=CODES, config=ValidationConfig(),
                      source=open_anchors(folder, sha=CREATEOS_SHA))
    assert report.findings == []
    assert report.records == 26
    assert len(report.notes) == 18  # the execute.ts records: analyzed at another commit; the 8 of client.ts pass
    assert all("the record was analyzed at 3f1d897a7c01" in note for note in report.notes)


def test_the_cli_exits_1_on_a_finding_and_prints_the_notes(repo: tuple[Path, str, str], tmp_path: Path,
                                                           cli: Cli) -> None:
    folder, first, _ = repo
    records = _write(tmp_path, {"passes": _record(first, "passes"), "missing": _record("e" * 40, "missing")})
    clean = cli("validate", str(records), "--select", ",".join(CODES), "--no-config", "--source", str(folder))
    assert clean.exit_code == 0, clean.stderr
    assert "note: " in clean.stderr and "missing.json: source checks skipped" in clean.stderr
    (records / "acme/app/passes.json").write_text(json.dumps(_record(first, "passes", sourceCode="x")) + "\n",
                                                  encoding="utf-8")
    stale = cli("validate", str(records), "--select", ",".join(CODES), "--no-config", "--source", str(folder))
    assert stale.exit_code == 1
    assert "EDX137 source-excerpt" in stale.stdout


def test_the_cli_refuses_a_sha_without_a_source_and_a_folder_without_a_commit(tmp_path: Path, cli: Cli) -> None:
    alone = cli("validate", "--sha", "a" * 40)
    assert alone.exit_code == 2 and "--sha" in alone.stderr
    plain = tmp_path / "plain"
    plain.mkdir()
    unknown = cli("validate", "--source", str(plain))
    assert unknown.exit_code == 2 and "pass --sha" in unknown.stderr


def test_a_file_path_outside_the_repository_is_never_read(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    # EDX137 quoted the file's line in its finding: a filePath climbing out of the source read any file
    folder, _, second = repo
    (tmp_path / "secret.py").write_text("TOP SECRET\n" * 5, encoding="utf-8")
    climbing = "src/../../secret.py"
    records = _write(tmp_path, {"out": _record(second, "out", filePath=climbing, githubUrl=f"https://github.com/"
                                               f"acme/app/blob/{second}/{climbing}#L3-L3")})
    for source in (folder / "src", folder):
        report = _run(records, source)
        assert "SECRET" not in json.dumps([finding.as_dict() for finding in report.findings] + report.notes)
        assert report.findings == []
    report = validate([str(records)], select=["EDX130"], config=ValidationConfig())
    assert [finding.code for finding in report.findings] == ["EDX130"]
    assert "'src/../../secret.py' has a '.' or '..' part" in report.findings[0].message
