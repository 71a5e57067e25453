"""Envelopes: ``{"record": {...}, "datasetVersion": ...}`` around a record, and how to take one apart.

A document's top level is an envelope or a bare record. Every reader asks the same two questions, answered
here once: which value is the record, and under which JSON pointer prefix its fields sit.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RECORD_PREFIX", "document_shape", "is_envelope", "unwrap"]

#: JSON pointer of the record inside an envelope.
RECORD_PREFIX = "/record"


def unwrap(value: Any) -> tuple[Any, str]:
    """The record a document holds and the pointer prefix of its fields.

    An object with a ``"record"`` key is an envelope: its record is that key's value (which may be anything in
    a document that does not conform), under ``/record``. Anything else is taken as a bare record, prefix ``""``.
    """
    if isinstance(value, dict) and "record" in value:
        return value["record"], RECORD_PREFIX
    return value, ""


def is_envelope(value: Any) -> bool:
    """Whether ``value`` is a well-formed envelope: an object whose ``record`` is an object, with a
    ``datasetVersion``."""
    return isinstance(value, dict) and isinstance(value.get("record"), dict) and "datasetVersion" in value


def document_shape(value: Any) -> str | None:
    """``envelope``, ``record`` or None when a document's top level is neither (what ``validate`` reports as
    not-a-record, and ``fmt`` leaves as it is)."""
    if isinstance(value, dict):
        if "record" in value:
            return "envelope"
        if "schemaVersion" in value or ("id" in value and "errorMessage" in value):
            return "record"
    return None
