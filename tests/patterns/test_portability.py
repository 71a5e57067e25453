"""portability_problems(): the portable subset, one test per rejected construct."""

from __future__ import annotations

import pytest

from errdex.patterns import PatternProblem, PatternSyntaxError, is_portable, parse, portability_problems

PORTABLE = [
    r"CreateOS request failed \(HTTP (\d+)\) during (.+)\.",
    r"CreateOS process creation could not be confirmed; destroy the lease before reusing it\.",
    r"^Error: (.*?) at line (\d+)$",
    r"connect ECONNREFUSED (\d+\.\d+\.\d+\.\d+):(\d+)",
    r"([^ ]+) ([^ ]+)",
    r"Cannot read properties of undefined \(reading '([^']+)'\)",
    r"unexpected token [\w$] in JSON at position \d{1,6}",
    r"(?:GET|POST) /api/v\d+/\w+ failed",
    r"Ünïcödé literal — 中文 😀",
    r"tab\tseparated",
    r"\x41BC",
    r"\bword\b",
    r"(^|[^\w])foo",
    r"foo($|\.)",
    r"a{1000}",
    r"(?:ab){10}c{100}",
    r"[\]\[\-\\^]",
    r"\/path\/to",
    r"(?:(\w+)\.)+com",
    r"(\d+)?x",
    r"a.b",
    r"[^\D]+",
    r"\B-x",
    r"x\B\w",
    r"^\bfoo",
    r"foo\b$",
    r"(?:^|\b)foo(?:\b|$)",
]


@pytest.mark.parametrize("source", PORTABLE)
def test_portable(source: str) -> None:
    assert portability_problems(source) == []
    assert is_portable(source)


REJECTED = [
    # (pattern, offset, fragment of the message)
    ("(abc", 0, "unterminated group"),
    ("abc)", 3, "unmatched"),
    (r"\q", 0, "invalid escape"),
    ("a{,3}", 1, "{0,n}"),
    ("a]", 1, "lone ']'"),
    ("a}", 1, "lone '}'"),
    ("[z-a]", 1, "out of order"),
    ("foo(?=bar)", 3, "lookahead"),
    ("foo(?!bar)", 3, "lookahead"),
    ("(?<=foo)bar", 0, "lookbehind"),
    ("(?<!foo)bar", 0, "lookbehind"),
    (r"(a)\1", 3, "backreference \\1"),
    (r"(?<n>a)\k<n>", 0, "named group"),
    (r"(?<n>a)\k<n>x", 7, "backreference \\k<n>"),
    ("(?i)error", 0, "inline flags"),
    ("(?P<n>a)", 0, "Python-style"),
    ("(?>a+)b", 0, "atomic"),
    ("a++b", 2, "possessive"),
    (r"\Aabc", 0, "^"),
    (r"abc\Z", 3, "$"),
    (r"abc\z", 3, "$"),
    (r"\Gabc", 0, "\\G"),
    (r"\u0041", 0, "\\u escapes"),
    (r"x\u{1F600}", 1, "\\u escapes"),
    (r"\x{41}", 0, "\\x{...}"),
    (r"\p{L}+", 0, "\\p{...}"),
    (r"[\P{L}]", 1, "\\p{...}"),
    (r"\cJx", 0, "\\cX"),
    (r"a\0", 1, "\\0"),
    (r"a\01", 1, "octal"),
    ("[[:alpha:]]", 1, "POSIX"),
    ("a?", 0, "empty string"),
    ("(a|)", 0, "empty string"),
    ("^$", 0, "empty string"),
    (r"\b", 0, "empty string"),
    ("", 0, "empty string"),
    (r"a\sb", 1, "\\s/\\S"),
    (r"a\Sb", 1, "\\s/\\S"),
    (r"a[\s,]b", 2, "\\s/\\S"),
    ("a{1001}", 1, "exceeds 1000"),
    ("a{2,1001}", 1, "exceeds 1000"),
    ("a{1001,}", 1, "exceeds 1000"),
    ("(?:a{100}){20}", 4, "multiply to 2000"),
    ("x{0}y", 1, "matches nothing"),
    ("(" * 51 + "a" + ")" * 51, 50, "nested more than 50"),
    ("a[]", 1, "[] never matches"),
    ("a[^]", 1, "[] never matches"),
    (r"a[^\d\D]", 1, "matches no character"),
    ("a^b", 1, "^ must come first"),
    ("a?^b", 2, "^ must come first"),
    ("(^a)+", 1, "^ must come first"),
    ("a$b", 1, "$ must come last"),
    (r"0$\B", 1, "$ must come last"),
    (r"a$(?:\b)?", 1, "$ must come last"),
    (r"\b^a", 2, "^ must come first"),
    ("(a$)+", 2, "$ must come last"),
    (r"a\bb", 1, "can never match"),
    (r" \Ba", 1, "can never match"),
    (r"^\bab_\B$", 6, "can never match"),
    ("\ud800x", 0, "surrogate"),
    ("(?:(a)|b)+", 3, "capturing group inside a repeat"),
    ("(?:(a)?b)+", 3, "capturing group inside a repeat"),
    ("x(a*)+", 1, "capturing group inside a repeat"),
    ("x(a*)?y", 1, "capturing group inside a repeat"),
    ("(?:x(ab)*)+y", 4, "capturing group inside a repeat"),
]


@pytest.mark.parametrize(("source", "offset", "fragment"), REJECTED)
def test_rejected(source: str, offset: int, fragment: str) -> None:
    problems = portability_problems(source)
    assert problems, source
    assert not is_portable(source)
    assert any(p.offset == offset and fragment in p.message for p in problems), problems
    for p in problems:
        assert isinstance(p, PatternProblem)
        assert "\n" not in p.message
        assert 0 <= p.offset <= len(source)


def test_problems_are_sorted_and_unique() -> None:
    problems = portability_problems(r"(?=x)\s(a)\1\u0041")
    assert [p.offset for p in problems] == sorted(p.offset for p in problems)
    assert len(set(problems)) == len(problems)
    assert len(problems) == 4


def test_problem_is_frozen() -> None:
    p = PatternProblem(1, "x")
    with pytest.raises(AttributeError):
        p.offset = 2  # type: ignore[misc]  # writing a frozen field is the test


def test_result_is_a_fresh_list() -> None:
    a = portability_problems("a?")
    a.clear()
    assert portability_problems("a?")


def test_rejected_list_matches_what_javascript_thinks(node) -> None:
    """Constructs reported as syntax errors are exactly the ones V8 rejects."""
    if node is None:
        pytest.skip("node is not installed")

    for source, _, _ in REJECTED:
        try:
            parse(source)
            ours = True
        except PatternSyntaxError:
            ours = False
        assert node.compiles(source)[0] == ours, source
