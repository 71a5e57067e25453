"""parse(): trees for valid JavaScript (u flag) patterns and errors where JavaScript throws."""

from __future__ import annotations

import pytest

from errdex.patterns import (
    Alternation,
    Anchor,
    Any,
    Backreference,
    CharClass,
    ClassEscape,
    ClassProperty,
    ClassRange,
    Group,
    Literal,
    Lookaround,
    PatternSyntaxError,
    Repeat,
    Sequence,
    class_set,
    parse,
)
from errdex.patterns import charset as cs
from errdex.patterns.parser import MAX_PARSE_DEPTH


def test_literal_sequence() -> None:
    p = parse("ab")
    assert p.root == Sequence((Literal("a", 0, 1), Literal("b", 1, 2)), 0, 2)
    assert p.group_count == 0 and p.notes == ()


def test_single_literal_is_not_wrapped() -> None:
    assert parse("a").root == Literal("a", 0, 1)


def test_escaped_metacharacters_are_literals() -> None:
    root = parse(r"\^\$\\\.\*\+\?\(\)\[\]\{\}\|\/").root
    assert isinstance(root, Sequence)
    assert "".join(i.char for i in root.items) == "^$\\.*+?()[]{}|/"


def test_control_and_hex_escapes() -> None:
    root = parse(r"\t\n\r\f\v\x41").root
    assert [i.char for i in root.items] == ["\t", "\n", "\r", "\f", "\v", "A"]


def test_example_record_pattern() -> None:
    p = parse(r"CreateOS request failed \(HTTP (\d+)\) during (.+)\.")
    assert p.group_count == 2
    groups = [i for i in p.root.items if isinstance(i, Group)]
    assert [g.index for g in groups] == [1, 2]
    digits = groups[0].child
    assert isinstance(digits, Repeat) and (digits.min, digits.max, digits.lazy) == (1, None, False)
    assert digits.child == CharClass((ClassEscape("d", 32),), False, 32, 34, False)
    assert isinstance(groups[1].child, Repeat) and isinstance(groups[1].child.child, Any)


def test_class_ranges_escapes_and_negation() -> None:
    node = parse(r"[^a-z\d_\-\]]").root
    assert isinstance(node, CharClass) and node.negated
    assert node.items == (ClassRange(97, 122, 2), ClassEscape("d", 5), ClassRange(95, 95, 7),
                          ClassRange(45, 45, 8), ClassRange(93, 93, 10))
    s = class_set(node)
    assert not cs.intersects(s, ((ord("m"), ord("m")),))
    assert cs.intersects(s, ((ord("A"), ord("A")),))


def test_class_dash_positions() -> None:
    for src, chars in [("[-a]", "-a"), ("[a-]", "a-"), (r"[\d-]", "-5"), ("[a-b-c]", "abc-")]:
        s = class_set(parse(src).root)
        for ch in chars:
            assert cs.intersects(s, ((ord(ch), ord(ch)),)), (src, ch)


def test_class_backspace_and_specials_inside() -> None:
    s = class_set(parse(r"[\b(){}*+?|$.]").root)
    for ch in "\b(){}*+?|$.":
        assert cs.intersects(s, ((ord(ch), ord(ch)),))


def test_quantifiers() -> None:
    cases = {"a*": (0, None, False), "a+?": (1, None, True), "a?": (0, 1, False),
             "a{3}": (3, 3, False), "a{2,}": (2, None, False), "a{2,5}?": (2, 5, True)}
    for src, expected in cases.items():
        r = parse(src).root
        assert isinstance(r, Repeat)
        assert (r.min, r.max, r.lazy) == expected
        assert r.end == len(src) and r.quantifier_offset == 1


def test_groups_alternation_and_anchors() -> None:
    p = parse(r"^(?:a|b)(c)\b\B$")
    root = p.root
    assert isinstance(root, Sequence)
    kinds = [type(i).__name__ for i in root.items]
    assert kinds == ["Anchor", "Group", "Group", "Anchor", "Anchor", "Anchor"]
    nc = root.items[1]
    assert isinstance(nc, Group) and not nc.capturing and nc.index is None
    assert isinstance(nc.child, Alternation) and len(nc.child.branches) == 2
    assert [a.kind for a in root.items if isinstance(a, Anchor)] == ["^", "\\b", "\\B", "$"]
    assert p.group_count == 1


def test_empty_alternatives_and_empty_pattern() -> None:
    assert parse("").root == Sequence((), 0, 0)
    alt = parse("a|").root
    assert isinstance(alt, Alternation) and alt.branches[1] == Sequence((), 2, 2)


def test_non_ascii_literals_are_code_points() -> None:
    root = parse("é😀").root
    assert [i.char for i in root.items] == ["é", "😀"]


def test_rejected_but_valid_constructs_are_represented() -> None:
    assert isinstance(parse("(?=a)b").root.items[0], Lookaround)
    lb = parse("(?<!a)b").root.items[0]
    assert isinstance(lb, Lookaround) and not lb.ahead and lb.negative
    p = parse(r"(?<word>a)\k<word>\1")
    assert p.group_names == ("word",)
    assert isinstance(p.root.items[0], Group) and p.root.items[0].name == "word"
    assert p.root.items[1] == Backreference("word", 10, 18)
    assert p.root.items[2] == Backreference(1, 18, 20)
    prop = parse(r"\p{L}").root
    assert isinstance(prop, CharClass) and prop.items == (ClassProperty("L", False, 0),)
    kinds = {n.kind for n in parse(r"\u0041\u{1F600}\cJ\0\s[\S]\p{Lu}[]").notes}
    assert kinds == {"unicode_escape", "control_escape", "nul_escape", "space_class",
                     "property_escape", "empty_class"}


