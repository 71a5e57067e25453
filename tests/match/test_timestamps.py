"""The timestamps ``match`` reads from log lines, for a group's first and last time seen."""

from __future__ import annotations

import pytest

from errdex.match.timestamps import find_stamp, strip_stamp
from tests.loghub import require_loghub


@pytest.mark.parametrize(("line", "text", "key"), [
    ("2015-10-18 18:01:47,978 INFO [main] x", "2015-10-18 18:01:47,978", (2015, 10, 18, 18, 1, 47, "978000000")),
    ('{"ts": "2026-11-30T09:00:06.875Z", "msg": "x"}', "2026-11-30T09:00:06.875Z",
     (2026, 11, 30, 9, 0, 6, "875000000")),
    ("2024-05-01T12:00:00+02:00 boom", "2024-05-01T12:00:00+02:00", (2024, 5, 1, 12, 0, 0, "000000000")),
    ("Dec 10 06:55:46 LabSZ sshd[24200]: x", "Dec 10 06:55:46", (0, 12, 10, 6, 55, 46, "000000000")),
    ("Jun  4 15:16:01 combo sshd: x", "Jun  4 15:16:01", (0, 6, 4, 15, 16, 1, "000000000")),
    ("[Sun Dec 04 04:47:44 2005] [notice] x", "Sun Dec 04 04:47:44 2005", (2005, 12, 4, 4, 47, 44, "000000000")),
    ("- 1117838570 2005.06.03 R02-M1 2005-06-03-15.42.50.675872 R02 RAS", "2005-06-03-15.42.50.675872",
     (2005, 6, 3, 15, 42, 50, "675872000")),
    ("081109 203615 148 INFO dfs.DataNode: x", "081109 203615", (2008, 11, 9, 20, 36, 15, "000000000")),
    ("17/06/09 20:10:40 INFO executor: x", "17/06/09 20:10:40", (2017, 6, 9, 20, 10, 40, "000000000")),
])
def test_common_formats_are_read(line: str, text: str, key: tuple[object, ...]) -> None:
    stamp = find_stamp(line)
    assert stamp is not None and (stamp.text, stamp.key) == (text, key)


@pytest.mark.parametrize("line", [
    "CreateOS returned invalid JSON.", "job 123456 789012 failed", "port 2024-13-45 12:00:00",
    "x" * 200 + " 2015-10-18 18:01:47", "retry in 10:00:00",
])
def test_lines_without_a_timestamp_give_none(line: str) -> None:
    assert find_stamp(line) is None


def test_stamps_order_by_time_not_by_text() -> None:
    early, late = find_stamp("2015-10-18 09:01:47,978 a"), find_stamp("2015-10-18 18:01:47,001 b")
    assert early is not None and late is not None and early.key < late.key


def test_strip_stamp_drops_only_a_leading_stamp() -> None:
    assert strip_stamp("Dec 10 06:55:46 LabSZ sshd[1]: x") == "LabSZ sshd[1]: x"
    assert strip_stamp("[Sun Dec 04 04:47:44 2005] [error] x") == "[error] x"
    assert strip_stamp("no stamp here") == "no stamp here"


def test_every_line_of_the_loghub_samples_has_its_stamp_read() -> None:
    folder = require_loghub()
    for sample in sorted(folder.glob("*/*_2k.log")):
        lines = sample.read_text(encoding="utf-8", errors="replace").splitlines()
        missing = [line for line in lines if find_stamp(line) is None]
        assert not missing, f"{sample.name}: {missing[:3]}"
