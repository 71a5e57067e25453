"""Translations to Python, RE2/DuckDB, hyperscan and JavaScript."""

from __future__ import annotations

import re
import warnings

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.patterns import (
    HS_FLAG_UTF8,
    HYPERSCAN_FLAGS,
    PYTHON_FLAGS,
    NonPortablePatternError,
    PatternSyntaxError,
    is_portable,
    normalize_escapes,
    python_regex,
    to_hyperscan,
    to_js,
    to_python,
    to_re2,
)
from tests.patterns.patterns_strategies import fuzz_sources, pattern_sources

EXAMPLE = r"CreateOS request failed \(HTTP (\d+)\) during (.+)\."


def test_example_translations() -> None:
    assert to_python(EXAMPLE) == EXAMPLE
    assert to_re2(EXAMPLE) == EXAMPLE
    assert to_hyperscan(EXAMPLE) == EXAMPLE.encode()
    assert to_js(EXAMPLE) == {"source": EXAMPLE, "flags": "u"}


def test_dollar_is_end_of_input_in_python() -> None:
    assert to_python("foo$") == r"foo\Z"
    assert python_regex("foo$").search("foo\n") is None
    assert python_regex("foo$").search("a foo")
    assert to_re2("foo$") == "foo$"
    assert re2.search(to_re2("foo$"), "foo\n") is None


def test_group_numbering_is_preserved() -> None:
    src = r"(a)(?:b)((c)|d)"
    for out in (to_python(src), to_re2(src)):
        assert re.compile(out).groups == 3
    m = python_regex(src).search("xabcx")
    assert m is not None and m.groups() == ("a", "c", "c")


def test_escapes_are_canonical() -> None:
    assert to_python(r"\/a\tb\x41") == r"/a\x09bA"
    assert to_python(r"[\]\-^a-z\b]") == r"[\]\-\^a-z\x08]"
    assert to_python(r"a\.\*\+\?\(\)\[\]\{\}\|\^\$\\") == r"a\.\*\+\?\(\)\[\]\{\}\|\^\$\\"
    assert to_python("[[&&~~||]") == r"[\[\&\&\~\~\|\|]"


def test_class_set_operations_do_not_warn_in_python() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for src in ["[[a]", "[!--]", "[--x]", "[&&x]", "[~~x]", "[||x]"]:
            re.compile(to_python(src), PYTHON_FLAGS)


def test_non_ascii_literals() -> None:
    src = "Fehler: Datei „(.+)“ nicht gefunden 😀"
    assert to_python(src) == src
    assert to_hyperscan(src) == src.encode("utf-8")
    assert python_regex(src).search("Fehler: Datei „x“ nicht gefunden 😀")


def test_hyperscan_negated_classes_exclude_newline() -> None:
    assert to_hyperscan("([^ ]+)") == rb"([^ \n]+)"
    assert to_hyperscan(r"a\Db\Wc\d\w") == rb"a[^\d\n]b[^\w\n]c\d\w"
    assert to_python(r"a\Db\W") == r"a\Db\W"


def test_hyperscan_flags() -> None:
    hyperscan = pytest.importorskip("hyperscan")
    assert HS_FLAG_UTF8 == hyperscan.HS_FLAG_UTF8
    assert HYPERSCAN_FLAGS & hyperscan.HS_FLAG_UTF8
    assert not HYPERSCAN_FLAGS & hyperscan.HS_FLAG_ALLOWEMPTY
    # Code-point semantics: "." is one character even when it is two UTF-8 bytes.
    db = hyperscan.Database()
    db.compile(expressions=[to_hyperscan("a.b")], ids=[0],
               flags=[HYPERSCAN_FLAGS | hyperscan.HS_FLAG_SINGLEMATCH])
    hits: list[int] = []
    db.scan("aéb".encode(), match_event_handler=lambda *a: hits.append(a[0]))
    assert hits == [0]


def test_python_flags_are_ascii() -> None:
    assert PYTHON_FLAGS == re.ASCII
    assert python_regex(r"\w+").fullmatch("é") is None
    assert python_regex(r"\d").search("٣") is None


