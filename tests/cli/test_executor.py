"""`errdex executor serve --plan`: a plan file is read as strictly as a record, and a bad one is a clear refusal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

BAD_PLANS = {
    "deep": ("[" * 100_000 + "]" * 100_000, ":1:65: arrays and objects nest more than 64 levels deep"),
    "nan": ('{"faults": NaN}', ":1:12: NaN is not a JSON number"),
    "duplicate": ('{"faults": [], "faults": []}', ":1:16: key 'faults' appears more than once"),
    "not-utf8": (b"\xff{}", ":1:1: byte 0xff is not valid UTF-8"),
    "faults-not-a-list": ('{"faults": 5}', ": 'faults' must be a list of fault rules"),
    "programs-not-a-list": ('{"programs": "x"}', ": 'programs' must be a list of programs"),
    "sandboxes-not-an-object": ('{"sandboxes": [1]}', ": 'sandboxes' must be an object of sandbox ids"),
    "sandbox-not-a-status": ('{"sandboxes": {"a": 5}}', ": sandbox 'a' is a status or an object"),
}


@pytest.mark.parametrize("name", sorted(BAD_PLANS))
def test_a_bad_plan_is_refused_in_one_line(tmp_path: Path, cli, name: str) -> None:
    text, expected = BAD_PLANS[name]
    plan = tmp_path / "plan.json"
    plan.write_bytes(text if isinstance(text, bytes) else text.encode())
    result = cli("executor", "serve", "--plan", str(plan))
    assert result.exit_code == 2, result.stderr  # a deep plan or NaN faults was an internal error (exit 70)
    assert result.stderr.count("\n") == 1 and f"{plan}{expected}" in result.stderr


def test_a_plan_that_is_a_fifo_a_device_or_missing_is_refused_without_waiting(tmp_path: Path, cli) -> None:
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    waited = cli("executor", "serve", "--plan", str(fifo))  # blocked forever in open, with no writer
    assert waited.exit_code == 2 and f"{fifo}: not a regular file" in waited.stderr
    endless = cli("executor", "serve", "--plan", "/dev/zero")  # read into memory until the machine ran out
    assert endless.exit_code == 2 and "/dev/zero: not a regular file" in endless.stderr
    missing = cli("executor", "serve", "--plan", str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and missing.stderr.endswith("nope.json: cannot read: no such file or folder\n")
    assert "Errno" not in missing.stderr
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (2 << 20) + b"{}")
    refused = cli("executor", "serve", "--plan", str(big))
    assert refused.exit_code == 2 and "a plan holds at most 1,048,576 bytes" in refused.stderr
