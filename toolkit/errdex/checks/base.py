"""The pieces every check is made of: findings, problems, record contexts, and ``register``.

``register`` only records a class; :mod:`errdex.checks.registry` imports every
check module and is where checks are looked up (this module imports none of them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from errdex.records.problems import ProblemKind

__all__ = [
    "Check",
    "Finding",
    "Level",
    "Problem",
    "RecordContext",
    "iter_strings",
    "register",
    "registered",
]

Level = Literal["error", "warning", "info"]
LEVELS: tuple[str, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One problem found in one place: what it is, where, and how to fix it."""

    code: str
    name: str
    severity: Level
    message: str
    path: str
    line: int
    column: int
    pointer: str
    record_id: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "recordId": self.record_id,
            "message": self.message,
        }


@dataclass(frozen=True)
class Problem:
    """What a check reports: the field (relative to the record) and the message."""

    field: str
    message: str


@dataclass
class RecordContext:
    """One record as a check sees it: the raw JSON object and where it came from."""

    record: dict[str, Any]
    prefix: str
    path: str
    fs_path: Path | None
    dataset_version: Any = None
    locate: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def record_id(self) -> str | None:
        value = self.record.get("id")
        return value if isinstance(value, str) else None

    def pointer(self, field_path: str) -> str:
        """The JSON pointer of a field of the record; ``../name`` names a field of the envelope."""
        if field_path.startswith("../"):
            return f"{self.prefix.rsplit('/', 1)[0]}/{field_path[3:]}"
        return f"{self.prefix}/{field_path}" if field_path else self.prefix

    def text(self, name: str) -> str | None:
        value = self.record.get(name)
        return value if isinstance(value, str) else None

    def integer(self, name: str) -> int | None:
        value = self.record.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def items(self, name: str) -> list[Any] | None:
        value = self.record.get(name)
        return value if isinstance(value, list) else None


class Check:
    """A validation check: a stable code, a kebab-case name, a severity, a summary and its rule.

    ``check`` looks at one record; ``finalize`` runs once after every record
    was seen, for checks across records. A check instance lives for one run.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Level] = "error"
    #: One sentence, as ``validate --list-checks`` prints it.
    summary: ClassVar[str]
    #: What the check asserts, in Markdown, as the README's checks table shows it.
    rule: ClassVar[str]
    #: "parse" checks are reported while reading and loading, "record" checks by ``check``.
    stage: ClassVar[str] = "record"
    #: The kind of reading problem a parse check reports (None: the check finds its problems itself).
    kind: ClassVar[ProblemKind | None] = None
    #: Whether ``--strict`` makes this check's warnings errors; False for a warning the bundled dataset is known
    #: to give until data it waits for arrives (it stays a warning, and validate still passes).
    strict_promotes: ClassVar[bool] = True
    #: The severity in a draft (status "draft"), when it differs: what harvest could not settle from the code is
    #: for the contributor to review, not an error yet (``--strict`` still promotes it, as it refuses drafts).
    draft_severity: ClassVar[Level | None] = None
    #: Whether the check compares records with their code: it runs only when validate is given a source
    #: (``--source``, :mod:`errdex.checks.anchored`), and is not part of a run without one.
    needs_source: ClassVar[bool] = False

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        return ()

    def finalize(self) -> Iterable[tuple[RecordContext, Problem]]:
        return ()


_BY_CODE: dict[str, type[Check]] = {}
_BY_NAME: dict[str, type[Check]] = {}


C = TypeVar("C", bound="type[Check]")


def register(cls: C) -> C:
    """Class decorator: add a check to the registry (codes and names must be unique)."""
    other = _BY_CODE.get(cls.code) or _BY_NAME.get(cls.name)
    if other is not None:
        raise RuntimeError(f"check {cls.code} {cls.name} clashes with {other.code} {other.name}")
    _BY_CODE[cls.code] = _BY_NAME[cls.name] = cls
    return cls


def registered() -> dict[str, type[Check]]:
    """The checks registered so far, by code in code order (:func:`errdex.checks.registry.registry` has all)."""
    return dict(sorted(_BY_CODE.items()))


def iter_strings(values: Iterable[Any]) -> Iterator[tuple[int, str]]:
    """The strings among ``values``, with their index."""
    for index, value in enumerate(values):
        if isinstance(value, str):
            yield index, value
