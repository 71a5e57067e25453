"""From loaded records to the contexts of the record pages and the quality report (browse: errdex.site.browse)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from errdex.cache import usable_cache
from errdex.patterns import normalize_escapes
from errdex.patterns.facts import FACTS_FILE, PatternFacts
from errdex.records.placement import (
    FOREIGN_STANDING,
    PROGRAM_TAG,
    build_programs,
    origin_pattern,
    placement_pattern,
    standing,
)
from errdex.records.source_paths import github_url, unsafe_path
from errdex.records.text import anchor, first_sentence
from errdex.records.vocabulary import (
    DEFAULT_STATUS,
    LOG_MESSAGE_FIELDS,
    is_draft,
    is_retired,
    status_of,
)
from errdex.site import pages as p
from errdex.site.highlight import highlight, highlight_lines
from errdex.site.paging import file_pages, repo_base, tag_base
from errdex.site.steps import scenario_steps
from errdex.site.urls import page_root, record_json_path, record_path, safe_url

__all__ = ["RecordFacts", "record_page"]


RELATED = 5
#: Code fields shown highlighted with a copy button: (field, title, anchor).
CODE_FIELDS = (
    ("exampleFix", "Example fix", "example-fix"),
    ("tryCatchPattern", "Try/catch pattern", "try-catch"),
    ("typeGuard", "Type guard", "type-guard"),
    ("validationCode", "Validation code", "validation-code"),
)
@dataclass
class RecordFacts:
    """The whole dataset, indexed for pages that point at each other."""

    records: list[dict[str, Any]]
    versions: dict[str, str | None]
    findings: dict[str, list[p.FindingView]]
    proofs: dict[str, dict[str, Any]] | None
    by_file: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    by_class: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    by_tag: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Record id -> whether the in-browser matcher uses its pattern (portable, no bad backtracking).
    matchable: dict[str, bool] = field(default_factory=dict)
    #: Record id -> what the in-browser matcher is given of its pattern (matchable, not retired records only).
    browser_facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Record page contexts made before the findings were known (see errdex.site.build).
    contexts: dict[str, p.RecordPage] = field(default_factory=dict)
    #: Record id -> (release added in, release last changed in), from the release manifests.
    releases: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: The drafts by (repo, file), listed apart from the documented records (which the other ``by_*`` hold).
    drafts_by_file: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    #: (repo, file) -> where the repository's page lists the file (from the site root, with its fragment).
    file_pages: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def of(cls, loaded: Sequence[Any], findings: dict[str, list[p.FindingView]],
           proofs: dict[str, dict[str, Any]] | None) -> RecordFacts:
        ordered = sorted(loaded, key=lambda item: (item.record["repo"], item.record["slug"], item.record["id"]))
        facts = cls([item.record for item in ordered], {item.record["id"]: item.dataset_version for item in ordered},
                     dict(findings), proofs)
        by_file, by_class, by_tag = defaultdict(list), defaultdict(list), defaultdict(list)
        drafts = defaultdict(list)
        for record in facts.records:
            facts.by_id[record["id"]] = record
            if is_draft(record):
                drafts[(record["repo"], record["filePath"])].append(record)
                continue
            by_file[(record["repo"], record["filePath"])].append(record)
            by_class[record["errorClass"]].append(record)
            for tag in record.get("tags", []):
                by_tag[tag].append(record)
        facts.by_file, facts.by_class, facts.by_tag = dict(by_file), dict(by_class), dict(by_tag)
        facts.drafts_by_file = dict(drafts)
        facts.file_pages = file_pages(facts.records)
        return facts

    @staticmethod
    def anchor(text: str) -> str:
        return anchor(text)

    def site_info(self, errdex_version: str) -> p.SiteInfo:
        versions = [v for v in self.versions.values() if v]
        return p.SiteInfo(
            title="errdex",
            dataset_version=max(versions) if versions else "unreleased",
            errdex_version=errdex_version,
            records=len(self.records),
            repositories=len({r["repo"] for r in self.records}),
            scenarios=sum(len(r.get("scenarios", [])) for r in self.records),
        )

    def proof_of(self, record: dict[str, Any]) -> dict[str, Any] | None:
        return None if self.proofs is None else self.proofs.get(record["id"])

    def proven_scenarios(self) -> int:
        if self.proofs is None:
            return 0
        return sum(1 for proof in self.proofs.values() for s in proof.get("scenarios", []) if s.get("passed"))

    def quality_rows(self, root: str) -> tuple[p.QualityRow, ...]:
        rows = []
        for record in self.records:
            views = tuple(self.findings.get(record["id"], []))
            status, passed, total = _proof_summary(record, self.proof_of(record), self.proofs is not None)
            rows.append(p.QualityRow(
                p.Link(record["errorMessage"], root + record_path(record), record["repo"]),
                record["severity"],
                sum(1 for f in views if f.severity == "error"),
                sum(1 for f in views if f.severity == "warning"),
                views, status, passed, total,
            ))
        return tuple(rows)

    def judge_patterns(self) -> None:
        """Which patterns the in-browser matcher may run: portable ones that cannot backtrack badly.

        Read from the pattern analyses validation keeps in the user's cache, so
        a build right after validation analyses nothing again; so are the
        facts :meth:`browser_patterns` gives of each matchable pattern (its
        linearity proof is the costly part), kept there by the site build.
        """
        folder = usable_cache()
        known = PatternFacts(folder / FACTS_FILE if folder is not None else None)
        for record in self.records:
            pattern = normalize_escapes(record["messagePattern"])
            matchable = self.matchable[record["id"]] = known.refusal(pattern, browser=True) is None
            if matchable and not is_retired(record):
                self.browser_facts[record["id"]] = known.browser(pattern)
        known.save()

    def browser_patterns(self) -> dict[str, Any]:
        """What the in-browser matcher needs: each pattern with its ranking keys, meaning and first fix.

        Withdrawn and superseded records are left out (``retired``), as ``errdex match`` skips them by default;
        drafts are matched, as there."""
        entries: list[dict[str, Any]] = []
        refused: list[str] = []
        retired: list[str] = []
        for record in self.records:
            if is_retired(record):
                retired.append(record["id"])
                continue
            if not self.matchable.get(record["id"]):
                refused.append(record["id"])
                continue
            known = self.browser_facts[record["id"]]
            entries.append({
                "id": record["id"], "slug": record["slug"], "message": record["errorMessage"], "repo": record["repo"],
                "errorClass": record["errorClass"], "severity": record["severity"],
                "url": record_path(record),
                "source": known["source"], "flags": known["flags"],
                "literalChars": known["literalChars"], "variableParts": known["variableParts"],
                "placement": placement_pattern(record),  # breaks a tie, as errdex match does
                "origin": origin_pattern(record),
                "programs": build_programs(record), "standing": standing(record),
                # proven to search any line in linear time: the only ones a page without a worker runs
                "linear": known["linear"],
                "meaning": first_sentence(record["documentation"]),
                "fix": record["solutions"][0] if record.get("solutions") else "",
            })
        entries.sort(key=lambda e: (-e["literalChars"], e["variableParts"], e["id"]))
        return {"fields": list(LOG_MESSAGE_FIELDS), "programTag": PROGRAM_TAG, "foreignStanding": FOREIGN_STANDING,
                "patterns": entries, "refused": refused,
                "retired": retired}


def _built_into(record: dict[str, Any]) -> str:
    """The record's ``build`` field in words (programs, platform, role), or "" when it has none."""
    build = record.get("build")
    if not isinstance(build, dict):
        return ""
    programs = [p for p in build.get("programs") or [] if isinstance(p, str)]
    parts = [f"built into {', '.join(programs)}" if programs else "no build file names its program"]
    if isinstance(build.get("platform"), str):
        parts.append(f"for {build['platform']}")
    if build.get("role") in ("test", "contrib"):
        parts.append(f"{build['role']} code")
    return "; ".join(parts)


