"""Pydantic models of the record format: the source of truth for ``schema/``.

The JSON Schema files in ``schema/`` are generated from these models
(``python -m errdex.records.schema --write``) and a test fails when the
committed files differ from what the models produce.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

from errdex.records.scenarios.createos import (
    ACTIONS,
    CALLS,
    OPERATIONS,
    Action,
    Call,
    Operation,
)
from errdex.records.scenarios.sshd import FAMILY_REPO as SSHD_REPO
from errdex.records.scenarios.sshd import Operation as SshdOperation
from errdex.records.scenarios.sshd import Outcome as SshdOutcome
from errdex.records.vocabulary import DEFAULT_STATUS, DRAFT_STATUS, PROSE_FIELDS, SEVERITIES, Severity, Status

__all__ = [
    "ENVELOPE_MODELS",
    "PROSE_OPTIONAL",
    "RECORD_MODELS",
    "SCENARIO_ACTIONS",
    "SCENARIO_CALLS",
    "SCENARIO_OPERATIONS",
    "SEVERITIES",
    "Build",
    "EnvelopeV2",
    "EnvelopeV3",
    "EnvelopeV4",
    "RecordV2",
    "RecordV3",
    "RecordV4",
    "Scenario",
    "Severity",
    "SshdScenario",
]

RFC3339 = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"

Text = Annotated[str, Field(min_length=1)]
Timestamp = Annotated[str, Field(pattern=RFC3339)]
#: Line numbers fit in 32 bits, the INTEGER column of the index.
Line = Annotated[int, Field(ge=1, le=2**31 - 1)]


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


#: The scenario vocabulary of the CreateOS executor, under the names this module has always exported.
SCENARIO_CALLS: tuple[str, ...] = CALLS
SCENARIO_ACTIONS: tuple[str, ...] = tuple(ACTIONS)
SCENARIO_OPERATIONS: tuple[str, ...] = OPERATIONS
CLAUSE_REF = r"^(triggerScenarios|commonSituations):[1-9][0-9]*$"


class ScenarioCall(_Strict):
    """What the scenario does: one call of the reference executor, with its inputs."""

    operation: Operation = Field(
        description="Executor call: execute (run one command) or a single client call such as resume-sandbox."
    )
    sandbox: str = Field(default="sbx-1", description="Sandbox id (the lease) the call is made on.")
    command: str | None = Field(default=None, description="execute: the command to run.")
    args: list[str] = Field(default_factory=list, description="execute and exec: the command's arguments.")
    cwd: str | None = Field(default=None, description="execute: working directory of the command.")
    env: dict[str, Any] = Field(default_factory=dict, description="execute: environment variables to set.")
    stdin: str | None = Field(default=None, description="execute: text given to the command on standard input.")
    path: str | None = Field(default=None, description="upload-file: path of the file in the sandbox.")
    text: str | None = Field(default=None, description="upload-file: content of the file.")
    timeoutMs: int | None = Field(default=None, ge=1, description="execute: the command's deadline in milliseconds.")
    cancelAfterMs: int | None = Field(
        default=None, ge=0, description="Cancel the call this many milliseconds after it started."
    )
    clientTimeoutMs: int = Field(
        default=3000, ge=1, description="The client's configured timeout (also the fresh cleanup deadline)."
    )


class ScenarioFault(BaseModel):
    """One rule of the fake server's fault plan: on which call, which action, with its parameters."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    on: Call = Field(description="The API call the rule applies to.")
    action: Action = Field(
        description=(
            "What the server does: respond (status, body or bodyText), no-body, drop (close without acting), "
            "drop-after-handling (act, then close without answering), reset, stall (ms), stream (frames, then "
            "end or reset), replay (overlap), terminate-response (data)."
        )
    )
    nth: int | None = Field(default=None, ge=1, description="Apply to the nth occurrence of the call only.")
    times: int | None = Field(default=None, ge=1, description="Apply to the first N occurrences (default: all).")


