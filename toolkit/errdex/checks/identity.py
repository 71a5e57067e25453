"""Checks of a record's identity: its id, its slug and where its file sits."""

from __future__ import annotations

import os
import re
from collections.abc import Hashable, Iterable

from errdex.checks.base import Check, Problem, RecordContext, register
from errdex.records.duplicates import FirstSeen
from errdex.records.paths import page_path
from errdex.records.slug import derive_slug, slug_variants

_ID = re.compile(r"[0-9a-f]{16}")
_NUMBERED = re.compile(r"-(?P<number>[0-9]+)$")


@register
class IdFormat(Check):
    code, name = "EDX101", "id-format"
    rule = "`id` is 16 lowercase hex digits"
    summary = "id is 16 lowercase hexadecimal digits."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        value = ctx.text("id")
        if value is not None and not _ID.fullmatch(value):
            yield Problem("id", f"id {value!r} is not 16 lowercase hex digits; "
                                "use e.g. the first 16 hex digits of a random UUID")


class _Unique(Check):
    """Reports every record whose key was already used by an earlier record."""

    field_name: str = ""

    def __init__(self) -> None:
        self.seen: FirstSeen[Hashable, RecordContext] = FirstSeen()

    def key(self, ctx: RecordContext) -> Hashable | None:
        return ctx.text(self.field_name)

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        key = self.key(ctx)
        if key is not None:
            self.seen.add(key, ctx)
        return ()

    def describe(self, ctx: RecordContext, first: RecordContext) -> str:
        raise NotImplementedError

    def finalize(self) -> Iterable[tuple[RecordContext, Problem]]:
        for ctx, first in self.seen.clashes:
            yield ctx, Problem(self.field_name, self.describe(ctx, first))


@register
class IdUnique(_Unique):
    code, name = "EDX102", "id-unique"
    rule = "no two records share an id"
    summary = "No two records share an id."
    field_name = "id"

    def describe(self, ctx: RecordContext, first: RecordContext) -> str:
        return f"id {ctx.text('id')!r} is already used by {first.path}; give this record a new id"


@register
class SlugDerived(Check):
    code, name = "EDX111", "slug-derived"
    rule = "`slug` follows from `errorMessage`"
    summary = "slug is derived from errorMessage (lowercase, runs of other characters as '-', at most 60 characters)."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        slug, message = ctx.text("slug"), ctx.text("errorMessage")
        if slug is None or message is None:
            return
        expected = derive_slug(message)
        if slug == expected:
            return
        numbered = _NUMBERED.search(slug)
        if numbered and int(numbered["number"]) >= 2 and slug == slug_variants(message, int(numbered["number"])):
            return  # a second record whose message shares the first 60 characters
        yield Problem("slug", f"slug {slug!r} does not follow from errorMessage; expected {expected!r}")


@register
class SlugUnique(_Unique):
    code, name = "EDX112", "slug-unique"
    rule = "no two records of a repository share a slug"
    summary = "No two records of one repository share a slug."
    field_name = "slug"

    def key(self, ctx: RecordContext) -> Hashable | None:
        slug, repo = ctx.text("slug"), ctx.text("repo")
        return None if slug is None or repo is None else (repo, slug)

    def describe(self, ctx: RecordContext, first: RecordContext) -> str:
        return (
            f"slug {ctx.text('slug')!r} is already used in {ctx.text('repo')} by {first.path}; "
            "add a numeric suffix such as '-2'"
        )


@register
class SlugFileName(Check):
    code, name = "EDX113", "slug-file-name"
    rule = "the file is named `<slug>.json`"
    summary = "The record's file is named <slug>.json."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        slug = ctx.text("slug")
        if ctx.fs_path is None or slug is None or ctx.fs_path.suffix != ".json":
            return
        if ctx.fs_path.name != f"{slug}.json":
            yield Problem("slug", f"file is named {ctx.fs_path.name!r} but the slug is {slug!r}; "
                                  f"rename the file to {slug}.json")


@register
class RecordPath(Check):
    code, name = "EDX114", "record-path"
    rule = "the file sits in `records/<owner>/<repo>/`"
    summary = "The record's file sits in records/<owner>/<repo>/ of its repository."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        repo = ctx.text("repo")
        if ctx.fs_path is None or repo is None or ctx.fs_path.suffix != ".json" or repo.count("/") != 1:
            return
        owner, name = repo.split("/")
        parent = ctx.fs_path.parent
        if (parent.parent.name, parent.name) != (owner, name):
            where = os.path.dirname(ctx.path) or "the current folder"
            yield Problem(
                "repo",
                f"a record of {repo} belongs in {repo}/ of a records folder (records/{repo}/), "
                f"but this file is in {where}; move it there",
            )


@register
class PagePathUnique(Check):
    code, name = "EDX115", "page-path-unique"
    rule = "no two records share a site page (`Evil/Repo` and `evil/repo` are one repository, as on GitHub)"
    summary = "No two records share a page of the site (repositories compared without case, as GitHub does)."

    def __init__(self) -> None:
        self.seen: FirstSeen[str, RecordContext] = FirstSeen()
        self.clashes: list[tuple[RecordContext, RecordContext, str]] = []

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        slug, repo = ctx.text("slug"), ctx.text("repo")
        if slug is None or repo is None:
            return ()
        page = page_path(repo, slug)
        first = self.seen.add(page, ctx)
        if first is not None and (first.text("repo"), first.text("slug")) != (repo, slug):  # the same pair: EDX112
            self.clashes.append((ctx, first, page))
        return ()

    def finalize(self) -> Iterable[tuple[RecordContext, Problem]]:
        for ctx, first, page in self.clashes:
            yield ctx, Problem("repo", (
                f"repo {ctx.text('repo')!r} and slug {ctx.text('slug')!r} give the page {page}, which "
                f"{first.text('repo')!r} / {first.text('slug')!r} of {first.path} already has (GitHub does not tell "
                "repositories apart by case); spell the repository as that record does, "
                "or give this record another slug"))
