"""Highlighting TypeScript snippets: the text survives, every line is balanced and escaped, tokens get their class."""

from __future__ import annotations

import re
from html import escape, unescape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.site.highlight import highlight, highlight_lines

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None)

TAG = re.compile(r'<span class="tok-(?:kw|lit|str|num|com|type|fn)">|</span>')

# Pieces of TypeScript that start or end tokens, so that generated code hits
# unterminated strings, comments spanning lines, escapes and hostile markup.
FRAGMENTS = [
    "const ", "if", "in", "index", "return ", "this", ".", "...", "get", "type", "x", "Error", "NaN", "true",
    "foo", "(", ")", " ", "\n", "\t", '"', "'", "`", "${", "}", "\\", "//", "/*", "*/", "*", "/",
    "0x1F", "1_000n", "1.5e-3", ".5", "7", "<", ">", "&", "&amp;", "</span>", "<script>", "é", "\u2028",
]
code_line = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=12).map("".join)
code_text = st.text() | st.lists(code_line, min_size=2, max_size=8).map("\n".join)


def span(kind: str, text: str) -> str:
    return f'<span class="tok-{kind}">{text}</span>'


def assert_balanced(html: str) -> None:
    tags = TAG.findall(html)
    assert all(tag.startswith("<span") for tag in tags[0::2]), html
    assert all(tag == "</span>" for tag in tags[1::2]), html
    assert len(tags) % 2 == 0, html


@SETTINGS
@given(code_text)
def test_removing_the_tags_leaves_the_escaped_code(code: str) -> None:
    html = highlight(code)
    assert TAG.sub("", html) == escape(code, quote=True)
    assert unescape(TAG.sub("", html)) == code
    assert unescape(TAG.sub("", "\n".join(highlight_lines(code)))) == code


@SETTINGS
@given(code_text)
def test_every_line_is_balanced_and_escaped(code: str) -> None:
    lines = highlight_lines(code)
    assert len(lines) == len(code.split("\n"))
    for source, html in zip(code.split("\n"), lines, strict=True):
        assert "\n" not in html
        assert_balanced(html)
        text = TAG.sub("", html)
        assert text == escape(source, quote=True)  # no raw < > " ' and every & starts an entity
        assert "<" not in text


@SETTINGS
@given(code_text)
def test_lines_differ_from_highlight_only_by_spans_split_at_newlines(code: str) -> None:
    html = highlight(code)
    assert_balanced(html)
    split = re.compile(r'</span>\n<span class="tok-\w+">')
    assert split.sub("\n", "\n".join(highlight_lines(code))) == split.sub("\n", html)


def test_hostile_markup_stays_escaped() -> None:
    code = "</span><script>alert(1)</script>\n/* </span><img src=x onerror=alert(1)> */ \"<b>\""
    html = highlight(code)
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert html.startswith("&lt;/span&gt;&lt;script&gt;" + span("fn", "alert"))
    assert span("com", "/* &lt;/span&gt;&lt;img src=x onerror=alert(1)&gt; */") in html
    assert span("str", "&quot;&lt;b&gt;&quot;") in html
    for line in highlight_lines(code):
        assert_balanced(line)


def test_keywords_are_whole_words_and_not_properties() -> None:
    html = highlight("export async function load(id: string) { return await fetch(id); }")
    for word in ("export", "async", "function", "return", "await"):
        assert span("kw", word) in html
    assert span("fn", "load") + "(id: string)" in html
    assert span("fn", "fetch") in html
    assert highlight("index inner in_ $if if$ instance") == "index inner in_ $if if$ instance"
    assert highlight("for (const k in obj)") == (
        f'{span("kw", "for")} ({span("kw", "const")} k {span("kw", "in")} obj)'
    )
    assert highlight("map.get(k); node.type; ...this") == (
        f'map.{span("fn", "get")}(k); node.type; ...{span("kw", "this")}'
    )
    assert highlight("if (x) {}") == f'{span("kw", "if")} (x) {{}}'  # a keyword before "(" stays a keyword


