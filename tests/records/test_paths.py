"""A record's page path: one page per repository (without case) and slug, safe on every filesystem."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.records.paths import SEGMENT_MAX, decode_segment, page_path, path_segment, repo_key

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
