from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import pytest

from errdex.harvest.drafts import (
    DRAFT_STATUS,
    draft_record,
    drafted_trigger,
    excerpt,
    message_text,
    record_id,
    source_lines,
    timestamp,
    trigger_draft,
)
from errdex.harvest.sites import Choice, Hole, Site, Text
from errdex.records.models import RECORD_MODELS
from errdex.records.slug import derive_slug

CREATEOS = (Text("CreateOS request failed (HTTP "), Hole("${status}", "int"), Text(")"),
            Choice(((Text(" during "), Hole("${operation}")), ())), Text("."))
SOURCE = "\n".join(f"line {n}" for n in range(1, 21)) + "\n"


def _site(**changes: Any) -> Site:
    values: dict[str, Any] = {"path": "src/client.ts", "language": "typescript", "kind": "throw", "line": 10,
                              "end_line": 11, "template": CREATEOS, "error_class": "CreateosApiError",
                              "function": "request", "guards": ("!response.ok",)}
    values.update(changes)
    return Site(**values)


def _draft(site: Site, ordinal: int = 1) -> dict[str, Any]:
    return draft_record(site, repo="paperclipai/paperclip", sha="a" * 40, analyzed_at="2026-12-01T00:00:00Z",
                        lines=source_lines(SOURCE.encode()), pattern="CreateOS request failed .*", ordinal=ordinal)


def test_the_message_is_written_as_the_code_writes_it() -> None:
    assert message_text(CREATEOS) == "CreateOS request failed (HTTP ${status}) during ${operation}."
    assert message_text((Choice(((Text("a"),), (Text("bbb"),))),)) == "bbb"


def test_ids_follow_from_repo_file_and_message() -> None:
    key = "o/n\nsrc/a.py\nboom"
    assert record_id("o/n", "src/a.py", "boom") == hashlib.sha256(key.encode()).hexdigest()[:16]
    assert record_id("o/n", "src/a.py", "boom", 2) != record_id("o/n", "src/a.py", "boom")
    assert record_id("o/n", "src/b.py", "boom") != record_id("o/n", "src/a.py", "boom")


@pytest.mark.parametrize(("changes", "expected"), [
    ({}, "raised in request() when response.ok is not set"),
    ({"guards": ("a", "not (b)")}, "raised in request() when a is set and b is not set"),
    ({"guards": ()}, "raised in request()"),
    ({"function": None, "guards": ()}, "raised at the top level of src/client.ts"),
    ({"kind": "log", "level": "warn", "function": "Foo.bar"},
     "logged at warning in Foo.bar() when response.ok is not set"),
    ({"kind": "panic", "guards": ()}, "panics in request()"),
    ({"kind": "return-error", "guards": ()}, "returned as an error in request()"),
])
def test_the_trigger_draft_is_taken_from_the_code(changes: dict[str, Any], expected: str) -> None:
    text = trigger_draft(_site(**changes))
    assert text == expected and drafted_trigger(text)


@pytest.mark.parametrize(("condition", "words"), [
    ("not isinstance(x, str) and y is None", "x is not a str and y is None"),
    ("creationMayHaveSucceeded && !processId", "creationMayHaveSucceeded is set and processId is not set"),
    ("key not in table or len(key) > 40", "key is not in table or len(key) is greater than 40"),
    ("(a || b) && !path.endsWith('.tmp')", "(a is set or b is set) and path does not end with '.tmp'"),
    ("err != nil", "err is not nil"),
    ("x === undefined || x instanceof Error", "x is undefined or x is an Error"),
    ("isinstance(v, (int, float)) and not hasattr(v, 'real')", "(v is an int or float) and v has no real"),
    ("not self.allowed(name)", "self.allowed(name) is false"),
    ("s == 'a && b'", "s is 'a && b'"),  # an operator inside a string is text
    ("isinstance(x, ())", "isinstance(x, ())"),  # no class named: kept as written
])
def test_a_guard_reads_as_words_in_every_language(condition: str, words: str) -> None:
    assert trigger_draft(_site(guards=(condition,))) == f"raised in request() when {words}"


