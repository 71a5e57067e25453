"""The file paths a record may name, and the one function that builds a githubUrl."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from errdex.records.source_paths import MAX_PATH, NOT_UTF8, github_url, shown_path, unsafe_path, url_path

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("path", ["app.py", "src/a b/c.py", "pct%20and#hash?.py", "é/ü.py", "u\u0308.py",
                                  ".github/x.py", "a..b.py", "...", "@scope/pkg/index.js", "x" * MAX_PATH])
def test_a_path_inside_the_repository_is_taken(path: str) -> None:
    assert unsafe_path(path) is None


@pytest.mark.parametrize(("path", "why"), [
    ("", "empty"), (None, "empty"), ("../app.py", "'..'"), ("a/../../b.py", "'..'"), ("./a.py", "'.'"),
    ("a/./b.py", "'.'"), ("/etc/passwd", "absolute"), ("a//b.py", "empty part"), ("a/", "empty part"),
    ("a\\..\\b.py", "backslash"), ("..\\app.py", "backslash"), ("a\0b.py", "U+0000"), ("a\nb.py", "U+000A"),
    ("a\rb.py", "U+000D"), ("a\x1bb.py", "U+001B"), ("a\x7fb.py", "U+007F"), ("a\x85b.py", "U+0085"),
    ("a\u2028b.py", "U+2028"), ("\u202eyp.exe", "U+202E"), ("x\udcff.py", "UTF-8"), ("\ud800.py", "UTF-8"),
    ("x" * (MAX_PATH + 1), "longer"),
])
def test_a_path_that_names_no_file_of_the_repository_is_refused(path: object, why: str) -> None:
    reason = unsafe_path(path)
    assert reason is not None and why in reason


def test_a_name_that_is_not_utf8_says_so() -> None:
    assert unsafe_path("x\udcff.py") == NOT_UTF8


@pytest.mark.parametrize(("path", "encoded"), [
    ("pct%20and#hash?.py", "pct%2520and%23hash%3F.py"),
    ("a b/ü.py", "a%20b/%C3%BC.py"),
    ("it's (1).py", "it%27s%20(1).py"),
    ("@scope/a+b=c.js", "@scope/a+b=c.js"),
    ("plain/path_to-file.v1.py", "plain/path_to-file.v1.py"),
])
def test_each_part_of_a_url_path_is_percent_encoded(path: str, encoded: str) -> None:
    assert url_path(path) == encoded
    assert unquote(encoded) == path  # it round-trips: the link names the file itself


def test_a_github_url_names_the_file_and_the_lines() -> None:
    assert github_url("o/r", SHA, "pct%20and#hash?.py", 3, 9) == \
        f"https://github.com/o/r/blob/{SHA}/pct%2520and%23hash%3F.py#L3-L9"
    assert github_url("o/r", SHA, "a b.py") == f"https://github.com/o/r/blob/{SHA}/a%20b.py"


def test_a_normalisation_variant_keeps_its_own_bytes() -> None:
    composed, decomposed = "\u00fc.py", "u\u0308.py"
    assert url_path(composed) == "%C3%BC.py" and url_path(decomposed) == "u%CC%88.py"


@pytest.mark.parametrize(("path", "shown"), [("x\udcff.py", "x\\xff.py"), ("a\nb.py", "a\\nb.py"),
                                             ("\u202eyp.exe", "\\u202eyp.exe"), ("é.py", "é.py")])
def test_a_path_is_shown_on_one_line_with_its_bytes_escaped(path: str, shown: str) -> None:
    assert shown_path(path) == shown