class ScenarioServer(_Strict):
    """What the fake CreateOS server holds and which faults it injects."""

    sandboxes: dict[str, Any] = Field(
        default_factory=lambda: {"sbx-1": "running"},
        description="Sandbox id to status, or to {status, pause, resume} with the statuses successive reads report.",
    )
    programs: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Behaviour of created processes in creation order: "
                    "{output: [{stream, text}], exit: {...} or null}.",
    )
    faults: list[ScenarioFault] = Field(default_factory=list, description="The fault plan, first matching rule wins.")
    listen: bool = Field(default=True, description="False: the API URL refuses connections.")


class ScenarioExpect(_Strict):
    """What must be observed for the scenario to pass."""

    outcome: Literal["raises", "returns"] = Field(description="Whether the call raises an error or returns.")
    errorClass: str | None = Field(default=None, description="raises: the class of the error (JavaScript name).")
    matchesRecord: bool = Field(
        default=True,
        description="raises: whether the record's messagePattern matches the raised message "
                    "(false: a negative scenario).",
    )
    groups: list[str] | None = Field(
        default=None, description="raises: the values the pattern's capture groups must capture from the message."
    )
    result: dict[str, Any] = Field(
        default_factory=dict,
        description="returns: fields the result must have "
                    "(exitCode, signal, timedOut, stdout, stderr, outputTruncated).",
    )
    ledger: dict[str, int] = Field(
        default_factory=dict,
        description="Facts of the server's ledger that must hold, e.g. processesRunning or requests.terminate.",
    )


class Scenario(_Strict):
    """A trigger scenario in machine-readable form, proved by running it against the fake server."""

    id: str = Field(pattern=KEBAB, description="Stable id, unique within the record.")
    summary: Text = Field(description="One sentence saying what happens.")
    covers: list[Annotated[str, Field(pattern=CLAUSE_REF)]] = Field(
        default_factory=list,
        description="Clauses of triggerScenarios or commonSituations (1-based, e.g. commonSituations:2) it proves.",
    )
    call: ScenarioCall = Field(description="What is done.")
    server: ScenarioServer = Field(default_factory=ScenarioServer, description="What the server does.")
    expect: ScenarioExpect = Field(description="What must be observed.")


class _SshdCall(BaseModel):
    """An sshd scenario's call: its operation; its parameters are the vocabulary's (EDX203 checks them)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    operation: SshdOperation = Field(description="connect (raw TCP), login (SSH as a user) or idle.")


class _SshdExpect(BaseModel):
    """What an sshd scenario expects: its outcome; the rest is the vocabulary's (EDX203 checks it)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    outcome: SshdOutcome = Field(description="logged: sshd writes the record's line; not-logged: it writes none.")


class SshdScenario(_Strict):
    """A trigger scenario of the sshd family (:mod:`errdex.records.scenarios.sshd`), run against the real sshd."""

    id: str = Field(pattern=KEBAB, description="Stable id, unique within the record.")
    summary: Text = Field(description="One sentence saying what happens.")
    covers: list[Annotated[str, Field(pattern=CLAUSE_REF)]] = Field(
        default_factory=list, description="Clauses of triggerScenarios or commonSituations it proves.")
    server: dict[str, Any] | None = Field(default=None, description="{config: {KEYWORD: VALUE}} for sshd_config.")
    call: _SshdCall = Field(description="What the client does.")
    expect: _SshdExpect = Field(description="What sshd must (or must not) write.")


_SSHD_SCENARIOS: TypeAdapter[list[SshdScenario]] = TypeAdapter(list[SshdScenario])
_CREATEOS_SCENARIOS: TypeAdapter[list[Scenario]] = TypeAdapter(list[Scenario])


#: The statuses of format version 3 (version 4 adds ``draft``): its schema stays what it was.
StatusV3 = Literal["active", "withdrawn", "superseded"]


class RecordV3(RecordV2):
    """One error message raised by one place in a real codebase (format version 3: version 2 plus scenarios)."""

    model_config = ConfigDict(title="errdex error record, version 3")

    scenarios: list[Scenario] = Field(description="Trigger scenarios, each proved by the reference executor.")
    status: StatusV3 = Field(
        default=DEFAULT_STATUS,
        description="Lifecycle: active; withdrawn (kept, no longer recommended); superseded by another record. "
        "Records are never deleted; matching skips records that are not active unless asked.",
    )
    statusReason: str | None = Field(
        default=None, description="Why the record was withdrawn or superseded (required for those statuses)."
    )
    supersededBy: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{16}$",
        description="The id of the record that replaces this one (superseded only).",
    )
    schemaVersion: Literal[3] = Field(  # type: ignore[assignment]  # each format version narrows the parent's Literal
        description="Version of the record format; 3 for this schema."
    )


