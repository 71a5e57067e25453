from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errdex.checks.runner import validate
from errdex.errors import DataError, UsageError
from errdex.harvest import run as run_module
from errdex.harvest.drafts import record_id
from errdex.harvest.languages.python import FINDER
from errdex.harvest.run import harvest, harvest_sites
from errdex.records.models import RECORD_MODELS
from tests.harvest.conftest import write_tree
from tests.processes import run

Repo = Callable[[dict[str, str]], tuple[Path, str]]
pytestmark = pytest.mark.usefixtures("fake_finder")

CLIENT = """\
const MISSING "A sandbox command is required."
fn execute
throw Error $MISSING
if creationMayHaveSucceeded && !processId
throw CreateosError "process creation could not be confirmed (HTTP {status})"
end
log error "could not open {path}"
log debug "debug detail {x}"
log warn "could not open {path}"
throw Error $UNKNOWN
throw Error "{x}"
"""
FILES = {"src/client.fake": CLIENT, "src/broken.fake": "bad\n", "tests/t.fake": 'throw E "only in a test"\n',
         "README.md": "# x\n"}


def _records(folder: Path) -> dict[str, dict]:
    found = {}
    for path in sorted(folder.rglob("*.json")):
        record = json.loads(path.read_text())["record"]
        found[record["id"]] = record
    return found


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01T00:00:00Z