def test_surrogate_pair_escape_is_one_character() -> None:
    assert parse(r"\uD83D\uDE00").root == Literal("😀", 0, 12)


SYNTAX_ERRORS = [
    ("(a", 0, "unterminated group"),
    ("a)", 1, "unmatched ')'"),
    ("*a", 0, "nothing to repeat"),
    ("a**", 2, "nothing to repeat"),
    ("a|?", 2, "nothing to repeat"),
    ("^*", 1, "assertion cannot be quantified"),
    (r"\b+", 2, "assertion cannot be quantified"),
    ("(?=a)*", 5, "assertion cannot be quantified"),
    (r"\q", 0, "invalid escape \\q"),
    (r"a\:", 1, "unnecessary escape \\:"),
    (r"\-", 0, "only allowed inside a class"),
    ("a{,3}", 1, "{,n}"),
    ("{,3}", 0, "{,n}"),
    ("{2}", 0, "nothing to repeat"),
    ("a{", 1, "incomplete quantifier"),
    ("{", 0, "lone '{'"),
    ("a}", 1, "lone '}'"),
    ("a]", 1, "lone ']'"),
    ("a{2,1}", 1, "out of order"),
    ("[z-a]", 1, "range out of order"),
    (r"[\d-z]", 1, "range endpoint"),
    (r"[a-\w]", 1, "range endpoint"),
    ("[a", 0, "unterminated character class"),
    ("(?i)abc", 0, "inline flags"),
    ("(?i:abc)", 0, "inline flags"),
    ("(?-i:abc)", 0, "inline flags"),
    ("(?P<n>a)", 0, "Python-style named groups"),
    ("(?P=n)", 0, "Python-style named groups"),
    ("(?>a)", 0, "atomic groups"),
    ("(?#note)a", 0, "comments"),
    ("(?%a)", 0, "invalid group"),
    ("a++", 2, "possessive"),
    ("a*+", 2, "possessive"),
    (r"\Aabc", 0, "use ^"),
    (r"abc\Z", 3, "use $"),
    (r"abc\z", 3, "use $"),
    (r"\Gabc", 0, "\\G"),
    (r"\Qa.b\E", 0, "\\Q"),
    ("[[:alpha:]]", 1, "POSIX class [:alpha:]"),
    ("x[[:digit:]]+", 2, "POSIX class [:digit:]"),
    (r"\x{41}", 0, "\\x{...}"),
    (r"\xZ1", 0, "two hex digits"),
    (r"\01", 0, "octal"),
    (r"\1", 0, "missing group"),
    (r"(a)\2", 3, "missing group"),
    (r"\k<x>", 0, "missing named group"),
    (r"(?<x>a)\k", 7, "\\k must be followed"),
    ("(?<1a>x)", 3, "invalid capture group name"),
    ("(?<a>x)(?<a>y)", 10, "duplicate capture group name"),
    (r"\u12", 0, "Unicode escape"),
    (r"\u{110000}", 0, "above U+10FFFF"),
    (r"\c1", 0, "control escape"),
    (r"\p", 0, "property escape"),
    (r"[\B]", 1, "\\B is not allowed inside a class"),
    (r"[\1]", 1, "invalid class escape"),
    ("abc\\", 3, "at end of pattern"),
]


@pytest.mark.parametrize(("source", "offset", "fragment"), SYNTAX_ERRORS)
def test_syntax_errors(source: str, offset: int, fragment: str) -> None:
    with pytest.raises(PatternSyntaxError) as info:
        parse(source)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.offset == offset, err
    assert fragment.lower() in err.message.lower(), err.message
    assert str(offset) in str(err)


def test_syntax_errors_match_javascript(node) -> None:
    if node is None:
        pytest.skip("node is not installed")
    for source, _, _ in SYNTAX_ERRORS:
        ok, _msg = node.compiles(source)
        assert not ok, source


VALID_IN_JAVASCRIPT = [
    r"CreateOS request failed \(HTTP (\d+)\) during (.+)\.", "(?=a)", "(?<!a)b", r"(a)\1",
    r"(?<n>a)\k<n>", r"\u{1F600}", r"\p{Lu}", r"[\b\-]", "[]", "[^]", r"\0", r"\cZ", "a{2,}?",
    "[-]", "[a-]", r"[\d-]", r"\/", "(?:)", "a|", "|", "[[]", "[x[:a:]", "é+", "$^", r"\s\S",
]


@pytest.mark.parametrize("source", VALID_IN_JAVASCRIPT)
def test_valid_patterns_parse(source: str, node) -> None:
    parse(source)
    if node is not None:
        assert node.compiles(source)[0], source


def test_nesting_limit() -> None:
    deep = "(" * (MAX_PARSE_DEPTH + 1) + "a" + ")" * (MAX_PARSE_DEPTH + 1)
    with pytest.raises(PatternSyntaxError, match="nested more than"):
        parse(deep)
    ok = "(" * 100 + "a" + ")" * 100
    assert parse(ok).group_count == 100


def test_parse_is_cached_and_rejects_non_strings() -> None:
    assert parse("abc") is parse("abc")
    with pytest.raises(TypeError):
        parse(b"abc")  # type: ignore[arg-type]  # the wrong type is the test
