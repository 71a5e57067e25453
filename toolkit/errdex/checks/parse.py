"""Checks reported while reading files: they have codes so they can be listed and selected.

The record layer finds the reading problems and says only their kind
(:class:`~errdex.records.problems.ProblemKind`); each check here names the
kind it reports, and so gives that kind its code and name. The last three are
found by validation itself, once a document has parsed.
"""

from __future__ import annotations

from typing import ClassVar

from errdex.checks.base import Check, register
from errdex.records.jsontext import MAX_DEPTH
from errdex.records.problems import ProblemKind

__all__ = [
    "DuplicateKey",
    "EmptyFile",
    "InvalidJson",
    "InvalidUnicode",
    "InvalidUtf8",
    "NonFiniteNumber",
    "NotARecord",
    "NumberOutOfRange",
    "ReadingCheck",
    "SchemaViolation",
    "UnreadableInput",
    "UnsupportedSchemaVersion",
]


class ReadingCheck(Check):
    """A check whose findings are the record layer's reading problems of one kind; its name is the kind's."""

    stage = "parse"
    kind: ClassVar[ProblemKind]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.name = cls.kind.value


@register
class InvalidJson(ReadingCheck):
    code, kind = "EDX001", ProblemKind.INVALID_JSON
    rule = f"the file is JSON (line and column of the syntax error), nested at most {MAX_DEPTH} levels"
    summary = "The file is not valid JSON."


@register
class InvalidUtf8(ReadingCheck):
    code, kind = "EDX002", ProblemKind.INVALID_UTF8
    rule = "the file is UTF-8"
    summary = "The file is not valid UTF-8."


@register
class NonFiniteNumber(ReadingCheck):
    code, kind = "EDX003", ProblemKind.NON_FINITE_NUMBER
    rule = "no `NaN` / `Infinity`, no number too large for a double (`1e999`)"
    summary = "NaN or Infinity appears where JSON allows only finite numbers."


@register
class DuplicateKey(ReadingCheck):
    code, kind = "EDX004", ProblemKind.DUPLICATE_KEY
    rule = "no key twice in one object"
    summary = "An object has the same key twice; parsers disagree on which one wins."


@register
class EmptyFile(ReadingCheck):
    code, kind = "EDX005", ProblemKind.EMPTY_FILE
    rule = "the file or bundle line is not empty"
    summary = "The file or bundle line holds no JSON at all."


@register
class NotARecord(Check):
    code, name, stage = "EDX006", "not-a-record", "parse"
    rule = "the top level is an envelope or a record"
    summary = 'The top level is neither an envelope {"record": ..., "datasetVersion": ...} nor a record.'


@register
class UnreadableInput(ReadingCheck):
    code, kind = "EDX007", ProblemKind.UNREADABLE_INPUT
    rule = "the path exists and can be read"
    summary = "A path cannot be read: missing, a permission problem, or not a record file."


@register
class NumberOutOfRange(ReadingCheck):
    code, kind = "EDX008", ProblemKind.NUMBER_OUT_OF_RANGE
    rule = "integers fit in 64 bits (DuckDB, Parquet); line numbers in 32 bits (EDX010)"
    summary = "An integer does not fit in 64 bits (DuckDB, Parquet and errdex take -2^63 to 2^63-1)."


@register
class InvalidUnicode(ReadingCheck):
    code, kind = "EDX009", ProblemKind.INVALID_UNICODE
    rule = 'no lone UTF-16 surrogate escape (`"\\ud800"`) in a string or key'
    summary = "A string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair), which is no character."


@register
class SchemaViolation(Check):
    code, name, stage = "EDX010", "schema-violation", "parse"
    rule = "the JSON Schema of the record's `schemaVersion`"
    summary = "A value does not conform to the JSON Schema of the record's schemaVersion."


@register
class UnsupportedSchemaVersion(Check):
    code, name, stage = "EDX011", "schema-version", "parse"
    rule = "`schemaVersion` is one errdex supports"
    summary = "schemaVersion is missing or not a version this errdex supports."
