"""What ``errdex explain`` looks up: the record for an id, a slug, a unique prefix of one, or a log line; the
near misses it suggests when nothing fits; and a record's proof status read from a real proof run.

Proofs are data here: this layer does not run them (``errdex.prove`` sits above it); the caller passes the
report of a run, as ``errdex prove --format json`` writes it, or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from errdex.errors import DataError, RecordNotFound
from errdex.match.engine import Match
from errdex.match.knowledge import KnowledgeBase

__all__ = ["Found", "ProofStatus", "find", "proof_status", "suggestions"]

#: The shortest text taken as a prefix of an id or slug (shorter ones would resolve by luck).
MIN_PREFIX = 3
#: Near misses named in a "did you mean" message.
MAX_SUGGESTIONS = 5
#: How alike (difflib's ratio) a suggestion must be, and how close to the best one.
CUTOFF = 0.75
NEAR_BEST = 0.05
#: Characters of what was asked that an error message repeats.
_SHOWN = 200


@dataclass(frozen=True)
class Found:
    """The record ``explain`` shows, and how it was found.

    ``how``: ``"key"`` (an id, slug or OWNER/REPO/SLUG), ``"prefix"`` (a unique prefix of one) or ``"line"``
    (the best record for a log line; ``match`` and ``line`` are then set, with the captured values).
    """

    record: dict[str, Any]
    how: str
    match: Match | None = None
    line: str | None = None

    @property
    def title(self) -> str:
        """The message as the line wrote it (the holes filled with its values) when found from a line; the
        record's own message otherwise. Never another example's message for a line."""
        if self.match is not None and self.line is not None:
            start, end = self.match.span
            if 0 <= start < end <= len(self.line):
                return self.line[start:end].strip() or self.line.strip()
            return self.line.strip()
        message = self.record.get("errorMessage")
        return message if isinstance(message, str) else str(self.record.get("id", ""))


def _keys(kb: KnowledgeBase) -> dict[str, int]:
    """Every id, slug and OWNER/REPO/SLUG of the knowledge base, with the store position it names."""
    keys: dict[str, int] = {}
    for i, view in enumerate(kb.store.views):
        keys[view["id"]] = i
        keys.setdefault(view["slug"], i)
        keys[f"{view['repo']}/{view['slug']}"] = i
    return keys


def _prefixed(kb: KnowledgeBase, what: str) -> dict[int, str]:
    """The records one of whose keys starts with ``what``: position -> the key that does."""
    found: dict[int, str] = {}
    for key, position in _keys(kb).items():
        if key.startswith(what):
            found.setdefault(position, key)
    return found


def _as_key(what: str) -> bool:
    """Whether ``what`` can be an id, a slug or a prefix of one (a log line has blanks)."""
    return len(what) >= MIN_PREFIX and not any(c.isspace() for c in what)


def suggestions(kb: KnowledgeBase, what: str, *, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Ids and slugs close to ``what``: those it is a prefix of first, then difflib's closest; none for a log
    line (text with blanks)."""
    what = what.strip()
    if not what or any(c.isspace() for c in what):
        return []
    views = kb.store.views
    prefixed = sorted(views[i]["slug"] for i in _prefixed(kb, what))
    if prefixed:
        return prefixed[:limit]
    scored = sorted((-_closeness(what.lower(), name), name) for name in
                    dict.fromkeys([v["slug"] for v in views] + [v["id"] for v in views]))
    best = -scored[0][0] if scored else 0.0
    return [name for score, name in scored[:limit] if -score >= max(CUTOFF, best - NEAR_BEST)]


def _closeness(what: str, name: str) -> float:
    """How like ``name`` ``what`` is (difflib's ratio, 0 to 1), against the whole name or its start as long as
    ``what`` (a mistyped prefix of a long slug is close to it)."""
    import difflib  # only for a name that found nothing: explain ID and explain LINE never need it (start-up time)

    whole = difflib.SequenceMatcher(None, what, name)
    if whole.real_quick_ratio() < CUTOFF and len(name) <= len(what):
        return 0.0
    start = difflib.SequenceMatcher(None, what, name[: len(what)])
    return max(whole.ratio(), start.ratio() - 0.01)  # a whole-name likeness wins a tie


