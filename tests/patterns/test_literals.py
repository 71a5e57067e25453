"""literal_chars, variable_parts, required_literals, exact_text, group_count."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.patterns import (
    PatternSyntaxError,
    exact_text,
    group_count,
    literal_chars,
    python_regex,
    required_literals,
    variable_parts,
)

EXAMPLE = r"CreateOS request failed \(HTTP (\d+)\) during (.+)\."
PLAIN = r"CreateOS process creation could not be confirmed; destroy the lease before reusing it\."

CASES = [
    # pattern, literal_chars, variable_parts, required_literals, group_count
    (EXAMPLE, 40, 2, ["CreateOS request failed (HTTP ", ") during ", "."], 2),
    (PLAIN, 86, 0, [PLAIN.replace("\\", "")], 0),
    ("abc", 3, 0, ["abc"], 0),
    ("a.c", 2, 1, ["a", "c"], 0),
    ("a[xy]c", 2, 1, ["a", "c"], 0),
    ("a[.]c", 3, 0, ["a.c"], 0),
    ("^foo$", 3, 0, ["foo"], 0),
    ("x(?:ab)?y", 2, 1, ["x", "y"], 0),
    ("xa+y", 3, 0, ["xa", "ay"], 0),
    ("x +y", 3, 0, ["x ", " y"], 0),
    ("a{3}b", 4, 0, ["aaab"], 0),
    (r"\d{4}-\d{2}", 1, 2, ["-"], 0),
    ("(foo|bar)baz", 6, 1, ["baz"], 1),
    ("(timeout|timed out) after", 13, 1, ["time", "out after"], 1),
    ("(?:abc|abc)d", 4, 1, ["abcd"], 0),
    (r"(\d+)\.(\d+)", 1, 2, ["."], 2),
    ("(.*?) foo (.*?)", 5, 2, [" foo "], 2),
    ("(a)(b(c))", 3, 0, ["abc"], 3),
    ("(?:ab)+", 2, 0, ["ab"], 0),
    ("x(?:a.b)+y", 4, 1, ["xa", "by"], 0),
    (r"[^ ]+ (\w+)", 1, 2, [" "], 1),
]


@pytest.mark.parametrize(("source", "chars", "parts", "literals", "groups"), CASES)
def test_literal_analysis(source: str, chars: int, parts: int, literals: list[str],
                          groups: int) -> None:
    assert literal_chars(source) == chars
    assert variable_parts(source) == parts
    assert required_literals(source) == literals
    assert group_count(source) == groups


@pytest.mark.parametrize(("source", "chars", "parts", "literals", "groups"), CASES)
def test_required_literals_occur_in_every_match(source: str, chars: int, parts: int,
                                                literals: list[str], groups: int) -> None:
    """Each required literal is in the text of every match we can produce."""
    samples = {
        EXAMPLE: "CreateOS request failed (HTTP 503) during lease creation.",
        PLAIN: PLAIN.replace("\\", ""),
        "(timeout|timed out) after": "timed out after",
        "x(?:a.b)+y": "xa1ba2by",
    }
    text = samples.get(source)
    if text is None:
        return
    m = python_regex(source).search(text)
    assert m is not None
    pos = 0
    for lit in literals:
        found = m.group(0).find(lit, max(0, pos - len(lit)))
        assert found >= 0, lit
        pos = found + len(lit)


def test_literal_functions_raise_on_syntax_errors() -> None:
    for fn in (literal_chars, variable_parts, required_literals, group_count):
        with pytest.raises(PatternSyntaxError):
            fn("(a")


def test_group_count_counts_named_groups_too() -> None:
    assert group_count("(?<n>a)(b)(?:c)(?=d)") == 2


@pytest.mark.parametrize(("source", "text"), [
    (PLAIN, PLAIN.replace("\\", "")),
    ("abc", "abc"),
    ("a[.]c", "a.c"),
    ("a{3}b", "aaab"),
    ("(?:ab){2}", "abab"),
    ("(?:abc|abc)d", "abcd"),
    (EXAMPLE, None),      # groups
    ("(a)(b(c))", None),  # groups, even though the text is fixed
    ("^foo$", None),      # anchors restrict where it may occur
    (r"foo\b", None),
    ("a.c", None),
    ("xa+y", None),
    ("x(?:ab)?y", None),
])
def test_exact_text(source: str, text: str | None) -> None:
    assert exact_text(source) == text


_PLAIN_PIECES = st.sampled_from(["a", "b", " ", "\\.", "\\(", "\\)", "-", "[.]", "[a]", "(?:ab)", "(?:a|a)", "b{2}",
                                 "(?:a[.]){2}"])


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(_PLAIN_PIECES, min_size=1, max_size=8).map("".join), st.text(alphabet="ab .()-", max_size=20))
def test_exact_text_is_found_where_the_regex_is(source: str, noise: str) -> None:
    """When a pattern is plain text, a substring search finds the same span as the regex."""
    text = exact_text(source)
    assert text is not None
    for line in (noise, noise + text + noise, text + noise):
        hit = python_regex(source).search(line)
        at = line.find(text)
        assert (hit.span() if hit else None) == ((at, at + len(text)) if at >= 0 else None)


@pytest.mark.parametrize(("pattern", "chars", "required", "exact"), [
    ("é", 1, ["é"], "é"),
    ("𝄞x", 2, ["𝄞x"], "𝄞x"),  # four bytes of UTF-8, one character
    ("İ([0-9]+)", 1, ["İ"], None),  # lower-cases to two characters: never folded
    ("ß+ voll", 6, ["ß", "ß voll"], None),
    ("(?:ü|ü)x", 2, ["üx"], "üx"),
    ("[日]本{2}", 3, ["日本本"], "日本本"),
    ("é{3}", 3, ["ééé"], "ééé"),
    ("(?:日本|日曜)", 2, ["日"], None),  # the common prefix is one character of three bytes
])
def test_non_ascii_literals_are_characters_as_written(pattern: str, chars: int, required: list[str],
                                                      exact: str | None) -> None:
    assert literal_chars(pattern) == chars
    assert required_literals(pattern) == required
    assert exact_text(pattern) == exact
    if exact is not None:
        found = python_regex(pattern).search("q" * 20 + exact)
        assert found is not None and found.group() == exact


def test_the_plain_text_shortcut_gives_what_lits_gives() -> None:
    # required_literals and exact_text read a tree of literal characters directly; lits must find the same.
    from errdex.patterns import literals
    from errdex.patterns.parser import parse
    from errdex.records.loader import load_records
    from tests.benchmarks.generate import generate
    from tests.patterns.patterns_corpus import realistic_patterns

    corpus = [loaded.record["messagePattern"] for loaded in load_records()]
    corpus += [envelope["record"]["messagePattern"] for envelope in generate(300)] + realistic_patterns(1000)
    corpus += ["a", r"\.", "", "é中😀", r"\u0041b", "[.]x", "(?:ab)", "a|b", "^ab$", r"a\bb", "ab+"]
    plain = 0
    for pattern in corpus:
        try:
            root = parse(pattern).root
        except PatternSyntaxError:
            continue
        text = literals._plain_text(root)
        if text is not None:
            plain += 1
            assert text == literals.lits(root).exact
    assert plain > 100