def _proof_summary(record: dict[str, Any], proof: dict[str, Any] | None, known: bool) -> tuple[str, int, int]:
    total = len(record.get("scenarios", []))
    if not total:
        return "no scenarios", 0, 0
    if not known or proof is None:
        return "not proven", 0, total
    passed = sum(1 for s in proof.get("scenarios", []) if s.get("passed"))
    return ("passed" if proof.get("passed") and passed == total else "failed"), passed, total


def _paragraphs(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in re.split(r"\n\s*\n", text or "") if part.strip())


def _code_blocks(record: dict[str, Any]) -> tuple[p.CodeBlock, ...]:
    blocks = []
    for name, title, slot in CODE_FIELDS:
        text = record.get(name)
        if isinstance(text, str) and text.strip():
            blocks.append(p.CodeBlock(title, slot, Markup(highlight(text)), text))
    return tuple(blocks)


def _source_lines(record: dict[str, Any]) -> tuple[p.SourceLine, ...]:
    code = record.get("sourceCode") or ""
    if not code.strip():
        return ()
    start = int(record.get("sourceCodeStart") or 1)
    throwing = record.get("lineNumber")
    return tuple(p.SourceLine(start + offset, Markup(html), start + offset == throwing)
                 for offset, html in enumerate(highlight_lines(code)))