def _not_found(kb: KnowledgeBase, what: str) -> RecordNotFound:
    """The error for ``what`` naming no record: with the records it is a prefix of, or the near misses."""
    shown = what if len(what) <= _SHOWN else what[:_SHOWN] + "..."
    message = f"no record with id or slug {shown!r}, and no record matches it as a log line"
    near = suggestions(kb, what)
    prefixed = len(_prefixed(kb, what.strip())) if near else 0
    if prefixed > 1:
        more = ", ..." if prefixed > len(near) else ""
        message += f"; {prefixed} records start with it: {', '.join(near)}{more}"
    elif near:
        message += f"; did you mean {', '.join(near)}?"
    return RecordNotFound(message)


def _matched_text(kb: KnowledgeBase, line: str, best: Match) -> str:
    """The text the match's span is in: the line, or the JSON message field of it that matched."""
    for text in kb.texts(line):
        if any(m.view["id"] == best.view["id"] and m.span == best.span for m in kb.matcher.match(text)):
            return text
    return line


def find(kb: KnowledgeBase, what: str) -> Found:
    """The record ``what`` names: an id, slug or OWNER/REPO/SLUG; else a prefix of one that only one record
    has; else the best record for ``what`` as a log line. :class:`RecordNotFound` names the near misses;
    :class:`DataError` when a slug is held by records of several repositories."""
    try:
        return Found(kb.get(what), "key")
    except RecordNotFound:
        pass
    if _as_key(what):
        prefixed = _prefixed(kb, what)
        if len(prefixed) == 1:
            return Found(kb.store.full(next(iter(prefixed))), "prefix")
    matches = kb.match(what)
    if matches:
        best = matches[0]
        return Found(best.record, "line", best, _matched_text(kb, what, best))
    raise _not_found(kb, what)


@dataclass(frozen=True)
class ProofStatus:
    """A record's proof in one real run (``proof``: its entry of the run's report), or why there is none.

    ``source``: where the run's result comes from (``"this run"`` for ``--prove``, a report file's name), or
    None when no proof ran.
    """

    proof: dict[str, Any] | None
    source: str | None

    def scenario(self, scenario_id: str) -> dict[str, Any] | None:
        """The scenario's result in the run, or None when it did not run."""
        for scenario in (self.proof or {}).get("scenarios") or []:
            if isinstance(scenario, dict) and scenario.get("id") == scenario_id:
                return scenario
        return None

    def line(self, record: dict[str, Any], how_to_prove: str) -> str:
        """One line: proved, failed, or not proved in this run (and how to prove it)."""
        scenarios = record.get("scenarios") or []
        if self.proof is None:
            if not scenarios:
                return "not proved: the record has no scenario to run"
            where = f" ({self.source} holds no proof of it)" if self.source else ""
            return f"not proved in this run{where}; run: {how_to_prove}"
        ran = [s for s in self.proof.get("scenarios") or [] if isinstance(s, dict)]
        passed = sum(1 for s in ran if s.get("passed") is True)
        if self.proof.get("passed") is True:
            return f"proved in {self.source}: {passed} of {len(ran)} scenario(s) passed"
        problem = self.proof.get("problem")
        failed = ", ".join(str(s.get("id")) for s in ran if s.get("passed") is not True)
        detail = problem if isinstance(problem, str) and problem else f"failed: {failed}"
        return f"NOT proved in {self.source}: {passed} of {len(ran)} scenario(s) passed; {detail}"


def proof_status(report: Any, record_id: str, *, source: str | None) -> ProofStatus:
    """The record's proof in a report of ``errdex prove --format json`` (``{"records": [...]}``); None when no
    proof ran. A report that is not one is a :class:`DataError` naming ``source``."""
    if report is None:
        return ProofStatus(None, None)
    records = report.get("records") if isinstance(report, dict) else None
    if not isinstance(records, list):
        raise DataError(f"{source}: not a proof report of 'errdex prove --format json' (no \"records\" list)")
    for entry in records:
        if isinstance(entry, dict) and entry.get("id") == record_id:
            return ProofStatus(entry, source)
    return ProofStatus(None, source)
