"""A site found in the code, as a draft record: every mechanical field filled, the prose left empty.

The mechanical fields (:data:`MECHANICAL_FIELDS`) are read straight from the code and the commit; the prose
(documentation, commonSituations, solutions, exampleFix, typeGuard, tryCatchPattern, preventionTips) is a
contributor's to write, and is empty in a draft (``""`` / ``[]``). ``triggerScenarios`` is drafted from the
code only: the enclosing function and the conditions that guard the site, read as words
(``raised in execute() when creationMayHaveSucceeded is set and processId is not set``:
:func:`~errdex.harvest.conditions.in_words`).

A draft's ``id`` is the first 16 hex digits of the SHA-256 of its repository, file and message, so harvesting
again gives the same ids; a second site of the same message in one file adds its ordinal (2, 3...).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from errdex.harvest.conditions import in_words
from errdex.harvest.sinks import LEVELS, normal_level, severity_of
from errdex.harvest.sites import Choice, Hole, Part, Site, Template, Text
from errdex.records.slug import derive_slug
from errdex.records.source_paths import github_url

__all__ = ["CONTEXT_LINES", "DOCUMENTED_FIELDS", "DRAFT_STATUS",
           "DRAFT_VERSION", "MECHANICAL_FIELDS", "PLACEHOLDER", "draft_record",
           "drafted_trigger", "error_type", "excerpt", "message_text", "record_id", "source_lines", "timestamp",
           "trigger_draft"]

#: The format version and status of a harvested record.
DRAFT_VERSION = 4
DRAFT_STATUS = "draft"
#: Lines of context around the statement in ``sourceCode``, before and after.
CONTEXT_LINES = 3
#: The fields a harvest writes and refreshes; every other field is a contributor's.
MECHANICAL_FIELDS: tuple[str, ...] = (
    "repo", "errorMessage", "messagePattern", "errorType", "errorClass", "severity", "filePath", "lineNumber",
    "sourceCode", "sourceCodeStart", "sourceCodeEnd", "githubUrl", "analyzedSha", "build",
)
#: The mechanical fields a contributor owns once a record is documented (no longer a draft): the message as the
#: record words it, the pattern tuned to real log lines, the class, type and severity chosen for it. A harvest
#: refreshes only the place (file, line, excerpt, URL, commit) of such a record; a changed message is drift's.
DOCUMENTED_FIELDS: tuple[str, ...] = ("errorMessage", "messagePattern", "errorType", "errorClass", "severity")
#: The value of a required kebab-case field no code can tell (handlingStrategy, backgroundTag) in a draft.
PLACEHOLDER = "undocumented"

_ERROR_TYPES = {"throw": "exception", "log": "log", "panic": "panic", "return-error": "error-value"}
_DEFAULT_CLASS = {"throw": "Error", "log": "log", "panic": "panic", "return-error": "error"}
#: What :func:`trigger_draft` writes, so that a re-harvest can tell its own draft from a contributor's prose.
_DRAFTED = re.compile(r"^(raised|logged at [a-z0-9]+|panics|returned as an error) (in |at the top level of )")


def message_text(template: Template) -> str:
    """The message as the code writes it: text as is, each dynamic part as written, a choice by its longest
    option (``CreateOS request failed (HTTP ${status}) during ${operation}.``)."""
    return "".join(_part_text(part) for part in template).strip("\r\n")  # as the pattern: no line ends


def _part_text(part: Part) -> str:
    if isinstance(part, Text):
        return part.text
    if isinstance(part, Hole):
        return part.source
    assert isinstance(part, Choice)  # Part is Text | Hole | Choice
    options = ["".join(_part_text(inner) for inner in option) for option in part.options]
    return max(options, key=len, default="")


def record_id(repo: str, path: str, message: str, ordinal: int = 1) -> str:
    """16 hex digits from repository, file and message; ``ordinal`` > 1 for a later site of the same message
    in the same file."""
    key = f"{repo}\n{path}\n{message}" + (f"\n{ordinal}" if ordinal > 1 else "")
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def error_type(site: Site) -> str:
    """exception (throw, raise), log (a log call), panic, or error-value (a returned error)."""
    return _ERROR_TYPES[site.kind]


def _level(site: Site) -> str | None:
    if site.kind == "panic":
        return "fatal"
    if site.level is None:
        return None
    return normal_level(site.level) or site.level


def trigger_draft(site: Site) -> str:
    """What the code says about when the site runs: the enclosing function and the guards, in words."""
    if site.kind == "log":
        verb = f"logged at {_level(site) or 'an unknown level'}"
    else:
        verb = {"throw": "raised", "panic": "panics", "return-error": "returned as an error"}[site.kind]
    where = f"in {site.function}()" if site.function else f"at the top level of {site.path}"
    guards = [in_words(guard) for guard in site.guards if guard.strip()]
    return f"{verb} {where}" + (f" when {' and '.join(guards)}" if guards else "")


def drafted_trigger(text: str) -> bool:
    """Whether a triggerScenarios text is a harvest's own draft (not yet rewritten by a contributor)."""
    return bool(_DRAFTED.match(text))