class EnvelopeV3(_Strict):
    """A record as stored in a file or bundle line, with the release it belongs to."""

    model_config = ConfigDict(title="errdex record envelope, version 3")

    record: RecordV3 = Field(description="The error record.")
    datasetVersion: Timestamp = Field(
        description="RFC 3339 time of the dataset release that the record belongs to."
    )


#: The statuses in which the prose fields may be empty: a draft (harvested, not documented yet) and a withdrawn
#: record (kept only as history: a draft withdrawn because its code vanished never had prose to keep).
PROSE_OPTIONAL: tuple[Status, ...] = (DRAFT_STATUS, "withdrawn")
#: Outside those statuses, what each prose field needs (as version 3 has it); inside them each may be empty.
#: (preventionTips may be ``[]`` in any record, as in version 3.)
_FILLED: dict[str, dict[str, Any]] = {
    name: {"minItems": 1, "description": "Outside a draft or a withdrawn record: at least one solution."}
    if name == "solutions" else {"minLength": 1, "description": "Outside a draft or a withdrawn record: not empty."}
    for name in PROSE_FIELDS if name != "preventionTips"
}
_DRAFT_RULE: dict[str, Any] = {
    "if": {"required": ["status"],
           "properties": {"status": {"enum": list(PROSE_OPTIONAL),
                                     "description": "The record is a draft or withdrawn."}}},
    "else": {"properties": _FILLED},
}


def _v4_schema(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Version 4's JSON Schema: the draft rule, and the scenarios' shape chosen by the record's family (as
    :meth:`RecordV4._scenarios_of_family` chooses it): the items take either shape, and the rule that depends
    on ``repo`` narrows them to the family's."""
    schema.update(_DRAFT_RULE)
    createos, sshd = schema["properties"]["scenarios"]["items"]["anyOf"]  # the references pydantic made
    schema["dependentSchemas"] = {"repo": {
        "if": {"properties": {"repo": {"const": SSHD_REPO, "description": "The record is of the sshd family."}}},
        "then": {"properties": {"scenarios": {"items": sshd, "description": "sshd scenarios."}}},
        "else": {"properties": {"scenarios": {"items": createos, "description": "CreateOS scenarios."}}},
    }}


def _unfilled(record: BaseModel) -> list[InitErrorDetails]:
    """The errors of a record whose status needs prose and that leaves a prose field empty, one per field."""
    errors: list[InitErrorDetails] = []
    for name in _FILLED:
        value = getattr(record, name)
        if value:
            continue
        kind, text = (("too_short", "List should have at least 1 item after validation, not 0")
                      if isinstance(value, list) else ("string_too_short", "String should have at least 1 character"))
        errors.append(InitErrorDetails(type=PydanticCustomError(kind, text), loc=(name,), input=value))
    return errors


#: The roles a file has in its project's build (``build.role``).
BuildRole = Literal["main", "test", "contrib"]


class Build(_Strict):
    """What the record's file is built into, as the project's build files (or, where they say nothing, its
    path) tell: harvested, refreshed by each harvest, read by ``errdex match`` to rank records that match a
    line equally well."""

    programs: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.+-]{1,100}$")]] = Field(
        default_factory=list, max_length=200,
        description="The programs (executables, Python distributions, Maven modules) the file is built into; "
                    "empty when no build file says.")
    platform: Annotated[str, Field(pattern=r"^[a-z0-9]{1,20}$")] | None = Field(
        default=None, description="The platform the file is for (unix, linux, win32, solaris, aix, darwin...), "
                                  "or null: every platform.")
    role: BuildRole = Field(default="main", description="main: the project's own code; test: tests, regression "
                                                        "helpers, benchmarks; contrib: contrib, examples.")


