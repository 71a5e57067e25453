"""linear_time(): which patterns a browser's backtracking engine searches in time linear in the line."""

from __future__ import annotations

import json
import re
import time

import pytest

from errdex.patterns import linear_time
from tests.conftest import ROOT

LINEAR = [
    r"CreateOS request failed \(HTTP ([0-9]{3})\) during "
    r"(file transfer|stdin close|process creation|process cleanup)\.",
    r"User (\w+) logged in from ([0-9.]+) port (\d+)", r"Job (\d+) failed: (.+)", r"x\d{1,3}\.",
    r"Sandbox \d+ was not created\.",
]
NOT_PROVEN = [
    r"(.*?) failed", r"a[a-z]+x", r"ab[a-z]*!", r"[a-z]+ failed", r"(.*?)=(.*?)=(.*?);", r"(?:[a-z]{1,30}){1,30}",
    r"x(?:a|a){1,5}y", "(a+)+", r"(?:lookahead(?=x))", "x" * 5000,
]


@pytest.mark.parametrize("source", LINEAR)
def test_linear(source: str) -> None:
    assert linear_time(source)


@pytest.mark.parametrize("source", NOT_PROVEN)
def test_not_proven(source: str) -> None:
    assert not linear_time(source)


def test_every_bundled_pattern_is_linear() -> None:
    for path in (ROOT / "records").glob("*/*/*.json"):
        pattern = json.loads(path.read_text(encoding="utf-8"))["record"]["messagePattern"]
        assert linear_time(pattern), path


def _seconds(pattern: str, text: str) -> float:
    rx = re.compile(pattern)
    start = time.perf_counter()
    rx.search(text)
    return time.perf_counter() - start


@pytest.mark.parametrize(("pattern", "unit"), [
    (r"User (\w+) logged in from ([0-9.]+) port (\d+)", "User " + "u" * 20 + " logged in from 1.2 port "),
    (r"Sandbox (\d+) was not created\.", "Sandbox 12345 was not "),
])
def test_what_is_proven_linear_stays_linear_in_a_backtracker(pattern: str, unit: str) -> None:
    assert linear_time(pattern)
    small = min(_seconds(pattern, unit * 200) for _ in range(3))
    large = min(_seconds(pattern, unit * 800) for _ in range(3))
    assert large < 4 * 3 * max(small, 1e-5), (small, large)  # 4x the text: about 4x the time, not 16x
