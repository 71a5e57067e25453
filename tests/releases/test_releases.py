"""Releases: reproducible bytes, contentChangedAt moved only for what changed, changelog, lifecycle, diff."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from errdex._locks import LOCK_FILE, hold
from errdex.errors import DataError, UsageError
from errdex.index import build_index
from errdex.releases import cut_release, diff, record_releases, release_history
from tests.conftest import ROOT
from tests.processes import leftovers, run, start

# Not a test of the cache: releases read the same records again and again, and these share one cache of them for
# speed.
pytestmark = pytest.mark.usefixtures("shared_cache")

FIRST, SECOND = "2026-12-01T00:00:00Z", "2026-12-08T00:00:00Z"
ONE = "createos-returned-invalid-json"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "records"
    shutil.copytree(ROOT / "records", target, ignore=shutil.ignore_patterns(".releases"))
    return target


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _path(folder: Path, slug: str) -> Path:
    return folder / "paperclipai" / "paperclip" / f"{slug}.json"


def _edit(folder: Path, slug: str, **changes: Any) -> None:
    path = _path(folder, slug)
    envelope = json.loads(path.read_text())
    envelope["record"].update(changes)
    path.write_text(json.dumps(envelope, indent=2, ensure_ascii=False) + "\n")


def test_a_release_cut_twice_gives_identical_bytes(folder: Path, tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    first = cut_release(folder, version=FIRST, out=tmp_path / "a", changelog=changelog)
    files, log = _snapshot(folder), changelog.read_bytes()
    again = cut_release(folder, version=FIRST, out=tmp_path / "b", changelog=changelog)
    assert (tmp_path / "a" / first.bundle.name).read_bytes() == (tmp_path / "b" / again.bundle.name).read_bytes()
    assert _snapshot(folder) == files and changelog.read_bytes() == log
    assert again.files_written == [] and len(first.added) == 53  # 26 CreateOS and 27 sshd records
    lines = gzip.decompress(first.bundle.read_bytes()).decode().splitlines()
    assert [json.loads(line)["record"]["id"] for line in lines] == sorted(r["id"] for r in first.added)
    assert all(json.loads(line)["datasetVersion"] == FIRST for line in lines)


def test_changing_one_field_moves_only_that_records_date(folder: Path, tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    cut_release(folder, version=FIRST, out=tmp_path / "a", changelog=changelog)
    before = {p: json.loads(p.read_text())["record"] for p in folder.rglob("*.json") if ".releases" not in p.parts}
    _edit(folder, ONE, severity="warning")
    report = cut_release(folder, version=SECOND, out=tmp_path / "b", changelog=changelog)
    assert [(r["slug"], fields) for r, fields in report.changed] == [(ONE, ["severity"])]
    assert report.added == [] and report.unchanged == 52
    for path, old in before.items():
        now = json.loads(path.read_text())
        assert now["datasetVersion"] == SECOND
        expected = SECOND if path.name == f"{ONE}.json" else old["contentChangedAt"]
        assert now["record"]["contentChangedAt"] == expected, path.name
    text = changelog.read_text()
    assert text.index(f"## {SECOND}") < text.index(f"## {FIRST}")
    assert f"- `{ONE}` (e1429068ae6e0ae1): severity" in text
    assert record_releases(folder)["e1429068ae6e0ae1"] == (FIRST, SECOND)
    assert report.manifest["counts"]["changed"] == 1 and report.manifest["previous"] == FIRST


def test_withdrawn_records_stay_and_deleted_ones_refuse(folder: Path, tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    cut_release(folder, version=FIRST, out=tmp_path / "a", changelog=changelog)
    _edit(folder, ONE, status="withdrawn", statusReason="The client no longer parses bodies itself.")
    report = cut_release(folder, version=SECOND, out=tmp_path / "b", changelog=changelog)
    assert [r["slug"] for r in report.withdrawn] == [ONE]
    assert "### Withdrawn" in changelog.read_text()
    _path(folder, ONE).unlink()
    kept = _snapshot(folder)
    with pytest.raises(DataError, match="records are never deleted"):
        cut_release(folder, version="2026-12-09T00:00:00Z", out=tmp_path / "c", changelog=changelog)
    assert _snapshot(folder) == kept


def test_versions_must_be_times_and_move_forward(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError):
        cut_release(folder, version="v1.0", out=tmp_path / "a")
    cut_release(folder, version=SECOND, out=tmp_path / "a")
    with pytest.raises(UsageError, match="older than the previous release"):
        cut_release(folder, version=FIRST, out=tmp_path / "b")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1765152000")  # 2025-12-08: older, so refused too
    with pytest.raises(UsageError):
        cut_release(folder, out=tmp_path / "c")


@pytest.mark.parametrize("epoch", ["99999999999999", "abc", "-5", "1.5", " 1765152000"])
def test_a_malformed_source_date_epoch_is_a_usage_error(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        cli: Any, epoch: str) -> None:
    # It was ignored for the current time (abc, -5: a release that is not reproducible, silently) or an
    # internal error (a year past 9999); reproducible builds ask a build to stop on a malformed value.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    result = cli("release", "--records", str(folder), "--out", str(tmp_path / "out"), "--check")
    assert result.exit_code == 2, result.stderr
    assert "SOURCE_DATE_EPOCH" in result.stderr and "Traceback" not in result.stderr


def test_diff_folders_bundles_and_releases(folder: Path, tmp_path: Path, cli: Any) -> None:
    first = cut_release(folder, version=FIRST, out=tmp_path / "a")
    old = tmp_path / "old"
    shutil.copytree(folder, old)
    _edit(folder, ONE, severity="warning", solutions=["Read the status first."])
    result = diff(old, folder)
    assert [(r["slug"], [f[0] for f in fields]) for r, fields in result.changed] == [(ONE, ["severity", "solutions"])]
    assert result.unchanged == 52 and not result.added and not result.removed
    assert diff(first.bundle, old).same  # a bundle and the folder it was cut from
    assert diff(tmp_path / "a" / "manifest.json", old).same
    out = cli("diff", str(old), str(folder), "--format", "json")
    assert out.exit_code == 1
    assert out.json()["changed"][0]["fields"][0] == {"field": "severity", "old": "error", "new": "warning"}
    assert cli("diff", str(old), str(old)).exit_code == 0
    missing = cli("diff", str(tmp_path / "nope"), str(old))
    assert missing.exit_code == 2 and "no such file or folder" in missing.stderr  # trouble, as diff(1)


def test_cli_release(folder: Path, tmp_path: Path, cli: Any) -> None:
    result = cli("release", "--records", str(folder), "--version", FIRST, "--out", str(tmp_path / "out"),
                 "--changelog", str(tmp_path / "CHANGELOG.md"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("added") == 53 and "released 2026-12-01T00:00:00Z: 53 records" in result.stderr
    check = cli("release", "--records", str(folder), "--version", SECOND, "--check")
    assert check.exit_code == 0 and "would release" in check.stderr
    assert not list((folder / ".releases").glob("2026-12-08*"))


def test_explain_shows_release_and_lifecycle(folder: Path, tmp_path: Path, cli: Any) -> None:
    cut_release(folder, version=FIRST, out=tmp_path / "a")
    _edit(folder, ONE, status="withdrawn", statusReason="The client no longer parses bodies itself.")
    cut_release(folder, version=SECOND, out=tmp_path / "b")
    out = cli("explain", ONE, "--records", str(folder))
    assert out.exit_code == 0, out.stderr
    assert "This record is withdrawn: The client no longer parses bodies itself." in out.stdout
    assert f"release {SECOND}; added in {FIRST}, content last changed in {SECOND}" in out.stdout
    line = "ERROR CreateOS returned invalid JSON."
    assert cli("match", "-", "--records", str(folder), "--format", "jsonl", input=line).stdout == ""
    shown = cli("match", "-", "--records", str(folder), "--format", "jsonl", "--include-retired", input=line)
    assert json.loads(shown.stdout)["matches"][0]["slug"] == ONE


def test_sql_macro_skips_retired_records(folder: Path, tmp_path: Path) -> None:
    _edit(folder, ONE, status="withdrawn", statusReason="Gone upstream.")
    db = build_index([folder], db=tmp_path / "i.duckdb").path
    con = duckdb.connect(str(db), read_only=True)
    line = "ERROR CreateOS returned invalid JSON."
    assert con.execute("SELECT record_id FROM errdex_match($1)", [line]).fetchall() == []
    assert con.execute("SELECT status, status_reason FROM records WHERE slug = $1", [ONE]).fetchall() == [
        ("withdrawn", "Gone upstream.")]


def test_diff_finds_the_bundle_of_a_manifest_kept_in_the_records(folder: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cut_release(folder, version=FIRST)  # the bundle goes to build/releases/VERSION/ under the working folder
    manifest = folder / ".releases" / "2026-12-01T000000Z.json"
    assert diff(manifest, folder).same
    shutil.rmtree(tmp_path / "build")
    with pytest.raises(Exception, match="neither beside it nor in build/releases/"):
        diff(manifest, folder)


def test_diff_exits_2_for_trouble_and_1_only_when_the_sides_differ(folder: Path, tmp_path: Path, cli: Any) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"record": ', encoding="utf-8")
    for args in ((str(folder), str(tmp_path / "nope.json")), (str(broken), str(folder))):
        result = cli("diff", *args)
        assert result.exit_code == 2, result.stderr
        assert result.stderr.startswith("errdex: error: ") and result.stderr.count("\n") == 1
    _edit(folder, ONE, severity="warning")
    assert cli("diff", str(ROOT / "records"), str(folder)).exit_code == 1


# ---- a release killed half-way, and two at once --------------------------------------------------------


def _reference_release(tmp_path: Path) -> dict[str, bytes]:
    """What cutting FIRST from a fresh copy writes: the records, the bundle folder and the changelog."""
    work = tmp_path / "reference"
    shutil.copytree(ROOT / "records", work / "records", ignore=shutil.ignore_patterns(".releases"))
    result = run("release", "--version", FIRST, "--out", "out", cwd=work)
    assert result.returncode == 0, result.stderr
    return _snapshot(work)


@pytest.mark.parametrize("point", ["change:staged-one", "change:journaled", "change:renamed-one"])
def test_a_release_killed_half_way_is_finished_or_undone_by_the_next_run(tmp_path: Path, point: str) -> None:
    reference = _reference_release(tmp_path)
    work = tmp_path / "work"
    shutil.copytree(ROOT / "records", work / "records", ignore=shutil.ignore_patterns(".releases"))
    before = _snapshot(work)
    killed = run("release", "--version", FIRST, "--out", "out", cwd=work, ERRDEX_CRASH_AT=point)
    assert killed.returncode == -9, killed.stderr
    assert leftovers(work)  # the kill left temporary files (and maybe a journal) behind
    records_now = {k: v for k, v in _snapshot(work).items() if k.startswith("records/") and "/." not in k}
    if point == "change:staged-one":  # killed before the journal: nothing was changed
        assert records_now == {k: v for k, v in before.items() if k.startswith("records/")}
    again = run("release", "--version", FIRST, "--out", "out", cwd=work)
    assert again.returncode == 0, again.stderr
    if point != "change:staged-one":
        assert "finished a change that process" in again.stderr
    assert leftovers(work) == []
    assert _snapshot(work) == reference


def test_a_release_refuses_while_another_holds_the_folder(folder: Path, tmp_path: Path) -> None:
    before = _snapshot(folder)
    with hold(folder / LOCK_FILE, what="release"):
        result = run("release", "--records", str(folder), "--version", FIRST, "--out", str(tmp_path / "out"),
                     cwd=tmp_path, ERRDEX_LOCK_WAIT="0.2")
        assert result.returncode == 1
        assert f"errdex (pid {os.getpid()}, release" in result.stderr and "gave up" in result.stderr
        assert result.stderr.count("\n") == 1
    assert {k: v for k, v in _snapshot(folder).items() if k != LOCK_FILE} == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "CHANGELOG.md").exists()


def test_two_releases_at_once_take_turns(tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(ROOT / "records", work / "records", ignore=shutil.ignore_patterns(".releases"))
    first, second = (start("release", "--version", version, "--out", f"out-{n}", cwd=work)
                     for n, version in enumerate((FIRST, SECOND)))
    first_err, second_err = first.communicate(timeout=60)[1], second.communicate(timeout=60)[1]
    assert second.returncode == 0, second_err
    manifests = {m["version"]: m for m in release_history(work / "records")}
    changelog = (work / "CHANGELOG.md").read_text(encoding="utf-8")
    if first.returncode == 0:  # the first went first: the second builds on it
        assert manifests[SECOND]["previous"] == FIRST and manifests[SECOND]["counts"]["added"] == 0
        assert changelog.count(f"## {SECOND}\n") == changelog.count(f"## {FIRST}\n") == 1
        assert changelog.index(f"## {SECOND}") < changelog.index(f"## {FIRST}")
    else:  # the second went first: the first is now older than the last release, and refused
        assert first.returncode == 2 and "is older than the previous release" in first_err
        assert set(manifests) == {SECOND} and f"## {FIRST}" not in changelog
    assert leftovers(work) == []


def test_a_release_never_writes_through_a_folder_link_out_of_the_tree(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    moved = _path(folder, ONE)
    text = json.dumps(json.loads(moved.read_text()))  # not canonical: a release would rewrite it
    (outside / moved.name).write_text(text)
    moved.unlink()
    (folder / "elsewhere").symlink_to(outside, target_is_directory=True)
    with pytest.raises(DataError, match="symbolic link that leaves"):
        cut_release(folder, version=FIRST, out=tmp_path / "a", changelog=tmp_path / "CHANGELOG.md")
    assert (outside / moved.name).read_text() == text and not (tmp_path / "a").exists()


HOSTILE_MANIFESTS = {
    "deep": ("[" * 100_000 + "]" * 100_000, ":1:65: not a release manifest: arrays and objects nest more than 64"),
    "nan": ('{"version": NaN}', ":1:13: not a release manifest: NaN is not a JSON number"),
    "not-utf8": (b"\xff", ":1:1: not a release manifest: byte 0xff is not valid UTF-8"),
    "a-list": ("[1]", ": not a release manifest: not a JSON object"),
    "version-not-a-string": ('{"version": 5, "records": {}}', ": not a release manifest: 'version' is not a string"),
    "record-not-an-object": ('{"version": "2026-11-30T00:00:00Z", "records": {"a": 5}}',
                             ": not a release manifest: record 'a' is not an object with a 'hash'"),
    "bundle-out-of-the-folder": ('{"version": "2026-11-30T00:00:00Z", "records": {}, '
                                 '"bundle": {"file": "../../etc/passwd"}}', ": not a release manifest: 'bundle' names"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_MANIFESTS))
def test_a_hostile_release_manifest_is_named_not_a_crash(folder: Path, tmp_path: Path, cli: Any, name: str) -> None:
    text, expected = HOSTILE_MANIFESTS[name]
    manifest = folder / ".releases" / "2026-11-30T000000Z.json"
    manifest.parent.mkdir()
    manifest.write_bytes(text if isinstance(text, bytes) else text.encode())
    for command in (["release", "--records", str(folder), "--version", FIRST, "--check"],
                    ["site", "build", "--records", str(folder), "--out", str(tmp_path / "site")]):
        result = cli(*command)  # each of these was an internal error (exit 70)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, (command, result.stderr)
        assert f"{manifest}{expected}" in result.stderr, result.stderr
    result = cli("diff", str(manifest), str(folder))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr


def test_a_release_manifest_that_is_a_fifo_or_a_device_is_refused_at_once(folder: Path, cli: Any) -> None:
    releases = folder / ".releases"
    releases.mkdir()
    os.mkfifo(releases / "2026-11-30T000000Z.json")  # waited forever for a writer
    (releases / "2026-11-29T000000Z.json").symlink_to("/dev/zero")  # read until memory ran out
    result = cli("release", "--records", str(folder), "--version", FIRST, "--check")
    assert result.exit_code == 1 and result.stderr.endswith("000000Z.json: not a regular file\n"), result.stderr


def test_a_changelog_that_is_a_fifo_a_device_or_not_utf8_stops_the_release_cleanly(folder: Path, tmp_path: Path,
                                                                                   cli: Any) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    before = _snapshot(folder)
    for make, expected in ((lambda: os.mkfifo(changelog), "not a regular file"),  # blocked forever
                           (lambda: changelog.symlink_to("/dev/zero"), "not a regular file"),  # exhausted memory
                           (lambda: changelog.write_bytes(b"\xff\xfe"), "not UTF-8 (byte 1)")):  # exit 70
        make()
        result = cli("release", "--records", str(folder), "--version", FIRST, "--out", str(tmp_path / "out"),
                     "--changelog", str(changelog))
        assert result.exit_code == 1 and result.stderr == f"errdex: error: {changelog}: {expected}" + (
            "; the changelog is Markdown text, save it as UTF-8\n" if "UTF-8" in expected else "\n"), result.stderr
        assert _snapshot(folder) == before  # all or nothing: no record, manifest or journal written
        assert not (tmp_path / "out").exists() and not (folder / ".releases").exists()  # nor an empty folder
        changelog.unlink()


@pytest.mark.parametrize("text", [
    "[1]",                                                             # not an object
    '{"version": 5}',                                                  # a version that is not a string
    '{"version": "2026-12-01T00:00:00Z", "records": "x"}',           # records not an object
    '{"version": "2026-12-01T00:00:00Z", "records": {"a": 7}}',      # an entry not an object
    "[" * 100_000,                                                     # deeper than the parser recurses
])
def test_a_damaged_manifest_is_one_line_for_site_build_and_release(folder: Path, tmp_path: Path, cli: Any,
                                                                   text: str) -> None:
    """A hand-edited or conflicted manifest in records/.releases made every command reading the history exit 70."""
    (folder / ".releases").mkdir()
    (folder / ".releases" / "2026-12-01T000000Z.json").write_text(text, encoding="utf-8")
    for command in (["site", "build", "--records", str(folder), "--out", str(tmp_path / "site"), "--no-search"],
                    ["release", "--records", str(folder), "--version", SECOND, "--check"]):
        result = cli(*command)
        assert result.exit_code == 1, (command, result.stderr)
        assert result.stderr.count("\n") == 1 and "internal error" not in result.stderr
        assert "2026-12-01T000000Z.json" in result.stderr and "not a release manifest" in result.stderr


@pytest.mark.parametrize("change", [{}, {"errorMessage": "Another message.", "messagePattern": "Another message\\."}])
def test_a_release_refuses_two_records_with_one_id(folder: Path, tmp_path: Path, change: dict[str, Any]) -> None:
    """A copy of a record under another file name (or another record given its id) would be published twice
    in the bundle while the manifest, keyed by id, keeps one: the release stops and writes nothing."""
    source = _path(folder, ONE)
    envelope = json.loads(source.read_text())
    envelope["record"].update(change)
    (source.parent / "copy of it.json").write_text(json.dumps(envelope, indent=2))
    files = _snapshot(folder)
    with pytest.raises(DataError, match=r"is also the id of") as caught:
        cut_release(folder, version=FIRST, out=tmp_path / "a", changelog=tmp_path / "CHANGELOG.md")
    assert "copy of it.json" in str(caught.value) and f"{ONE}.json" in str(caught.value)
    assert _snapshot(folder) == files and not (tmp_path / "a").exists()


def test_diff_refuses_a_side_with_two_records_of_one_id(folder: Path, tmp_path: Path, cli: Any) -> None:
    """One of two records that share an id would hide the other: a change in it was reported as 'same' (0)."""
    bundle = tmp_path / "before.jsonl"
    assert cli("export", "--to", "jsonl", "--records", str(folder), "--output", str(bundle)).exit_code == 0
    envelope = json.loads(_path(folder, ONE).read_text())
    envelope["record"]["severity"] = "info"
    (_path(folder, ONE).parent / "a-copy.json").write_text(json.dumps(envelope, indent=2))
    for old, new in ((bundle, folder), (folder, bundle)):
        result = cli("diff", str(old), str(new))
        assert result.exit_code == 2, result.stdout + result.stderr
        assert "a-copy.json" in result.stderr and "appears twice" in result.stderr


def test_a_release_reads_record_files_with_a_bom_and_crlf_as_validate_does(folder: Path, tmp_path: Path) -> None:
    """validate and every loader accept a UTF-8 BOM and CRLF line ends; release crashed (exit 70) on the BOM."""
    path = _path(folder, ONE)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    report = cut_release(folder, version=FIRST, out=tmp_path / "a", changelog=tmp_path / "CHANGELOG.md")
    assert len(report.added) == 53
    assert path.read_bytes().startswith(b"{\n") and b"\r" not in path.read_bytes()


def test_diff_of_a_manifest_refuses_a_bundle_that_is_not_the_one_it_names(folder: Path, tmp_path: Path,
                                                                          cli: Any) -> None:
    """A bundle beside a manifest that is not the release's (cut short, replaced, another release's) was read
    as the release: records it lacks were reported as added. Its SHA-256 must be the manifest's."""
    report = cut_release(folder, version=FIRST, out=tmp_path / "out", changelog=tmp_path / "CHANGELOG.md")
    lines = gzip.decompress(report.bundle.read_bytes()).splitlines(keepends=True)
    report.bundle.write_bytes(gzip.compress(b"".join(lines[:5]), mtime=0))
    result = cli("diff", str(tmp_path / "out" / "manifest.json"), str(folder))
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "SHA-256" in result.stderr and report.bundle.name in result.stderr


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
@pytest.mark.parametrize("first", ["# Changelog{n}{n}Notes of the team.{n}{n}## 1.0{n}{n}Old notes.{n}",
                                   "## 1.0{n}{n}Old notes.{n}", "Notes of the team. Old notes.{n}"])
def test_a_release_keeps_what_a_changelog_already_says(folder: Path, tmp_path: Path, newline: str, bom: str,
                                                       first: str) -> None:
    """Text before the first section, every section of a file with CRLF line ends, and a first section at the
    top of the file were dropped when the release put its entry in."""
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_bytes((bom + first.format(n=newline)).encode())
    cut_release(folder, version=FIRST, out=tmp_path / "a", changelog=changelog)
    text = changelog.read_text(encoding="utf-8")
    assert "Old notes." in text and f"## {FIRST}\n" in text, text[:400]
    if "Notes of the team." in first:
        assert "Notes of the team." in text
    if "## 1.0" in first:
        assert text.index(f"## {FIRST}") < text.index("## 1.0")
    once = changelog.read_bytes()
    cut_release(folder, version=FIRST, out=tmp_path / "b", changelog=changelog)
    assert changelog.read_bytes() == once