def source_lines(data: bytes) -> list[str]:
    """A file's lines, without their line ends (undecodable bytes replaced)."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def excerpt(lines: Sequence[str], first: int, last: int, context: int = CONTEXT_LINES) -> tuple[str, int, int]:
    """The statement on lines ``first``..``last`` (1-based) with up to ``context`` lines around it: (text,
    start, end)."""
    last = max(first, min(last, len(lines)))
    start, end = max(1, first - context), max(first, min(len(lines), last + context))
    return "\n".join(lines[start - 1 : end]), start, end


def timestamp(epoch: str | None = None, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> str:
    """RFC 3339 UTC (``Z``) of ``SOURCE_DATE_EPOCH`` when given (seconds since 1970), else of now."""
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch else now()
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def draft_record(site: Site, *, repo: str, sha: str | None, analyzed_at: str, lines: Sequence[str], pattern: str,
                 ordinal: int = 1, version: str | None = None) -> dict[str, Any]:
    """The draft record of one site (``lines``: its file's lines; ``pattern``: its messagePattern). With no
    commit (``sha`` None: a folder no repository holds), ``analyzedSha`` and ``githubUrl`` are null and
    ``analyzedVersion`` names the release, when known (``version``)."""
    message = message_text(site.template)
    code, start, end = excerpt(lines, site.line, site.end_line)
    level = _level(site)
    return {
        "id": record_id(repo, site.path, message, ordinal),
        "repo": repo,
        "slug": derive_slug(message),
        "errorCode": None,
        "errorMessage": message,
        "messagePattern": pattern,
        "errorType": error_type(site),
        "errorClass": site.error_class or _DEFAULT_CLASS[site.kind],
        "httpStatus": None,
        "severity": severity_of(level if level is None or level in LEVELS else "info"),
        "filePath": site.path,
        "lineNumber": site.line,
        "sourceCode": code,
        "sourceCodeStart": start,
        "sourceCodeEnd": end,
        "githubUrl": github_url(repo, sha, site.path, start, end) if sha is not None else None,
        "documentation": "",
        "triggerScenarios": trigger_draft(site),
        "commonSituations": "",
        "solutions": [],
        "exampleFix": "",
        "handlingStrategy": PLACEHOLDER,
        "validationCode": None,
        "typeGuard": "",
        "tryCatchPattern": "",
        "preventionTips": [],
        "tags": [],
        "backgroundTag": PLACEHOLDER,
        "analyzedSha": sha,
        **({"analyzedVersion": version} if sha is None and version else {}),
        "analyzedAt": analyzed_at,
        "contentChangedAt": analyzed_at,
        "schemaVersion": DRAFT_VERSION,
        "scenarios": [],
        "status": DRAFT_STATUS,
    }
