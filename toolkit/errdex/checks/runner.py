"""Running every enabled check over every record, in one pass."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from errdex.cache import usable_cache
from errdex.checks.anchored import NOTES_KEY, SOURCE_KEY, AnchorSource
from errdex.checks.base import Check, Finding, Problem, RecordContext
from errdex.checks.config import (
    ValidationConfig,
    always_runs,
    enabled_checks,
    find_config,
    load_config,
)
from errdex.checks.parse import NotARecord, SchemaViolation, UnsupportedSchemaVersion
from errdex.checks.registry import for_kind
from errdex.checks.results import RESULTS_FILE, Emit, RecordResults
from errdex.checks.schema_findings import schema_problems
from errdex.checks.shared_work import share
from errdex.patterns.facts import PatternFacts
from errdex.records.envelope import document_shape, unwrap
from errdex.records.jsontext import Locator, without_surrogates
from errdex.records.loader import model_problem, shown_version
from errdex.records.problems import ParseProblem, ProblemKind
from errdex.records.schema import SUPPORTED_VERSIONS
from errdex.records.sources import Document, iter_documents
from errdex.records.vocabulary import is_harvested_only

__all__ = ["ValidationReport", "validate"]


@dataclass
class ValidationReport:
    """Every finding of one validation run, with counts."""

    findings: list[Finding] = field(default_factory=list)
    documents: int = 0
    records: int = 0
    checks: list[str] = field(default_factory=list)
    strict: bool = False
    #: What the run could not check and why (a record skipped by the source checks), one line each.
    notes: list[str] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(1 for finding in self.findings if finding.severity == severity)

    @property
    def errors(self) -> int:
        return self.count("error")

    @property
    def warnings(self) -> int:
        return self.count("warning")

    @property
    def ok(self) -> bool:
        return self.errors == 0


#: Parse findings about one value (NaN, a lone surrogate): the schema's message about that value is noise.
_VALUE_CODES = frozenset(for_kind(kind).code for kind in (ProblemKind.NON_FINITE_NUMBER, ProblemKind.INVALID_UNICODE))


#: Documents read before their checks run: the new patterns among them are analysed on both cores first.
BATCH = 16384

#: The checks that ask for a pattern's facts (:mod:`errdex.checks.pattern`).
_PATTERN_CODES = frozenset({"EDX121", "EDX122", "EDX123", "EDX124", "EDX125"})


def _batches(documents: Iterable[Document]) -> Iterator[list[Document]]:
    iterator = iter(documents)
    while batch := list(itertools.islice(iterator, BATCH)):
        yield batch


class _Run:
    def __init__(self, checks: dict[str, type[Check]], config: ValidationConfig,
                 source: AnchorSource | None = None) -> None:
        if source is None:
            checks = {code: cls for code, cls in checks.items() if not cls.needs_source}
        self.enabled = checks
        self.instances = [cls() for cls in checks.values() if cls.stage == "record"]
        #: The checks across records (they have a ``finalize``): they see every record, known or not.
        self.across = [check for check in self.instances if type(check).finalize is not Check.finalize]
        self.config = config
        self.report = ValidationReport(checks=list(checks), strict=config.strict)
        self.locators: dict[int, Locator] = {}
        folder = usable_cache()
        self.pattern_facts = PatternFacts(folder / "pattern-facts.json" if folder is not None else None)
        #: What the schema and the one-record checks found in records seen before (not with a source: what the
        #: source checks find depends on the code, not the record alone).
        self.results = (RecordResults(folder / RESULTS_FILE if folder is not None else None, list(checks))
                        if source is None else None)
        #: The findings of the record being checked, as given (before any configuration), while it is recorded.
        self._emits: list[Emit] | None = None
        #: Whether findings are only kept (:meth:`_evaluate`), not reported.
        self._silent = False
        #: The results key of each document of the batch (by id: the batch holds them).
        self._keys: dict[int, str] = {}
        self.extra: dict[str, Any] = {"pattern-facts": self.pattern_facts}
        if source is not None:
            self.extra.update({SOURCE_KEY: source, NOTES_KEY: self.report.notes})

    def prepare(self, batch: list[Document]) -> None:
        """Check the batch's records the results cache lacks on every core (:mod:`errdex.checks.shared_work`):
        :meth:`document` then reports each from the cache, in order, as the full checks would."""
        self._keys = {}
        if self.results is None:
            return
        todo = []
        for doc in batch:
            place = self._place(doc)
            if place is None:
                continue
            self._keys[id(doc)] = key = self.results.key(doc.parsed.text, doc.path, doc.fs_path,
                                                          doc.parsed.line_offset)
            if not self.results.has(key):
                todo.append((doc, key))
        share(todo, self._evaluate, self._learnt, self._absorb)

    @staticmethod
    def _place(doc: Document) -> tuple[dict[str, Any], str, dict[str, Any], str] | None:
        """The value, its shape, the record and its pointer, for a document whose findings may be kept."""
        if doc.problems or not doc.parsed.parsed:
            return None
        value = doc.value
        shape = document_shape(value)
        if shape is None:
            return None
        record, prefix = unwrap(value)
        return (value, shape, record, prefix) if isinstance(record, dict) else None

    def _context(self, doc: Document, value: dict[str, Any], shape: str, record: dict[str, Any],
                 prefix: str) -> RecordContext:
        return RecordContext(record=record, prefix=prefix, path=doc.path, fs_path=doc.fs_path,
                             dataset_version=value.get("datasetVersion") if shape == "envelope" else None,
                             locate=doc, extra=self.extra)

    def _evaluate(self, item: tuple[Document, str]) -> None:
        """Keep what the schema and the one-record checks find in a document, reporting nothing (yet); and
        learn what the checks across records and :meth:`finish` will ask of its pattern."""
        doc, key = item
        place = self._place(doc)
        if place is None or self.results is None:
            return
        value, shape, record, prefix = place
        ctx = self._context(doc, value, shape, record, prefix)
        emits: list[Emit] = []
        self._emits, self._silent = emits, True
        try:
            self._schema(doc, value, shape, record, prefix)
            for check in self.instances:
                if check not in self.across:
                    for problem in check.check(ctx):
                        self._record_problem(check, ctx, problem)
        finally:
            self._emits, self._silent = None, False
        self.results.put(key, emits)
        pattern, message = ctx.text("messagePattern"), ctx.text("errorMessage")
        if pattern is not None and _PATTERN_CODES & self.enabled.keys():
            self.pattern_facts.learn(pattern, message)

    def _learnt(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return (self.results.learnt() if self.results is not None else {}), self.pattern_facts.learnt()

    def _absorb(self, learnt: tuple[dict[str, Any], dict[str, Any]]) -> None:
        if self.results is not None:
            self.results.absorb(learnt[0])
        self.pattern_facts.absorb(learnt[1])

    def _finding(self, code: str, doc: Document, pointer: str, message: str, record: dict[str, Any] | None,
                 position: tuple[int, int] | None = None) -> None:
        if self._emits is not None:
            if position is None:
                position = self._locate(doc, pointer)
            self._emits.append((code, pointer, message, position[0], position[1]))
            if self._silent:
                return
        if code not in self.enabled:
            return
        record_id = None
        if record is not None:
            record_id = record.get("id") if isinstance(record.get("id"), str) else None
        if record is not None and not always_runs(code):
            excluded = self.config.per_record_ignores
            for key in (record_id, record.get("slug")):
                if isinstance(key, str) and code in excluded.get(key, ()):
                    return
        cls = self.enabled[code]
        severity = cls.severity
        if cls.draft_severity is not None and record is not None and is_harvested_only(record):
            severity = cls.draft_severity
        if severity == "warning" and self.config.strict and cls.strict_promotes:
            severity = "error"
        if position is None:
            position = self._locate(doc, pointer)
        self.report.findings.append(
            Finding(code, cls.name, severity, message, doc.path, position[0], position[1], pointer, record_id)
        )

    def _locate(self, doc: Document, pointer: str) -> tuple[int, int]:
        locator = self.locators.get(id(doc))
        # The locator holds its document's text, so a text of another object is another document that got the
        # id of one freed since (a run with no check across records keeps no document).
        if locator is None or locator.text is not doc.parsed.text:
            locator = self.locators[id(doc)] = Locator(doc.parsed.text, doc.parsed.line_offset)
        return locator.locate(pointer)

    def document(self, doc: Document) -> RecordContext | None:
        self.report.documents += 1
        for reading in doc.problems:
            self._parse_problem(doc, reading)
        if not doc.parsed.parsed:
            return None
        value = doc.value
        if any(reading.kind is ProblemKind.INVALID_UNICODE for reading in doc.problems):
            value = without_surrogates(value)  # reported; the checks see U+FFFD instead
        shape = document_shape(value)
        if shape is None:
            self._finding(NotARecord.code, doc, "", 'top level is not a record envelope '
                          '{"record": {...}, "datasetVersion": ...} or a record', None)
            return None
        record, prefix = unwrap(value)
        if not isinstance(record, dict):
            self._finding(NotARecord.code, doc, prefix,
                          '"record" is not a JSON object; it must hold the record\'s fields', None)
            return None
        self.report.records += 1
        ctx = self._context(doc, value, shape, record, prefix)
        if self.results is not None and not doc.problems:
            key = self._keys.get(id(doc)) or self.results.key(doc.parsed.text, doc.path, doc.fs_path,
                                                                doc.parsed.line_offset)
            known = self.results.get(key)
            if known is None:
                self._evaluate((doc, key))
                known = self.results.get(key)
            if known is not None:
                for code, pointer, message, line, column in known:
                    self._finding(code, doc, pointer, message, record, (line, column))
                for check in self.across:
                    for problem in check.check(ctx):
                        self._record_problem(check, ctx, problem)
                return ctx
        # No results cache (a run with a source) or a document with parse problems: every check reports now.
        self._schema(doc, value, shape, record, prefix)
        for check in self.instances:
            for problem in check.check(ctx):
                self._record_problem(check, ctx, problem)
        return ctx

    def _schema(self, doc: Document, value: dict[str, Any], shape: str, record: dict[str, Any], prefix: str) -> None:
        """The findings of the schema of the record's version, or that its version is not supported."""
        version = record.get("schemaVersion")
        if version is None and "schemaVersion" not in record:
            version = SUPPORTED_VERSIONS[-1]  # the schema reports it as missing
        if isinstance(version, int) and not isinstance(version, bool) and version in SUPPORTED_VERSIONS:
            found = False
            for violation in schema_problems(value, kind=shape, version=version):
                self._finding(SchemaViolation.code, doc, violation.field, violation.message, record)
                found = True
            if not found and doc.parsed.has_decimals:
                # JSON Schema counts 79.0 as an integer; the models every other command loads with do not.
                model = model_problem(value, envelope=shape == "envelope")
                if model is not None:
                    self._finding(SchemaViolation.code, doc, model[0], model[1], record)
        else:
            supported = ", ".join(map(str, SUPPORTED_VERSIONS))
            self._finding(UnsupportedSchemaVersion.code, doc, f"{prefix}/schemaVersion",
                          f"schemaVersion {shown_version(version)} is not supported (supported: {supported}); "
                          "migrate the record", record)

    def _parse_problem(self, doc: Document, problem: ParseProblem) -> None:
        self._finding(for_kind(problem.kind).code, doc, problem.pointer, problem.message, None,
                      (problem.line, problem.column))

    def _record_problem(self, check: Check, ctx: RecordContext, problem: Problem) -> None:
        self._finding(check.code, ctx.locate, ctx.pointer(problem.field), problem.message, ctx.record)

    def finish(self) -> ValidationReport:
        for check in self.instances:
            for ctx, problem in check.finalize():
                self._record_problem(check, ctx, problem)
        self.pattern_facts.save()
        if self.results is not None:
            self.results.save()
        findings = self.report.findings
        # A semantic check or a parse finding that names a value says more than the schema's generic message.
        semantic = {(f.path, f.line, f.pointer) for f in findings
                    if self.enabled[f.code].stage == "record" or f.code in _VALUE_CODES}
        findings = [f for f in findings
                    if not (f.code == SchemaViolation.code and (f.path, f.line, f.pointer) in semantic)]
        findings.sort(key=lambda f: (f.path, f.line, f.column, f.code, f.pointer))
        self.report.findings = findings
        return self.report


def validate(
    paths: Sequence[str | Path] | None = None,
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    strict: bool | None = None,
    config: ValidationConfig | Path | None = None,
    stdin: BinaryIO | None = None,
    progress: Callable[[Iterable[Document]], Iterable[Document]] | None = None,
    source: AnchorSource | None = None,
) -> ValidationReport:
    """Validate records in files, folders, bundles or stdin (``-``); default: the bundled dataset.

    ``config`` is a loaded configuration, a path to one, or None to look for
    ``errdex.toml`` / ``[tool.errdex]`` from the current folder upwards. ``source``: the code the records
    quote (:mod:`errdex.checks.anchored`), for the checks that compare them; without it they do not run.
    """
    if not isinstance(config, ValidationConfig):
        config = load_config(config if config is not None else find_config(Path.cwd()))
    if strict is not None:
        config.strict = strict
    run = _Run(enabled_checks(config, select, ignore), config, source)
    documents = iter_documents(paths, stdin=stdin, parse=run.results.parse if run.results is not None else None)
    for batch in _batches(progress(documents) if progress else documents):
        run.prepare(batch)
        for doc in batch:
            run.document(doc)
    return run.finish()
