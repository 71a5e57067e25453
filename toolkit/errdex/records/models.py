"""Pydantic models of the record format: the source of truth for ``schema/``.

The JSON Schema files in ``schema/`` are generated from these models
(``python -m errdex.records.schema --write``) and a test fails when the
committed files differ from what the models produce.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ENVELOPE_MODELS",
    "EnvelopeV2",
    "RECORD_MODELS",
    "RecordV2",
    "SEVERITIES",
    "Severity",
]

RFC3339 = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"

Severity = Literal["critical", "error", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("critical", "error", "warning", "info")

Text = Annotated[str, Field(min_length=1)]
Timestamp = Annotated[str, Field(pattern=RFC3339)]
Line = Annotated[int, Field(ge=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class RecordV2(_Strict):
    """One error message raised by one place in a real codebase (format version 2)."""

    model_config = ConfigDict(title="errdex error record, version 2")

    id: str = Field(
        pattern=r"^[0-9a-f]{16}$",
        description="Permanent identifier: 16 lowercase hexadecimal digits, unique across the dataset.",
    )
    repo: str = Field(
        pattern=r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*/[A-Za-z0-9_-][A-Za-z0-9_.-]*$",
        description="GitHub repository that raises the error, as owner/name.",
    )
    slug: str = Field(
        pattern=KEBAB,
        max_length=60,
        description=(
            "URL and file name of the record: the error message lowercased, each run of "
            "characters other than a-z and 0-9 replaced by '-', cut to 60 characters, "
            "without leading or trailing '-'. Unique within the repository."
        ),
    )
    errorCode: str | None = Field(
        description="Machine-readable code the error carries (e.g. ENOENT), or null when it has none."
    )
    errorMessage: Text = Field(description="The message as the code raises it.")
    messagePattern: Text = Field(
        description=(
            "Regular expression in the portable JavaScript subset that recognises the message "
            "in a log line; dynamic parts are capture groups. It must match the whole errorMessage."
        )
    )
    errorType: str = Field(
        pattern=KEBAB, description="Kind of failure signal, e.g. exception, rejection, exit-code, log."
    )
    errorClass: Text = Field(description="Class or type of the raised error, e.g. CreateosCleanupError.")
    httpStatus: int | None = Field(
        ge=100, le=599, description="HTTP status the error corresponds to, or null when none."
    )
    severity: Severity = Field(description="How bad the error is for its user: critical, error, warning or info.")
    filePath: Text = Field(description="Path of the file that raises the error, relative to the repository root.")
    lineNumber: Line = Field(description="1-based line at which the error is raised, at analyzedSha.")
    sourceCode: str = Field(
        description="Excerpt of the source file from sourceCodeStart to sourceCodeEnd, one line per line."
    )
    sourceCodeStart: Line = Field(description="1-based first line of the excerpt in sourceCode.")
    sourceCodeEnd: Line = Field(description="1-based last line of the excerpt in sourceCode.")
    githubUrl: Text = Field(
        description=(
            "Link to the excerpt: https://github.com/{repo}/blob/{analyzedSha}/{filePath}"
            "#L{sourceCodeStart}-L{sourceCodeEnd}."
        )
    )
    documentation: Text = Field(description="What the error means, in prose.")
    triggerScenarios: Text = Field(description="What makes the code raise the error.")
    commonSituations: Text = Field(description="Situations in which users typically meet the error.")
    solutions: list[Text] = Field(min_length=1, description="Ways to fix the cause, best first.")
    exampleFix: Text = Field(description="Code showing a fix: before and after.")
    handlingStrategy: str = Field(
        pattern=KEBAB, description="How callers should handle the error, e.g. try-catch, retry, validate-input."
    )
    validationCode: str | None = Field(
        description="Code that validates input so that the error cannot happen, or null when not applicable."
    )
    typeGuard: Text = Field(description="Code that recognises the error value (a type guard).")
    tryCatchPattern: Text = Field(description="Code showing how to catch and handle the error.")
    preventionTips: list[Text] = Field(description="How to keep the error from happening again.")
    tags: list[Annotated[str, Field(pattern=KEBAB)]] = Field(
        description="Lowercase kebab-case topics, unique within the record."
    )
    backgroundTag: str = Field(pattern=KEBAB, description="Kebab-case name of the family of failure, for grouping.")
    analyzedSha: str = Field(
        pattern=r"^[0-9a-f]{40}$", description="Commit of the repository at which the source was analysed."
    )
    analyzedAt: Timestamp = Field(description="RFC 3339 time at which the source was analysed.")
    contentChangedAt: Timestamp = Field(description="RFC 3339 time at which the record's content last changed.")
    schemaVersion: Literal[2] = Field(description="Version of the record format; 2 for this schema.")


class EnvelopeV2(_Strict):
    """A record as stored in a file or bundle line, with the release it belongs to."""

    model_config = ConfigDict(title="errdex record envelope, version 2")

    record: RecordV2 = Field(description="The error record.")
    datasetVersion: Timestamp = Field(
        description="RFC 3339 time of the dataset release that the record belongs to."
    )


RECORD_MODELS: dict[int, type[BaseModel]] = {2: RecordV2}
ENVELOPE_MODELS: dict[int, type[BaseModel]] = {2: EnvelopeV2}
