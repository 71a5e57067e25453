"""Checks reported while reading files: they have codes so they can be listed and selected."""

from __future__ import annotations

from errdex.checks.base import Check, register


@register
class InvalidJson(Check):
    code, name, stage = "EDX001", "invalid-json", "parse"
    summary = "The file is not valid JSON."


@register
class InvalidUtf8(Check):
    code, name, stage = "EDX002", "invalid-utf8", "parse"
    summary = "The file is not valid UTF-8."


@register
class NonFiniteNumber(Check):
    code, name, stage = "EDX003", "non-finite-number", "parse"
    summary = "NaN or Infinity appears where JSON allows only finite numbers."


@register
class DuplicateKey(Check):
    code, name, stage = "EDX004", "duplicate-key", "parse"
    summary = "An object has the same key twice; parsers disagree on which one wins."


@register
class EmptyFile(Check):
    code, name, stage = "EDX005", "empty-file", "parse"
    summary = "The file or bundle line holds no JSON at all."


@register
class NotARecord(Check):
    code, name, stage = "EDX006", "not-a-record", "parse"
    summary = 'The top level is neither an envelope {"record": ..., "datasetVersion": ...} nor a record.'


@register
class UnreadableInput(Check):
    code, name, stage = "EDX007", "unreadable-input", "parse"
    summary = "A path cannot be read: missing, a permission problem, or not a record file."


@register
class NumberOutOfRange(Check):
    code, name, stage = "EDX008", "number-out-of-range", "parse"
    summary = "An integer does not fit in 64 bits (DuckDB, Parquet and errdex take -2^63 to 2^63-1)."


@register
class InvalidUnicode(Check):
    code, name, stage = "EDX009", "invalid-unicode", "parse"
    summary = "A string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair), which is no character."


@register
class SchemaViolation(Check):
    code, name, stage = "EDX010", "schema-violation", "parse"
    summary = "A value does not conform to the JSON Schema of the record's schemaVersion."


@register
class UnsupportedSchemaVersion(Check):
    code, name, stage = "EDX011", "schema-version", "parse"
    summary = "schemaVersion is missing or not a version this errdex supports."