def test_python_regex_is_cached() -> None:
    assert python_regex("abc") is python_regex("abc")
    assert python_regex("abc").flags & re.ASCII


@pytest.mark.parametrize("translate", [to_python, to_re2, to_hyperscan, to_js, python_regex])
def test_translations_reject_non_portable_patterns(translate) -> None:
    with pytest.raises(PatternSyntaxError):
        translate("(a")
    with pytest.raises(NonPortablePatternError) as info:
        translate("foo(?=bar)")
    assert isinstance(info.value, ValueError)
    assert info.value.offset == 3 and "lookahead" in str(info.value)
    with pytest.raises(ValueError):
        translate("a?")


def test_translations_agree_on_a_sample(duck) -> None:
    cases = [
        (r"^(\w+) failed after (\d+)ms$", "worker failed after 250ms", ("worker", "250")),
        (r"key '([^']+)' \(id=(\d+)\)", "dup key 'a b' (id=7) x", ("a b", "7")),
        (r"(?:GET|POST) (/\S+)".replace(r"\S", "[^ ]"), "POST /v1/x HTTP", ("/v1/x",)),
    ]
    for src, line, groups in cases:
        m = python_regex(src).search(line)
        assert m is not None and m.groups() == groups
        n = re2.search(to_re2(src), line)
        assert n is not None and n.groups() == groups
        assert duck.execute("SELECT regexp_extract($1, $2, 1)", [line, to_re2(src)]).fetchone()[0] \
            == groups[0]


@pytest.mark.parametrize(("source", "expected"), [
    ("Connection\\ closed\\ by\\ (.*?)\\ \\[preauth\\]", "Connection closed by (.*?) \\[preauth\\]"),
    ("a\\-b\\ \\#1\\ \\~\\&\\'\\\"\\%\\:\\@\\=\\!\\,\\`", "a-b #1 ~&'\"%:@=!,`"),
    ("caf\\é", "café"),
    ("[\\-a]\\-[\\ x]", "[\\-a]-[ x]"),                 # \- stays inside a class
    ("\\d\\.\\\\\\/\\n\\[\\]", "\\d\\.\\\\\\/\\n\\[\\]"),  # real escapes stay
    ("[\\]\\ ]x\\ ", "[\\] ]x "),
    ("trailing\\", "trailing\\"),
])
def test_normalize_escapes(source: str, expected: str) -> None:
    assert normalize_escapes(source) == expected
    assert normalize_escapes(expected) == expected
    if not expected.endswith("\\"):
        assert is_portable(expected)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet="ab -#~&.[]()*?\\é ", max_size=20))
def test_escaping_with_python_re_escape_then_normalizing_matches_the_literal(text: str) -> None:
    source = normalize_escapes(re.escape(text))
    if not text.strip():
        return  # an empty match is not portable
    assert python_regex(source).fullmatch(text)


def _looped(pattern: str) -> str:
    """normalize_escapes with its shortcut off: every pattern with a backslash goes through the loop."""
    from errdex.patterns import translate

    saved = translate._MAY_DROP
    translate._MAY_DROP = re.compile(r"\\")
    try:
        return normalize_escapes(pattern)
    finally:
        translate._MAY_DROP = saved


@given(st.one_of(fuzz_sources, pattern_sources()))
@settings(max_examples=400, deadline=None)
def test_the_escape_shortcut_gives_what_the_loop_gives(pattern: str) -> None:
    assert normalize_escapes(pattern) == _looped(pattern)


def test_the_escape_shortcut_on_records_and_edges() -> None:
    from errdex.records.loader import load_records
    from tests.benchmarks.generate import generate
    from tests.patterns.patterns_corpus import realistic_patterns

    corpus = [loaded.record["messagePattern"] for loaded in load_records()]
    corpus += [envelope["record"]["messagePattern"] for envelope in generate(200)] + realistic_patterns(1000)
    corpus += [r"a\ b", r"[\-]", r"a\-b", "\\\\ ", "a\\", r"\é", r"\d\/", r"\\\-", r"[a\-z]\-", r"\#\%"]
    assert [normalize_escapes(p) for p in corpus] == [_looped(p) for p in corpus]
    assert any(normalize_escapes(p) != p for p in corpus)
