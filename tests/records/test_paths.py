"""Record paths: a record file never leaves the records folder, whatever the configuration selects; a page path
is one page per repository (without case) and slug, safe on every filesystem."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.bundles import import_bundle
from errdex.records.canonical import canonical_text
from errdex.records.paths import (
    SEGMENT_MAX,
    UnsafeRecordPath,
    decode_segment,
    page_path,
    path_segment,
    record_path,
    repo_key,
)

# Not a test of the cache: these validate or load the bundled records again and again, and share one cache of
# them for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")

HOSTILE = [
    ("../..", "x"),
    ("a/b", "../../../../escaped"),
    ("a/b", "/tmp/escaped"),
    ("/tmp/x", "y"),
    ("a/b/c", "y"),
    ("a/..", "y"),
    (".git/hooks", "y"),
    ("a/b", "x\x00y"),
    ("a/b", "x/y"),
    ("a/b", "X"),
    ("a\\b/c", "y"),
    ("a/b", ""),
    ("a/b", "a" * 61),
    ("a/b", None),
]


@pytest.mark.parametrize(("repo", "slug"), HOSTILE)
def test_names_that_could_leave_the_folder_are_refused(tmp_path: Path, repo: Any, slug: Any) -> None:
    with pytest.raises(UnsafeRecordPath):
        record_path(tmp_path, repo, slug)


def test_plain_names_give_owner_repo_slug(tmp_path: Path) -> None:
    assert record_path(tmp_path, "evil/-repo", "a-b-2") == tmp_path / "evil" / "-repo" / "a-b-2.json"
    assert record_path(tmp_path, "Org.x/re_po.js", "z") == tmp_path / "Org.x" / "re_po.js" / "z.json"


def test_a_folder_link_out_of_the_records_folder_is_refused(tmp_path: Path) -> None:
    records, outside = tmp_path / "records", tmp_path / "outside"
    outside.mkdir()
    records.mkdir()
    (records / "acme").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafeRecordPath, match="outside the records folder"):
        record_path(records, "acme/api", "x")
    (records / "inner").mkdir()
    (records / "alias").symlink_to(records / "inner", target_is_directory=True)
    assert record_path(records, "alias/api", "x") == records / "alias" / "api" / "x.json"


#: Every check that could stop a hostile repo or slug, ignored as a project's errdex.toml may do.
IGNORED = 'ignore = ["EDX010", "EDX111", "EDX112", "EDX113", "EDX114", "EDX131"]\n'


@pytest.mark.parametrize(("repo", "slug"), [("../..", "pwned"), ("a/b", "../../../pwned"), ("a/b", "{tmp}/pwned"),
                                            ("{tmp}", "pwned"), ("..//..", "pwned")])
def test_import_never_writes_outside_the_records_dir_whatever_is_ignored(
        cli, tmp_path: Path, seed: dict[str, Any], monkeypatch: pytest.MonkeyPatch, repo: str, slug: str) -> None:
    work = tmp_path / "work"
    (work / "records").mkdir(parents=True)
    (work / "errdex.toml").write_text(IGNORED, encoding="utf-8")
    monkeypatch.chdir(work)
    seed["record"]["repo"], seed["record"]["slug"] = repo.format(tmp=tmp_path), slug.format(tmp=tmp_path)
    bundle = work / "upstream.jsonl"
    bundle.write_text(canonical_text(seed, bundle_line=True) + "\n", encoding="utf-8")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    for extra in ([], ["--overwrite"]):
        result = cli("import", str(bundle), "--records", str(work / "records"), *extra)
        assert result.exit_code == 1, (result.stdout, result.stderr)
        assert "internal error" not in result.stderr and "invalid" in result.stdout, result.stderr
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_import_refuses_a_records_folder_whose_owner_folder_links_out(tmp_path: Path, seed: dict[str, Any]) -> None:
    records, outside = tmp_path / "records", tmp_path / "outside"
    outside.mkdir()
    records.mkdir()
    owner = seed["record"]["repo"].split("/")[0]
    os.symlink(outside, records / owner)
    bundle = tmp_path / "b.jsonl"
    bundle.write_text(canonical_text(seed, bundle_line=True) + "\n", encoding="utf-8")
    report = import_bundle(bundle, records_dir=records, overwrite=True)
    assert [e.status for e in report.entries] == ["invalid"]
    assert "outside the records folder" in report.entries[0].reasons[0]
    assert list(outside.rglob("*")) == []


SAFE = re.compile(r"[a-z0-9._~-]+")
WINDOWS_RESERVED = re.compile(r"(?i)(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?")


def _safe_on_every_filesystem(segment: str) -> None:
    assert SAFE.fullmatch(segment), segment  # lowercase ASCII only: the same name on case-insensitive systems
    assert segment not in (".", "..") and not segment.startswith(".") and not segment.endswith(".")
    assert not WINDOWS_RESERVED.fullmatch(segment) and not WINDOWS_RESERVED.fullmatch(segment + ".html")
    assert len(segment) <= SEGMENT_MAX


def test_plain_names_stay_as_they_are() -> None:
    assert page_path("paperclipai/paperclip", "createos-returned-invalid-json") == (
        "records/paperclipai/paperclip/createos-returned-invalid-json.html")
    assert path_segment("my_repo.js") == "my_repo.js"


def test_names_a_lossy_cleanup_merged_get_pages_of_their_own() -> None:
    pages = {page_path(repo, "x") for repo in ("evil/repo", "evil/-repo", "evil/repo-", "evil/.repo", "evil/repo.",
                                               "evil/re--po", "evil/re-po", "evil", "evil/", "evil/repo/x")}
    assert len(pages) == 10


def test_repositories_are_compared_without_case_as_github_does() -> None:
    assert page_path("Evil/Repo", "x") == page_path("evil/repo", "x") == "records/evil/repo/x.html"
    assert repo_key("Evil/Repo") == "evil/repo"
    assert page_path("evil/repo", "X") != page_path("evil/repo", "x")  # a slug keeps its case, escaped


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80) | st.text(alphabet=st.characters(max_codepoint=127), max_size=120))
def test_every_text_has_a_segment_of_its_own(text: str) -> None:
    segment = path_segment(text)
    _safe_on_every_filesystem(segment)
    if "~~" in segment:  # cut: only when written out in full it would be too long
        assert len(text.encode("utf-8", "surrogatepass")) * 3 > SEGMENT_MAX
    else:
        assert decode_segment(segment) == text  # decodable, hence one-to-one


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=SEGMENT_MAX, max_size=SEGMENT_MAX * 3))
def test_overlong_texts_are_cut_with_a_hash(text: str) -> None:
    segment = path_segment(text)
    _safe_on_every_filesystem(segment)
    assert path_segment(text + "!") != segment


def test_dangerous_names() -> None:
    for text in (".", "..", ".git", "con", "NUL", "com1.txt", "a/b", "a\\b", "a\x00b", "x" * 300, "\ud800", ""):
        _safe_on_every_filesystem(path_segment(text))