def _blob_url(record: dict[str, Any]) -> str | None:
    """The file on GitHub at the analysed commit, without a line fragment."""
    repo, sha, path = record.get("repo", ""), record.get("analyzedSha") or "", record.get("filePath", "")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo) or not re.fullmatch(r"[0-9a-f]{7,40}", sha):
        return None
    return safe_url(github_url(repo, sha, path))


def _source_url(record: dict[str, Any]) -> str | None:
    """The throwing lines on GitHub at the analysed commit; None when filePath names no file of the repository
    (its githubUrl would lead to another)."""
    if unsafe_path(record.get("filePath")) is not None:
        return None
    base = _blob_url(record)
    if base is None:
        return safe_url(record.get("githubUrl"))
    start, end = record.get("sourceCodeStart"), record.get("sourceCodeEnd")
    if record.get("sourceCode") and isinstance(start, int) and isinstance(end, int) and end > start:
        return f"{base}#L{start}-L{end}"
    return f"{base}#L{record.get('lineNumber')}"


def _scenarios(record: dict[str, Any], proof: dict[str, Any] | None, known: bool) -> tuple[p.ScenarioView, ...]:
    results = {s.get("id"): s for s in (proof or {}).get("scenarios", [])}
    views = []
    for scenario in record.get("scenarios", []):
        result = results.get(scenario["id"])
        failures: tuple[str, ...]
        if not known or result is None:
            status, failures = "not proven", ()
        else:
            status = "passed" if result.get("passed") else "failed"
            failures = tuple(str(f) for f in result.get("failures", []))
        views.append(p.ScenarioView(scenario["id"], f"scenario-{anchor(scenario['id'])}", scenario["summary"],
                                    tuple(scenario_steps(scenario)), status, failures))
    return tuple(views)


def _related(record: dict[str, Any], facts: RecordFacts, root: str) -> tuple[p.RelatedGroup, ...]:
    """Up to RELATED other records of the same file, class and tag (each group's lists are in site order,
    so only their first RELATED + 1 entries are ever looked at: linear in the dataset, not quadratic)."""
    def first(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in candidates[: RELATED + 1] if r["id"] != record["id"]][:RELATED]

    here = record_path(record).rsplit("/", 1)[0] + "/"

    def links(others: list[dict[str, Any]]) -> tuple[p.Link, ...]:
        return tuple(p.Link(r["errorMessage"], _from(here, record_path(r), root), r["errorClass"]) for r in others)

    tagged: dict[str, dict[str, Any]] = {}
    for tag in record.get("tags", []):
        for other in first(facts.by_tag.get(tag, [])):
            tagged.setdefault(other["id"], other)
    groups = [
        p.RelatedGroup("Same file", links(first(facts.by_file.get((record["repo"], record["filePath"]), [])))),
        p.RelatedGroup("Same error class", links(first(facts.by_class.get(record["errorClass"], [])))),
        p.RelatedGroup("Same tag", links(sorted(tagged.values(), key=lambda r: (r["repo"], r["slug"]))[:RELATED])),
    ]
    return tuple(group for group in groups if group.links)


