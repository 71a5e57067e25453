"""The matcher shipped as bytes: loaded once per process, and rebuilt with a warning when it cannot be loaded."""

from __future__ import annotations

import marshal
import warnings

import pytest

from errdex.match import KnowledgeBase
from errdex.spark import shipped as shipping
from errdex.spark.shipped import RebuiltWarning, knowledge, ship

RECORDS = [
    {"id": "r1", "slug": "disk-full", "repo": "o/r", "errorClass": "E1", "severity": "error",
     "messagePattern": "disk ([a-z]+) is full"},
    {"id": "r2", "slug": "timeout", "repo": "o/r", "errorClass": "E2", "severity": "warning",
     "messagePattern": "timed out after ([0-9]+) ms", "status": "withdrawn"},
    {"id": "r3", "slug": "any-error", "repo": "o/r", "errorClass": "E3", "severity": "info",
     "messagePattern": "error"},
]
LINES = ["error: disk sda is full", "timed out after 30 ms", "nothing"]


def _as_dicts(kb: KnowledgeBase) -> list[list[dict[str, object]]]:
    return [[m.as_dict() for m in kb.match(line)] for line in LINES]


def _fresh(data: bytes) -> KnowledgeBase:
    shipping._loaded.clear()
    return knowledge(data)


def test_the_shipped_matcher_matches_as_the_knowledge_base_does_and_is_built_once() -> None:
    sent = ship(RECORDS)
    shipping._loaded.clear()
    first = knowledge(sent)
    assert knowledge(sent.data, sent.key) is first
    assert shipping.builds[sent.key] >= 1
    assert _as_dicts(first) == _as_dicts(KnowledgeBase(RECORDS))
    assert not first.match(LINES[1])  # withdrawn: left out, as the CLI leaves it out
    assert _as_dicts(knowledge(ship(RECORDS, include_retired=True))) == _as_dicts(
        KnowledgeBase(RECORDS, include_retired=True))


def test_a_plan_hyperscan_cannot_load_is_rebuilt_with_a_warning() -> None:
    payload = marshal.loads(ship(RECORDS).data)
    plan = marshal.loads(payload["plan"])
    plan["literal_db"] = b"not a hyperscan database"
    payload["plan"] = marshal.dumps(plan)
    with pytest.warns(RebuiltWarning, match="hyperscan cannot load its database"):
        kb = _fresh(marshal.dumps(payload))
    assert _as_dicts(kb) == _as_dicts(KnowledgeBase(RECORDS))


def test_a_plan_from_another_python_or_hyperscan_is_rebuilt_with_a_warning() -> None:
    payload = marshal.loads(ship(RECORDS).data)
    payload["built"] = ["2.7.18", "0.1", "0.0.1"]
    with pytest.warns(RebuiltWarning, match="compiled by Python/hyperscan/errdex"):
        kb = _fresh(marshal.dumps(payload))
    assert _as_dicts(kb) == _as_dicts(KnowledgeBase(RECORDS))


def test_a_good_plan_loads_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _fresh(ship(RECORDS).data)


def test_bytes_of_something_else_are_refused() -> None:
    with pytest.raises(ValueError, match="format differs"):
        _fresh(marshal.dumps({"format": 0}))
