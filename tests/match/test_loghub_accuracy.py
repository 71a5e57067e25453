"""On the Loghub samples, the top-ranked record of each line is its ground-truth template (>= 99.5%)."""

from __future__ import annotations

import pytest

from errdex import KnowledgeBase
from tests.loghub import load_system, require_loghub, systems

TARGET = 0.995


def _accuracy(name: str) -> tuple[int, int]:
    system = load_system(require_loghub(), name)
    kb = KnowledgeBase(system.records)
    right = 0
    for line, truth in zip(system.lines, system.truth, strict=True):
        matches = kb.match(line)
        right += bool(matches) and matches[0].record["id"] == truth
    return right, len(system.lines)


def _names() -> list[str]:
    from tests.loghub import loghub_dir

    folder = loghub_dir()
    return systems(folder) if folder else ["(missing)"]


@pytest.mark.parametrize("name", _names())
def test_top_ranked_record_is_the_ground_truth_template(name: str) -> None:
    right, total = _accuracy(name)
    assert total == 2000
    assert right / total >= TARGET, f"{name}: {right}/{total} lines ranked their template first"
