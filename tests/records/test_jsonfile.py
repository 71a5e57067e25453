"""A JSON file handed to a command: strict, bounded, never waiting on a FIFO, one clear error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from errdex.errors import InputError
from errdex.records.jsonfile import read_json_file


@pytest.mark.parametrize(("text", "says"), [
    ("[" * 100_000, "1:65: arrays and objects nest more than 64 levels"),
    ('{"ms": 1' + "0" * 5000 + "}", "1:8: integer 1000000000"),
    ('{"ms": NaN}', "1:8: NaN is not a JSON number"),
    ('{"ms": 1e999}', "1:8: 1e999 is too large"),
    ('{"a": 1, "a": 2}', "1:10: key 'a' appears more than once"),
    ("{not json", "1:2: not valid JSON"),
    ("", "empty"),
])
def test_what_records_refuse_a_file_refuses_too(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "plan.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_json_file(path, hint="a plan")
    message = str(caught.value)
    assert message.startswith(f"{path}:") and says in message and message.endswith("(a plan)") and "\n" not in message


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_json_file(fifo)


def test_a_missing_file_and_a_good_one(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.json: cannot read"):
        read_json_file(tmp_path / "missing.json")
    good = tmp_path / "good.json"
    good.write_text('{"faults": [{"on": "exec", "action": "stall", "ms": 1.5}]}', encoding="utf-8")
    assert read_json_file(good) == {"faults": [{"on": "exec", "action": "stall", "ms": 1.5}]}