def test_a_git_revision_is_harvested_into_drafts(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    out = tmp_path / "records"
    report = harvest(repo, repo="acme/app", rev=sha, out=out)
    records = _records(out)
    assert report.sha == sha and report.site_count == 4 and len(report.new) == 4 and len(records) == 4
    assert {record["errorMessage"] for record in records.values()} == {
        "A sandbox command is required.", "process creation could not be confirmed (HTTP {status})",
        "could not open {path}"}
    guarded = next(r for r in records.values() if r["errorClass"] == "CreateosError")
    assert guarded["triggerScenarios"] == ("raised in execute() when creationMayHaveSucceeded is set and processId is "
                                         "not set")
    assert guarded["githubUrl"] == f"https://github.com/acme/app/blob/{sha}/src/client.fake#L2-L8"
    assert guarded["analyzedAt"] == "2026-01-01T00:00:00Z" and guarded["status"] == "draft"
    assert (out / "acme/app/could-not-open-path.json").is_file()
    assert (out / "acme/app/could-not-open-path-2.json").is_file()
    assert report.parse_failures == [("src/broken.fake", "syntax error at line 1")]
    assert report.skipped_reasons() == {"no-literal": 1, "unresolved-constant": 1}
    assert report.skipped_files == {"test": ["tests/t.fake"]}
    assert report.sites == {"fake": {"throw": 2, "log": 2}}
    assert report.files == 2 and report.lines == 12 and report.elapsed_s > 0


def test_log_levels_all_harvests_every_level(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    report = harvest(repo, repo="acme/app", rev=sha, out=tmp_path / "r", log_levels="all")
    assert report.site_count == 5


def test_include_tests_and_exclude(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    report = harvest(repo, repo="acme/app", rev=sha, bundle=tmp_path / "b.jsonl", include_tests=True,
                     exclude=["src/broken*"])
    assert report.site_count == 5 and report.parse_failures == []
    assert report.skipped_files == {"excluded": ["src/broken.fake"]}


def test_a_second_harvest_is_byte_identical_and_check_passes(git_repo: Repo, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    repo, sha = git_repo(FILES)
    out = tmp_path / "records"
    harvest(repo, repo="acme/app", rev=sha, out=out)
    before = _snapshot(out)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")  # a later run: nothing changed, so nothing is rewritten
    again = harvest(repo, repo="acme/app", rev=sha, out=out)
    assert _snapshot(out) == before
    assert (again.new, again.updated, again.unchanged, again.changed) == ([], [], 4, False)
    assert harvest(repo, repo="acme/app", rev=sha, out=out, check=True).changed is False


def test_check_writes_nothing_and_reports_the_change(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    out = tmp_path / "records"
    report = harvest(repo, repo="acme/app", rev=sha, out=out, check=True)
    assert report.changed and len(report.new) == 4 and not out.exists()


def test_a_reharvest_keeps_what_contributors_wrote(git_repo: Repo, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    repo, first = git_repo(FILES)
    out = tmp_path / "records"
    harvest(repo, repo="acme/app", rev=first, out=out)
    path = out / "acme/app/a-sandbox-command-is-required.json"
    envelope = json.loads(path.read_text())
    envelope["record"].update(documentation="Written by hand.", status="active", solutions=["Pass a command."],
                              triggerScenarios="execute() is called with an empty command.", tags=["input"])
    path.write_text(json.dumps(envelope, indent=2) + "\n")
    _, second = git_repo({"src/client.fake": "fn run\n\n" + CLIENT.replace(
        'log warn "could not open {path}"\n', "")})
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    report = harvest(repo, repo="acme/app", rev=second, out=out)
    record = json.loads(path.read_text())["record"]
    assert (record["documentation"], record["status"], record["solutions"], record["tags"]) == (
        "Written by hand.", "active", ["Pass a command."], ["input"])
    assert record["triggerScenarios"] == "execute() is called with an empty command."
    assert record["lineNumber"] == 5 and record["analyzedSha"] == second and second in record["githubUrl"]
    assert record["analyzedAt"] == record["contentChangedAt"] == "2027-01-15T08:00:00Z"
    gone_id = record_id("acme/app", "src/client.fake", "could not open {path}", 2)
    assert report.gone == [(gone_id, "src/client.fake", 9)]
    assert (out / "acme/app/could-not-open-path-2.json").is_file()  # nothing is deleted
    drafted = next(r for r in _records(out).values() if r["errorClass"] == "CreateosError")
    assert drafted["triggerScenarios"] == ("raised in execute() when creationMayHaveSucceeded is set and processId is "
                                         "not set")
    assert {key for key, _, _ in report.updated} >= {record["id"], drafted["id"]}


def test_a_taken_slug_gets_a_numeric_suffix(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    out = tmp_path / "records"
    write_tree(out, {"acme/app/a-sandbox-command-is-required.json": json.dumps(
        {"record": {"id": "0123456789abcdef", "repo": "acme/app", "slug": "a-sandbox-command-is-required"},
         "datasetVersion": "2026-01-01T00:00:00Z"})})
    harvest(repo, repo="acme/app", rev=sha, out=out)
    drafted = json.loads((out / "acme/app/a-sandbox-command-is-required-2.json").read_text())["record"]
    assert drafted["errorMessage"] == "A sandbox command is required."


def test_an_unreadable_record_in_the_folder_stops_the_harvest(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    out = tmp_path / "records"
    write_tree(out, {"acme/app/x.json": "{not json"})
    with pytest.raises(DataError, match=r"x\.json:1: not a readable record envelope"):
        harvest(repo, repo="acme/app", rev=sha, out=out)
    assert sorted(p.name for p in out.rglob("*")) == ["acme", "app", "x.json"]


def test_a_bundle_is_written_whole_and_byte_identical_again(git_repo: Repo, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    repo, sha = git_repo(FILES)
    bundle = tmp_path / "drafts.jsonl"
    first = harvest(repo, repo="acme/app", rev=sha, bundle=bundle)
    data = bundle.read_bytes()
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert len(lines) == 4 and [e["record"]["id"] for e in lines] == sorted(e["record"]["id"] for e in lines)
    assert first.new and all(path is None for _, path in first.new)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    again = harvest(repo, repo="acme/app", rev=sha, bundle=bundle)
    assert bundle.read_bytes() == data and not again.changed
    assert harvest(repo, repo="acme/app", rev=sha, bundle=bundle, check=True).changed is False


def test_processes_give_the_same_result(git_repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        single_threaded: bool, forks: list[int]) -> None:
    if not single_threaded:
        return
    files = {f"src/m{n:02}.fake": CLIENT.replace("could not open", f"module {n} could not open")
             for n in range(12)}
    repo, sha = git_repo(files)
    monkeypatch.setattr(run_module, "CHUNK_FILES", 2)
    harvest(repo, repo="acme/app", rev=sha, bundle=tmp_path / "one.jsonl", jobs=1)
    assert forks == []
    report = harvest(repo, repo="acme/app", rev=sha, bundle=tmp_path / "two.jsonl", jobs=2)
    # one child, for the sites: the constants pass runs in this process, so that its kept trees serve both
    assert forks == [1] and report.site_count == 12 * 4
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_a_folder_with_sha_and_its_pyproject_sinks(tmp_path: Path) -> None:
    folder = tmp_path / "app"
    write_tree(folder, {"a.fake": 'throw Error "boom {x}"\nlog info "started {n}"\n',
                        "pyproject.toml": "[tool.errdex.harvest]\nlog-levels = 'info'\n"})
    report = harvest(folder, repo="acme/app", sha="c" * 40, bundle=tmp_path / "b.jsonl")
    assert report.site_count == 2 and report.sha == "c" * 40


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "app"
    write_tree(folder, {"a.fake": 'throw Error "boom"\n'})
    cases: list[tuple[dict[str, Any], str]] = [
        ({"sha": "c" * 40, "log_levels": "loud"}, "--log-levels"),
        ({"sha": "c" * 40, "out": tmp_path / "o", "bundle": tmp_path / "b.jsonl"}, "not both"),
        ({"sha": "c" * 40, "jobs": 0}, "--jobs"), ({"sha": "c" * 40, "repo": "a/b/c"}, "owner/name")]
    for kwargs, message in cases:
        with pytest.raises(UsageError, match=message) as caught:
            harvest(folder, **{"repo": "acme/app", **kwargs})
        assert "\n" not in str(caught.value)


@pytest.mark.skipif(4 not in RECORD_MODELS, reason="format version 4 (drafts) is not in the models yet")
def test_validate_gives_drafts_warnings_and_no_errors(git_repo: Repo, tmp_path: Path) -> None:
    repo, sha = git_repo(FILES)
    harvest(repo, repo="acme/app", rev=sha, out=tmp_path / "records")
    report = validate([tmp_path / "records"])
    assert [f for f in report.findings if f.severity == "error"] == []


def test_a_file_that_names_no_sink_is_read_but_not_parsed(tmp_path: Path) -> None:
    # the real C and Java finders: a file without a sink's name (nor throw, for Java) holds no site, so it
    # is not parsed, and a syntax error in it is not listed; the parsed files' failures still are
    write_tree(tmp_path / "src", {
        "quiet.c": "int f(void) { return 1; }\n" + "$$ @@ " * 12 + "\n",
        "loud.c": 'int g(void) { printf("g ran %d\\n", 1); }\n' + "$$ @@ " * 12 + "\n",
        "Quiet.java": "class Quiet { int f() { return 1; } }\n",
        "Loud.java": 'class Loud { void f() { throw new IllegalStateException("loud failed"); } }\n',
    })
    report = harvest(tmp_path / "src", repo="acme/app", sha="0" * 40, bundle=tmp_path / "b.jsonl",
                     log_levels="all")
    assert report.files == 4 and report.unparsed == 2
    assert [path for path, _ in report.parse_failures] == ["loud.c"]
    assert report.sites == {"c": {"log": 1}, "java": {"throw": 1}}
    assert report.as_dict()["unparsedFiles"] == 2
    assert "2 file(s) read but not parsed (no sink name)" in report.summary_lines()


def test_a_finder_that_overflows_the_stack_on_one_file_is_a_listed_failure(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # a finder's RecursionError (or any bug) on one file is that file's listed failure; the run goes on
    real = FINDER.find

    def find(source: bytes, path: str, **kwargs: Any) -> Any:
        if path.endswith("deep.py"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(source, path, **kwargs)

    monkeypatch.setattr(FINDER, "find", find)
    write_tree(tmp_path / "src", {"deep.py": 'raise ValueError("never read")\n',
                                  "fine.py": 'raise ValueError("the fine file is read")\n'})
    report = harvest(tmp_path / "src", repo="acme/app", sha="0" * 40, bundle=tmp_path / "b.jsonl", jobs=1)
    assert report.parse_failures == [("deep.py", "RecursionError: the file is too deeply nested or too large")]
    assert report.sites == {"python": {"throw": 1}}


def _errdex(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = run(*args, cwd=cwd, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.skipif(os.uname().sysname == "Darwin", reason="macOS refuses file names that are not UTF-8")
def test_a_file_whose_name_is_not_utf8_is_skipped_and_every_command_reads_the_folder(tmp_path: Path) -> None:
    # issue 24, break 6: its name gave lone surrogates in filePath and githubUrl, and then match, site build and
    # the next harvest refused the whole folder
    folder = tmp_path / "app"
    write_tree(folder, {"ok.py": 'raise ValueError("the good file is read")\n'})
    with open(os.path.join(os.fsencode(folder), b"bad\xff.py"), "wb") as handle:
        handle.write(b'raise ValueError("a file whose name is no text")\n')
    (folder / "content.py").write_bytes(b'raise ValueError("bytes \xff\xfe in the message")\n')
    args = ("harvest", str(folder), "--repo", "acme/app", "--sha", "c" * 40, "--out", str(tmp_path / "records"))
    done = _errdex(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "files skipped: undecodable-name 1" in done.stderr and "skipped bad\\xff.py: its path is not UTF-8" \
        in done.stderr
    texts = [path.read_bytes() for path in (tmp_path / "records").rglob("*.json")]
    assert len(texts) == 2 and not any(b"\\ud" in text for text in texts)  # no surrogate escape anywhere
    assert any("bytes \ufffd\ufffd in the message".encode() in text for text in texts)
    assert _errdex(*args, "--check", cwd=tmp_path).returncode == 0
    (tmp_path / "app.log").write_text("the good file is read\n")
    for command in (("validate", "records"), ("match", "--records", "records", "app.log"),
                    ("site", "build", "--records", "records", "--out", "site")):
        result = _errdex(*command, cwd=tmp_path)
        assert result.returncode == 0, (command, result.stderr)


def test_a_tree_without_sites_writes_no_bundle_and_the_same_harvest_runs_again(tmp_path: Path) -> None:
    # issue 24, break 7: a 0-byte bundle was written, which the identical second run refused (EDX005)
    write_tree(tmp_path / "app", {"quiet.py": "x = 1\n"})
    bundle = tmp_path / "drafts.jsonl"
    args = ("harvest", "app", "--repo", "acme/app", "--sha", "c" * 40, "--bundle", str(bundle))
    for _ in range(2):
        done = _errdex(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "drafts.jsonl is not written" in done.stderr and not bundle.exists()
    bundle.write_bytes(b"")  # what an earlier errdex wrote: taken as no record, and left alone
    done = _errdex(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _errdex(*args, "--check", cwd=tmp_path).returncode == 0
    write_tree(tmp_path / "app", {"loud.py": 'raise ValueError("now there is a site")\n'})
    assert _errdex(*args, cwd=tmp_path).returncode == 0
    assert _errdex("validate", str(bundle), cwd=tmp_path).returncode == 0


def test_a_hostile_sink_name_in_pyproject_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    # issue 24, break 9: name = "a\nb" made every Python file fail (QueryError), 0 sites, exit 0
    write_tree(tmp_path / "app", {"a.py": 'raise ValueError("a site")\n',
                                  "pyproject.toml": '[[tool.errdex.harvest.sinks]]\nname = "a\\nb"\n'})
    done = _errdex("harvest", "app", "--repo", "acme/app", "--sha", "c" * 40, "--out", "records", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "app/pyproject.toml [tool.errdex.harvest] sinks[0].name" in done.stderr and "'a\\nb'" in done.stderr
    assert not (tmp_path / "records").exists()


def test_a_harvest_where_the_finder_failed_on_every_file_stops_and_writes_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path / "app", {"a.fake": "broken\n", "b.fake": "broken\n", "notes.txt": "not harvested\n"})
    with pytest.raises(DataError, match=r"harvest failed on every file parsed \(2; the first: a.fake: RuntimeError: "
                                        "the finder broke at line 1") as caught:
        harvest(tmp_path / "app", repo="acme/app", sha="c" * 40, out=tmp_path / "records")
    assert "\n" not in str(caught.value) and not (tmp_path / "records").exists()
    with pytest.raises(DataError, match="harvest failed on every file parsed"):  # drift's: not every site gone
        harvest_sites(tmp_path / "app", repo="acme/app", sha="c" * 40)


def test_files_that_cannot_be_parsed_are_listed_never_a_reason_to_stop(tmp_path: Path) -> None:
    # the tree's own syntax errors, or a file the parser is not given, even when they are all it holds
    write_tree(tmp_path / "app", {"a.fake": "bad\n", "deep.py": "".join(" " * n + "if x:\n" for n in range(720))
                                  + " " * 720 + "raise ValueError(\"deep down\")\n"})
    report = harvest(tmp_path / "app", repo="acme/app", sha="c" * 40, out=tmp_path / "records")
    assert report.site_count == 0 and [path for path, _ in report.parse_failures] == ["a.fake", "deep.py"]
    write_tree(tmp_path / "app", {"c.fake": 'throw Error "one file is read"\n'})
    report = harvest(tmp_path / "app", repo="acme/app", sha="c" * 40, out=tmp_path / "records")
    assert report.site_count == 1 and len(report.parse_failures) == 2
