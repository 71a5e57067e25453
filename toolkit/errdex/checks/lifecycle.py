"""Checks of a record's lifecycle: withdrawn and superseded records say why, and what replaces them; drafts are
still to be documented."""

from __future__ import annotations

from collections.abc import Iterable

from errdex.checks.base import Check, Problem, RecordContext, register
from errdex.records.vocabulary import RETIRED_STATUSES, empty_prose, is_active, is_draft, status_of

_RETIRED = RETIRED_STATUSES


@register
class LifecycleReason(Check):
    code, name = "EDX161", "lifecycle-reason"
    rule = "a withdrawn or superseded record has a `statusReason`; an active one has no reason or successor"
    summary = "A withdrawn or superseded record says why (statusReason); an active one has no reason or successor."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        status = status_of(ctx.record)
        reason = ctx.record.get("statusReason")
        if status in _RETIRED and not (isinstance(reason, str) and reason.strip()):
            yield Problem("status", f"a {status} record needs statusReason: say why, in one sentence, for its readers")
        if status not in _RETIRED and reason is not None:
            yield Problem("statusReason", "statusReason is only for withdrawn or superseded records; remove it")
        if status == "superseded" and not ctx.record.get("supersededBy"):
            yield Problem("status", "a superseded record needs supersededBy: the id of the record that replaces it")
        if status != "superseded" and ctx.record.get("supersededBy") is not None:
            yield Problem("supersededBy",
                          "supersededBy is only for superseded records; set status to superseded or remove it")


@register
class SuccessorExists(Check):
    code, name = "EDX162", "successor-exists"
    rule = "`supersededBy` names another record of the dataset, which is itself active"
    summary = "supersededBy names another record of the dataset, which is not itself retired."

    def __init__(self) -> None:
        self.records: dict[str, RecordContext] = {}
        self.pointers: list[tuple[RecordContext, str]] = []

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        record_id = ctx.text("id")
        if record_id is not None:
            self.records.setdefault(record_id, ctx)
        successor = ctx.record.get("supersededBy")
        if isinstance(successor, str):
            self.pointers.append((ctx, successor))
        return ()

    def finalize(self) -> Iterable[tuple[RecordContext, Problem]]:
        for ctx, successor in self.pointers:
            target = self.records.get(successor)
            if successor == ctx.text("id"):
                yield ctx, Problem("supersededBy",
                                   "supersededBy names the record itself; name the record that replaces it")
            elif target is None:
                yield ctx, Problem("supersededBy", f"supersededBy {successor!r} is not a record of this dataset")
            elif not is_active(target.record):
                status = target.record.get("status")
                yield ctx, Problem("supersededBy", f"supersededBy {successor!r} is itself {status}; "
                                                   "point at the active record that replaces both")


@register
class DraftProse(Check):
    code, name = "EDX163", "draft-prose"
    severity = "warning"
    rule = "a record is not a draft: its prose is written and its status active (warning; error with `--strict`)"
    summary = "A draft's prose is still to be written, or reviewed and the record made active (error with --strict)."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        version = ctx.integer("schemaVersion")
        if not is_draft(ctx.record) or version is None or version < 4:  # before 4, a draft is a schema error
            return
        empty = empty_prose(ctx.record)
        if empty:
            yield Problem(empty[0], f"a draft, not documented yet: write {', '.join(empty)}, then set status to "
                                    "active")
        else:
            yield Problem("status", "a draft whose prose is written: review it and set status to active")
