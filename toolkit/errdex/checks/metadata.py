"""Checks of a record's metadata: timestamps, tags, lists and the HTTP status."""

from __future__ import annotations

import re
from collections.abc import Iterable

from errdex.checks.base import Check, Problem, RecordContext, iter_strings, register
from errdex.records.timestamps import parse_rfc3339

_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_TIMESTAMPS = ("analyzedAt", "contentChangedAt")
_LISTS = ("solutions", "preventionTips", "tags")


@register
class TimestampFormat(Check):
    code, name = "EDX141", "timestamp-format"
    rule = "timestamps are RFC 3339"
    summary = "analyzedAt, contentChangedAt and datasetVersion are RFC 3339 timestamps."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        for name in _TIMESTAMPS:
            value = ctx.text(name)
            if value is not None and parse_rfc3339(value) is None:
                yield Problem(name, f"{name} {value!r} is not an RFC 3339 timestamp; "
                                    "write e.g. 2026-09-18T08:03:59.046Z")
        if isinstance(ctx.dataset_version, str) and parse_rfc3339(ctx.dataset_version) is None:
            yield Problem(
                "../datasetVersion",
                f"datasetVersion {ctx.dataset_version!r} is not an RFC 3339 timestamp; "
                "write e.g. 2026-09-22T11:17:16.035Z",
            )


@register
class TimestampOrder(Check):
    code, name = "EDX142", "timestamp-order"
    rule = "`analyzedAt <= contentChangedAt <= datasetVersion`"
    summary = "analyzedAt <= contentChangedAt <= datasetVersion."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        analyzed = parse_rfc3339(ctx.text("analyzedAt") or "")
        changed = parse_rfc3339(ctx.text("contentChangedAt") or "")
        released = parse_rfc3339(ctx.dataset_version) if isinstance(ctx.dataset_version, str) else None
        if analyzed and changed and changed < analyzed:
            yield Problem("contentChangedAt",
                          "contentChangedAt is before analyzedAt; content cannot change before it was analysed")
        if changed and released and released < changed:
            yield Problem("contentChangedAt",
                          "contentChangedAt is after datasetVersion; a release cannot hold a later change")


@register
class TagFormat(Check):
    code, name = "EDX151", "tag-format"
    rule = "tags are lowercase kebab-case"
    summary = "Tags are lowercase kebab-case."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        for index, tag in iter_strings(ctx.items("tags") or ()):
            if not _KEBAB.fullmatch(tag):
                suggestion = re.sub(r"[^a-z0-9]+", "-", tag.lower()).strip("-") or "a-tag"
                yield Problem(f"tags/{index}", f"tag {tag!r} is not lowercase kebab-case; write {suggestion!r}")


@register
class UniqueItems(Check):
    code, name = "EDX152", "unique-items"
    rule = "`solutions`, `preventionTips`, `tags` hold no item twice"
    summary = "solutions, preventionTips and tags hold no item twice."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        for name in _LISTS:
            seen: set[str] = set()
            for index, item in iter_strings(ctx.items(name) or ()):
                key = " ".join(item.split()).casefold()
                if key in seen:
                    yield Problem(f"{name}/{index}", f"{name}[{index}] repeats an earlier item; remove it")
                seen.add(key)


@register
class BlankItems(Check):
    code, name = "EDX153", "blank-items"
    rule = "no blank list items"
    summary = "List items are not blank."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        for name in _LISTS:
            for index, item in iter_strings(ctx.items(name) or ()):
                if not item.strip():
                    yield Problem(f"{name}/{index}", f"{name}[{index}] is blank; remove it or write the item")


@register
class HttpStatus(Check):
    code, name = "EDX154", "http-status"
    rule = "`httpStatus` is null or 100-599"
    summary = "httpStatus is null or an HTTP status code from 100 to 599."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        status = ctx.integer("httpStatus")
        if status is not None and not 100 <= status <= 599:
            yield Problem("httpStatus", f"httpStatus {status} is not an HTTP status; use 100-599 or null")