def test_a_contributors_trigger_text_is_not_a_draft() -> None:
    assert not drafted_trigger("The server answers with a status other than 2xx.")


def test_the_excerpt_holds_three_lines_around_the_statement() -> None:
    lines = source_lines(SOURCE.encode())
    assert excerpt(lines, 10, 11) == ("\n".join(f"line {n}" for n in range(7, 15)), 7, 14)
    assert excerpt(lines, 1, 1)[1:] == (1, 4)
    assert excerpt(lines, 20, 20)[1:] == (17, 20)


def test_source_lines_drop_line_ends() -> None:
    assert source_lines(b"a\r\nb\n") == ["a", "b"]
    assert source_lines(b"a\nb") == ["a", "b"]
    assert source_lines(b"\xff\n") == ["\ufffd"]


def test_the_time_is_now_or_source_date_epoch() -> None:
    assert timestamp("1700000000") == "2023-11-14T22:13:20Z"
    assert timestamp(None, now=lambda: datetime(2026, 12, 1, 8, 30, 5, 123, tzinfo=UTC)) == "2026-12-01T08:30:05Z"


def test_a_draft_has_every_mechanical_field() -> None:
    draft = _draft(_site())
    message = "CreateOS request failed (HTTP ${status}) during ${operation}."
    assert draft["id"] == record_id("paperclipai/paperclip", "src/client.ts", message)
    assert draft["slug"] == derive_slug(message)
    assert (draft["errorMessage"], draft["errorType"], draft["errorClass"], draft["severity"]) == (
        message, "exception", "CreateosApiError", "error")
    assert (draft["filePath"], draft["lineNumber"], draft["sourceCodeStart"], draft["sourceCodeEnd"]) == (
        "src/client.ts", 10, 7, 14)
    assert draft["sourceCode"].splitlines()[0] == "line 7"
    assert draft["githubUrl"] == f"https://github.com/paperclipai/paperclip/blob/{'a' * 40}/src/client.ts#L7-L14"
    assert draft["analyzedSha"] == "a" * 40 and draft["analyzedAt"] == draft["contentChangedAt"]
    assert draft["triggerScenarios"] == "raised in request() when response.ok is not set"
    assert (draft["schemaVersion"], draft["status"]) == (4, DRAFT_STATUS)
    assert all(draft[name] in ("", []) for name in ("documentation", "commonSituations", "solutions", "exampleFix",
                                                    "typeGuard", "tryCatchPattern", "preventionTips"))


def test_a_later_site_of_the_same_message_gets_its_own_id() -> None:
    assert _draft(_site(), 2)["id"] != _draft(_site())["id"]


@pytest.mark.parametrize(("changes", "error_type", "severity", "error_class"), [
    ({"kind": "log", "level": "warn", "error_class": "logger"}, "log", "warning", "logger"),
    ({"kind": "log", "level": "critical", "error_class": None}, "log", "critical", "log"),
    ({"kind": "log", "level": "debug"}, "log", "info", "CreateosApiError"),
    ({"kind": "log", "level": "shout"}, "log", "info", "CreateosApiError"),
    ({"kind": "panic", "error_class": None}, "panic", "critical", "panic"),
    ({"kind": "return-error", "error_class": "fmt.Errorf"}, "error-value", "error", "fmt.Errorf"),
])
def test_error_type_severity_and_class_follow_the_site(changes: dict[str, Any], error_type: str, severity: str,
                                                        error_class: str) -> None:
    draft = _draft(_site(**changes))
    assert (draft["errorType"], draft["severity"], draft["errorClass"]) == (error_type, severity, error_class)


def test_a_draft_is_a_valid_record_of_its_format() -> None:
    draft = _draft(_site())
    if 4 in RECORD_MODELS:
        RECORD_MODELS[4].model_validate(draft)
        return
    # until format 4 lands: everything but the draft's status and empty prose is valid version 3
    filled = dict(draft, schemaVersion=3, status="active", documentation="d", commonSituations="c",
                  solutions=["s"], exampleFix="e", typeGuard="t", tryCatchPattern="p")
    RECORD_MODELS[3].model_validate(filled)