def _from(here: str, target: str, root: str) -> str:
    """A link from a page in folder ``here`` to ``target`` (both relative to the root), as short as it can be."""
    return target[len(here):] if target.startswith(here) else root + target


def _lifecycle(record: dict[str, Any], facts: RecordFacts, root: str) -> tuple[str, p.Link | None]:
    status = status_of(record) or DEFAULT_STATUS  # an empty or null status reads as the default too
    if status == DEFAULT_STATUS:
        return DEFAULT_STATUS, None
    if is_draft(record):
        return "a draft, harvested from the code and not documented yet", None
    reason = record.get("statusReason") or ""
    successor = facts.by_id.get(record.get("supersededBy") or "")
    link = p.Link(successor["errorMessage"], root + record_path(successor)) if successor else None
    return (f"{status}: {reason}" if reason else status), link


def record_page(record: dict[str, Any], facts: RecordFacts, info: p.SiteInfo) -> p.RecordPage:
    """The context of one record's page."""
    path = record_path(record)
    root = page_root(path)
    proof = facts.proof_of(record)
    lifecycle, successor = _lifecycle(record, facts, root)
    added_in, changed_in = facts.releases.get(record["id"], (None, None))
    pattern = record["messagePattern"]
    return p.RecordPage(
        site=info, path=path, root=root, kind="record",
        title=record["errorMessage"],
        description=f"{record['errorClass']} in {record['repo']}: {record['errorMessage']}"[:300],
        id=record["id"], slug=record["slug"], repo=record["repo"],
        repo_url=safe_url(f"https://github.com/{record['repo']}") if "/" in record["repo"] else None,
        repo_browse_url=root + repo_base(record["repo"]) + "index.html",
        file_browse_url=root + facts.file_pages.get((record["repo"], record.get("filePath", "")),
                                                    repo_base(record["repo"]) + "index.html"),
        message=record["errorMessage"], pattern=pattern,
        browser_matchable=facts.matchable.get(record["id"], False),
        error_class=record["errorClass"], error_type=record.get("errorType", ""), error_code=record.get("errorCode"),
        severity=record["severity"], http_status=record.get("httpStatus"),
        meaning=_paragraphs(record.get("documentation", "")),
        trigger_scenarios=record.get("triggerScenarios", ""),
        common_situations=record.get("commonSituations", ""),
        solutions=tuple(record.get("solutions", [])),
        handling_strategy=record.get("handlingStrategy", ""),
        code_blocks=_code_blocks(record),
        file_path=record.get("filePath", ""), line_number=int(record.get("lineNumber") or 0),
        built_into=_built_into(record),
        analyzed_sha=record.get("analyzedSha") or "",
        analyzed_version=record.get("analyzedVersion") or "",
        source_url=_source_url(record),
        source_lines=_source_lines(record),
        scenarios=_scenarios(record, proof, facts.proofs is not None),
        prevention_tips=tuple(record.get("preventionTips", [])),
        tags=tuple(p.Link(tag, root + tag_base(tag) + "index.html") for tag in record.get("tags", [])),
        related=_related(record, facts, root),
        json_url=root + record_json_path(record),
        findings=tuple(facts.findings.get(record["id"], [])),
        dataset_version=facts.versions.get(record["id"]),
        analyzed_at=record.get("analyzedAt", ""),
        content_changed_at=record.get("contentChangedAt", ""),
        lifecycle=lifecycle, successor=successor,
        added_in=added_in, changed_in=changed_in, draft=is_draft(record),
    )