def test_literals() -> None:
    assert highlight("x = true ?? null ?? undefined ?? NaN ?? Infinity") == (
        f'x = {span("lit", "true")} ?? {span("lit", "null")} ?? {span("lit", "undefined")}'
        f' ?? {span("lit", "NaN")} ?? {span("lit", "Infinity")}'
    )
    assert highlight("trueish") == "trueish"


def test_strings_with_escaped_quotes() -> None:
    assert highlight(r'"a\"b" + x') == span("str", r"&quot;a\&quot;b&quot;") + " + x"
    assert highlight(r"'it\'s' + 'it'") == (
        span("str", r"&#x27;it\&#x27;s&#x27;") + " + " + span("str", "&#x27;it&#x27;")
    )
    assert highlight(r'"a\\" + b') == span("str", r"&quot;a\\&quot;") + " + b"
    assert highlight('"// not a comment"') == span("str", "&quot;// not a comment&quot;")


def test_an_unterminated_string_ends_with_its_line() -> None:
    assert highlight_lines("'open\nconst x") == [span("str", "&#x27;open"), span("kw", "const") + " x"]


def test_template_strings_keep_their_substitutions_and_lines() -> None:
    code = "const url = `/sandboxes/${id}?q=${q}`;"
    assert highlight(code) == f'{span("kw", "const")} url = {span("str", "`/sandboxes/${id}?q=${q}`")};'
    assert highlight_lines("`line one\nline two` + x") == [span("str", "`line one"), span("str", "line two`") + " + x"]
    assert highlight("`a\nb`") == span("str", "`a\nb`")


def test_numbers() -> None:
    numbers = ("0", "42", "3.14", ".5", "1e10", "1.5e-3", "2E+8", "0xFF", "0b1010", "0o17", "1_000_000", "10n", "0x1fn")
    for number in numbers:
        assert highlight(f"x = {number};") == f"x = {span('num', number)};", number
    assert highlight("a1 + x2y") == "a1 + x2y"  # digits inside names are not numbers


def test_line_and_block_comments() -> None:
    assert highlight("x = 1; // retry <3 & stop") == (
        f'x = {span("num", "1")}; {span("com", "// retry &lt;3 &amp; stop")}'
    )
    code = "/* first\n\n   last */ await go()"
    assert highlight(code) == span("com", "/* first\n\n   last */") + f' {span("kw", "await")} {span("fn", "go")}()'
    assert highlight_lines(code) == [
        span("com", "/* first"),
        span("com", ""),
        span("com", "   last */") + f' {span("kw", "await")} {span("fn", "go")}()',
    ]
    assert highlight("/* never closed\nx") == span("com", "/* never closed\nx")
    assert highlight("a / b /c") == "a / b /c"


def test_types_and_calls() -> None:
    assert highlight("throw new TypeError(msg)") == (
        f'{span("kw", "throw")} {span("kw", "new")} {span("type", "TypeError")}(msg)'
    )
    assert highlight("): Promise<void>") == f'): {span("type", "Promise")}&lt;{span("kw", "void")}&gt;'
    assert highlight("catch (e) { if (e instanceof Error) log (e) }") == (
        f'{span("kw", "catch")} (e) {{ {span("kw", "if")} (e {span("kw", "instanceof")} {span("type", "Error")})'
        f' {span("fn", "log")} (e) }}'
    )
    assert highlight("foo\n(1)") == f'foo\n({span("num", "1")})'  # "(" on the next line is not a call


@pytest.mark.parametrize("code", ["", "\n", "x\n", "\n\n/* a\n*/\n"])
def test_line_count_matches_the_source(code: str) -> None:
    assert len(highlight_lines(code)) == len(code.split("\n"))
    assert "\n".join(highlight_lines(code)).count("\n") == code.count("\n")
