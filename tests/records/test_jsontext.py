from __future__ import annotations

import sys

import pytest

from errdex.records.jsontext import MAX_DEPTH, Locator, parse_document


def kinds(data: bytes) -> list[tuple[str, int, int, str]]:
    return [(p.kind.value, p.line, p.column, p.pointer) for p in parse_document(data).problems]


def test_clean_document_has_no_problems() -> None:
    doc = parse_document(b'{"a": [1, 2.5, "x"], "b": null}')
    assert doc.parsed and doc.problems == [] and doc.value == {"a": [1, 2.5, "x"], "b": None}


def test_every_duplicate_key_and_constant_is_reported() -> None:
    data = b'{"a": 1,\n "a": NaN,\n "b": [Infinity, {"c": 1, "c": -Infinity}]}'
    assert kinds(data) == [
        ("duplicate-key", 2, 2, "/a"),
        ("duplicate-key", 3, 27, "/b/1/c"),
        ("non-finite-number", 2, 7, "/a"),
        ("non-finite-number", 3, 8, "/b/0"),
        ("non-finite-number", 3, 32, "/b/1/c"),
    ]


def test_invalid_utf8_is_located_on_its_line() -> None:
    assert kinds(b'{"a": "ok",\n "b": "caf\xe9"}') == [("invalid-utf8", 2, 11, "")]


def test_syntax_error_position() -> None:
    assert kinds(b'{"a": 1,}') == [("invalid-json", 1, 9, "")]


@pytest.mark.parametrize("data", [b"", b"   ", b"\n\n", "\ufeff".encode()])
def test_empty_documents(data: bytes) -> None:
    assert [p.kind.value for p in parse_document(data).problems] == ["empty-file"]


def test_byte_order_mark_is_accepted() -> None:
    assert parse_document("\ufeff{}".encode()).value == {}


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    assert [p.kind.value for p in parse_document(b"[" * 100_000 + b"]" * 100_000).problems] == ["invalid-json"]


def test_line_offset_for_bundle_lines() -> None:
    assert kinds(b'{"a": 1, "a": 2}') and parse_document(b'{"a": 1, "a": 2}', line_offset=9).problems[0].line == 10


def test_locator_finds_values_and_nearest_parent() -> None:
    text = '{\n  "x": [1,\n   2],\n "y": {"z~/": "q"}}'
    locator = Locator(text)
    assert locator.locate("/x/1") == (3, 4)
    assert locator.locate("/y/z~0~1") == (4, 15)
    assert locator.locate("/y/missing") == (4, 7)
    assert locator.locate("") == (1, 1)


@pytest.mark.parametrize(
    ("data", "code", "column", "pointer"),
    [
        (b'{"a": 1e999}', "non-finite-number", 7, "/a"),
        (b'{"a": [-1E400]}', "non-finite-number", 8, "/a/0"),
        (b'{"a": 100000000000000000000}', "number-out-of-range", 7, "/a"),
        (b'{"a": -9223372036854775809}', "number-out-of-range", 7, "/a"),
        (b'{"a": ' + b"9" * 5000 + b"}", "number-out-of-range", 7, "/a"),
        (b'{"a": "x\\ud800"}', "invalid-unicode", 7, "/a"),
        (b'{"\\udfff": 1}', "invalid-unicode", 2, "/\udfff"),
    ],
)
def test_values_no_consumer_can_hold_are_problems(data: bytes, code: str, column: int, pointer: str) -> None:
    assert kinds(data) == [(code, 1, column, pointer)]


def test_the_largest_64_bit_integers_and_surrogate_pairs_are_fine() -> None:
    doc = parse_document(b'{"a": [9223372036854775807, -9223372036854775808, "\\ud83d\\ude00", "\\\\ud800"]}')
    assert doc.problems == [] and doc.value["a"][2] == "\U0001f600"


def test_an_integer_out_of_range_leaves_the_document_unparsed() -> None:
    assert not parse_document(b'{"a": 100000000000000000000}').parsed


def test_nesting_deeper_than_the_limit_is_located() -> None:
    data = b'{"a":\n' + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"}"
    assert kinds(data) == [("invalid-json", 2, MAX_DEPTH, "")]
    assert parse_document(b"[" * (MAX_DEPTH - 1) + b'"[[[[["' + b"]" * (MAX_DEPTH - 1)).problems == []


def test_decimals_are_noted() -> None:
    assert parse_document(b'{"a": 79.0}').has_decimals and not parse_document(b'{"a": 79}').has_decimals


def test_locating_in_a_long_string_takes_little_memory() -> None:
    # A 4 MB string once cost about 150 bytes of regex backtracking state per character (600 MB) to locate a
    # value after it or to look for duplicate keys; a record file may be 64 MB, so a hostile one took gigabytes.
    import subprocess

    script = (
        "import resource\n"
        "from errdex.records.jsontext import Locator, parse_document\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "text = '{\"a\": \"' + 'x' * 4_000_000 + '\", \"b\": \"' + 'y\\\\n' * 1_000_000 + '\", \"c\": 1, \"c\": 2}'\n"
        "doc = parse_document(text)\n"
        "assert [(p.kind.value, p.pointer) for p in doc.problems] == [('duplicate-key', '/c')], doc.problems\n"
        "assert Locator(text).locate('/c') == (1, text.rindex('2') + 1)\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) < 150, f"{out.stdout.strip()} MB to parse and locate"