class RecordV4(RecordV3):
    """One error message raised by one place in a real codebase (format version 4: version 3 plus drafts).

    A ``draft`` is a record harvested from the code: every mechanical field is there, and the prose fields may
    be empty (``""`` or ``[]``) until a contributor writes them and sets the status to ``active``. A
    ``withdrawn`` record may leave them empty too: it is kept only as history, and a draft withdrawn (its
    code gone) never had prose to keep.
    """

    model_config = ConfigDict(title="errdex error record, version 4", json_schema_extra=_v4_schema)

    scenarios: list[Scenario | SshdScenario] = Field(  # type: ignore[assignment]  # version 4 adds the sshd family
        description="Trigger scenarios, each proved by the executor of the record's family: the real sshd for "
                    f"{SSHD_REPO}, the fake CreateOS server for every other repository."
    )

    documentation: str = Field(description="What the error means, in prose (may be empty when draft or withdrawn).")
    commonSituations: str = Field(
        description="Situations in which users typically meet the error (may be empty when draft or withdrawn)."
    )
    solutions: list[Text] = Field(
        description="Ways to fix the cause, best first (at least one unless draft or withdrawn)."
    )
    exampleFix: str = Field(description="Code showing a fix: before and after (may be empty when draft or withdrawn).")
    typeGuard: str = Field(
        description="Code that recognises the error value, a type guard (may be empty when draft or withdrawn)."
    )
    tryCatchPattern: str = Field(
        description="Code showing how to catch and handle the error (may be empty when draft or withdrawn)."
    )
    status: Status = Field(  # type: ignore[assignment]  # version 4 widens version 3's statuses by draft
        default=DEFAULT_STATUS,
        description="Lifecycle: active; draft (harvested from the code, its prose not written yet); withdrawn "
        "(kept, no longer recommended); superseded by another record. Records are never deleted; matching "
        "skips withdrawn and superseded records unless asked.",
    )
    build: Build | None = Field(
        default=None, description="Optional: the programs and platform the file is built into (a harvest writes "
                                  "it); absent or null when not known.")
    schemaVersion: Literal[4] = Field(  # type: ignore[assignment]  # each format version narrows the parent's Literal
        description="Version of the record format; 4 for this schema."
    )
    githubUrl: Text | None = Field(  # type: ignore[assignment]  # version 4 allows a source with no commit
        description=(
            "Link to the excerpt: https://github.com/{repo}/blob/{analyzedSha}/{filePath}"
            "#L{sourceCodeStart}-L{sourceCodeEnd}; null when no commit is known (analyzedSha null)."
        )
    )
    analyzedSha: str | None = Field(  # type: ignore[assignment]  # version 4 allows a source with no commit
        pattern=r"^[0-9a-f]{40}$",
        description="Commit of the repository at which the source was analysed; null when the source was a "
                    "folder outside any repository of its own (an installed package: see analyzedVersion).",
    )
    analyzedVersion: Text | None = Field(
        default=None,
        description="The release the source was analysed at when no commit is known (an installed package's "
                    "name and version, e.g. 'jinja2 3.1.6'); absent or null otherwise.",
    )

    @field_validator("scenarios", mode="wrap")
    @classmethod
    def _scenarios_of_family(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: Any) -> Any:
        """Each family's scenarios in its own shape (the union alone would let a record take the other's)."""
        adapter = _SSHD_SCENARIOS if info.data.get("repo") == SSHD_REPO else _CREATEOS_SCENARIOS
        return adapter.validate_python(value)

    @model_validator(mode="after")
    def _prose_filled_unless_draft(self) -> RecordV4:
        if self.status not in PROSE_OPTIONAL:
            errors = _unfilled(self)
            if errors:
                raise ValidationError.from_exception_data(type(self).__name__, errors)
        return self


class EnvelopeV4(_Strict):
    """A record as stored in a file or bundle line, with the release it belongs to."""

    model_config = ConfigDict(title="errdex record envelope, version 4")

    record: RecordV4 = Field(description="The error record.")
    datasetVersion: Timestamp = Field(
        description="RFC 3339 time of the dataset release that the record belongs to."
    )


RECORD_MODELS: dict[int, type[BaseModel]] = {2: RecordV2, 3: RecordV3, 4: RecordV4}
ENVELOPE_MODELS: dict[int, type[BaseModel]] = {2: EnvelopeV2, 3: EnvelopeV3, 4: EnvelopeV4}
