from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult
from tests.harvest import _fake
from tests.harvest.conftest import write_tree


@pytest.fixture(autouse=True)
def _fake_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake.install(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


@pytest.fixture
def app(tmp_path: Path) -> Path:
    folder = tmp_path / "app"
    write_tree(folder, {"src/a.fake": 'fn main\nthrow Error "boom {x}"\nlog warn "careful {y}"\n',
                        "src/b.fake": "bad\n"})
    return folder


def test_help_has_an_example(cli: Callable[..., CliResult]) -> None:
    result = cli("harvest", "--help")
    assert result.exit_code == 0 and "Example:" in result.stdout and "--log-levels" in result.stdout


def test_harvest_then_check(cli: Callable[..., CliResult], app: Path, tmp_path: Path) -> None:
    out = tmp_path / "records"
    args = ("harvest", str(app), "--repo", "acme/app", "--sha", "d" * 40, "--out", str(out))
    checked = cli(*args, "--check")
    assert checked.exit_code == 1 and checked.stdout.startswith("would add") and not out.exists()
    done = cli(*args)
    assert done.exit_code == 0 and done.stdout.count("added") == 2
    assert "2 site(s)" in done.stderr and "failed to parse src/b.fake" in done.stderr
    assert "source lines/s" in done.stderr
    again = cli(*args, "--check")
    assert (again.exit_code, again.stdout) == (0, "")
    assert "0 new, 0 updated, 2 unchanged" in again.stderr


def test_json_report(cli: Callable[..., CliResult], app: Path, tmp_path: Path) -> None:
    result = cli("harvest", str(app), "--repo", "acme/app", "--sha", "d" * 40, "--bundle",
                 str(tmp_path / "d.jsonl"), "--format", "json", "-q")
    assert result.exit_code == 0 and result.stderr == ""
    report = result.json()
    assert report["sites"] == {"fake": {"log": 1, "throw": 1}} and len(report["records"]["new"]) == 2
    assert report["parseFailures"] == [{"path": "src/b.fake", "error": "syntax error at line 1"}]
    assert json.loads((tmp_path / "d.jsonl").read_text().splitlines()[0])["record"]["status"] == "draft"


def test_a_folder_outside_git_is_harvested_with_no_commit(cli: Callable[..., CliResult], app: Path,
                                                           tmp_path: Path) -> None:
    """No --sha and no repository: the drafts name no commit and no URL, and validate takes them."""
    result = cli("harvest", str(app), "--repo", "acme/app", "--out", str(tmp_path / "records"),
                 "--format", "json", "-q")
    assert result.exit_code == 0, result.stderr
    assert result.json()["analyzedSha"] is None and result.json()["records"]["new"]
    drafts = [json.loads(path.read_text())["record"] for path in sorted((tmp_path / "records").rglob("*.json"))]
    assert drafts and all(d["analyzedSha"] is None and d["githubUrl"] is None for d in drafts)
    checked = cli("validate", str(tmp_path / "records"))
    assert checked.exit_code == 0 and " 0 error(s)" in checked.stdout + checked.stderr, checked.stderr


@pytest.mark.parametrize(("extra", "code", "words"), [
    (("--sha", "d" * 40, "--repo", "nope"), 2, "owner/name"),
    (("--sha", "d" * 40, "--rev", "HEAD"), 2, "not both"),
    (("--rev", "HEAD"), 2, "not a git repository"),
    (("--sha", "d" * 40, "--log-levels", "loud"), 2, "unknown log level"),
    (("--sha", "d" * 40, "--jobs", "0"), 2, "--jobs"),
])
def test_bad_input_is_one_line(cli: Callable[..., CliResult], app: Path, extra: tuple[str, ...], code: int,
                               words: str) -> None:
    result = cli("harvest", str(app), "--repo", "acme/app", *extra)
    assert result.exit_code == code
    assert result.stderr.startswith("errdex: error: ") and result.stderr.count("\n") == 1 and words in result.stderr


def test_a_bad_config_is_one_line(cli: Callable[..., CliResult], app: Path, tmp_path: Path) -> None:
    config = tmp_path / "sinks.toml"
    config.write_text("[[sinks]]\nname = 'x'\nlevel = 'loud'\n")
    result = cli("harvest", str(app), "--repo", "acme/app", "--sha", "d" * 40, "--config", str(config),
                 "--check")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "sinks[0].level" in result.stderr


def test_path_prefix_sets_the_file_path_and_url(cli: Callable[..., CliResult], app: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "d.jsonl"
    result = cli("harvest", str(app / "src"), "--repo", "acme/app", "--sha", "d" * 40, "--path-prefix",
                 "pkg/app/src", "--bundle", str(bundle), "-q")
    assert result.exit_code == 0
    records = [json.loads(line)["record"] for line in bundle.read_text().splitlines()]
    assert {record["filePath"] for record in records} == {"pkg/app/src/a.fake"}
    assert all(f"/blob/{'d' * 40}/pkg/app/src/a.fake#L" in record["githubUrl"] for record in records)


def test_a_bad_path_prefix_is_one_line(cli: Callable[..., CliResult], app: Path) -> None:
    result = cli("harvest", str(app), "--repo", "acme/app", "--sha", "d" * 40, "--path-prefix", "../up", "--check")
    assert result.exit_code == 2 and "'..'" in result.stderr and result.stderr.count("\n") == 1
