"""What ``errdex explain`` looks up and how it lays a record out: the line's own message with its values, the
fix on the first screen, --short, did-you-mean, and proof status only from a real run."""

from __future__ import annotations

import math
from typing import Any

import pytest

from errdex.errors import DataError, RecordNotFound
from errdex.match.explain_page import SHORT_LINES, WIDTH, explain_page
from errdex.match.explaining import Found, ProofStatus, find, proof_status, suggestions
from errdex.match.knowledge import KnowledgeBase, load

#: Real lines: one of Loghub's OpenSSH sample (the bundled sshd family explains it) and one a CreateOS worker logs.
SSHD_LINE = ("Dec 10 06:55:48 LabSZ sshd[24200]: Failed password for invalid user webmaster from 173.234.31.186 "
             "port 38926 ssh2")
CREATEOS_LINE = "ERROR CreateOS request failed (HTTP 400) during process creation."
#: Rows of one screen at 80 columns.
SCREEN = 24


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load(include_retired=True)


def _rows(lines: list[str]) -> int:
    """Terminal rows the lines take at :data:`WIDTH` columns."""
    return sum(max(1, math.ceil(len(line) / WIDTH)) for line in lines)


def test_a_line_is_titled_with_its_own_message_and_values(kb: KnowledgeBase) -> None:
    found = find(kb, CREATEOS_LINE)
    assert found.how == "line" and found.record["slug"] == "createos-request-failed-http-404-during-sandbox-lifecycle"
    page = explain_page(found)
    assert page.splitlines()[0] == "CreateOS request failed (HTTP 400) during process creation."
    assert "HTTP 404" not in page.split("\n\n")[0]  # never the example's message or status in the head
    assert '$1 = "400"' in page and '$2 = "process creation"' in page
    sshd = explain_page(find(kb, SSHD_LINE))
    assert sshd.splitlines()[0] == ("Failed password for invalid user webmaster from 173.234.31.186 port 38926 "
                                    "ssh2")
    assert sshd.splitlines()[1].startswith("warning · do_log2")


def test_a_json_line_is_titled_with_its_message_field(kb: KnowledgeBase) -> None:
    # the raw line does not hold the message (an escaped blank): only its decoded msg field matches
    line = '{"level": "error", "msg": "CreateOS request failed (HTTP 503) during file\\u0020transfer.", "n": 1}'
    found = find(kb, line)
    assert found.line != line and found.title == "CreateOS request failed (HTTP 503) during file transfer."
    assert explain_page(found).splitlines()[0] == found.title


def test_captured_values_fill_the_fix_placeholders() -> None:
    record = {"id": "00000000000000f1", "slug": "disk-full", "repo": "acme/api", "errorClass": "DiskError",
              "severity": "error", "errorMessage": "Disk /var is full (100%)",
              "messagePattern": r"Disk ([^ ]+) is full \((\d+)%\)", "documentation": "A disk filled up. More.",
              "solutions": ["Free space on $1 (it is at {2}%); $3 names no group."],
              "exampleFix": "du -sh $1/*"}
    found = find(KnowledgeBase([record]), "kernel: Disk /data is full (97%)")
    page = explain_page(found)
    assert page.splitlines()[0] == "Disk /data is full (97%)"
    assert "1. Free space on /data (it is at 97%); $3 names no group." in page
    assert "        du -sh /data/*" in page


@pytest.mark.parametrize("by", ["id", "line"])
def test_the_fix_is_on_the_first_screen_for_every_record(kb: KnowledgeBase, by: str) -> None:
    for view in kb.store.views:
        record = kb.store.full(kb.position(view["id"]))
        solutions = record.get("solutions") or []
        if not solutions:
            continue  # a draft: nothing to fix yet
        found = find(kb, view["id"]) if by == "id" else Found(record, "key")
        if by == "line":
            matches = kb.match(record["errorMessage"])
            found = Found(matches[0].record, "line", matches[0], record["errorMessage"])
        lines = explain_page(found).splitlines()
        fix = lines.index("How to fix it")
        assert lines[fix + 1].startswith("    1. "), view["id"]
        assert _rows(lines[: fix + 2]) <= SCREEN, (view["id"], lines[: fix + 2])
        meaning = lines.index("What it means")
        assert meaning < fix and all(len(line) <= WIDTH for line in lines[meaning:fix + 2])  # prose is wrapped


def test_short_is_title_meaning_and_fix_under_fifteen_lines(kb: KnowledgeBase) -> None:
    for view in kb.store.views:
        short = explain_page(find(kb, view["id"]), short=True).splitlines()
        assert len(short) <= SHORT_LINES < 15, view["id"]
        assert short[-1] == f"more: errdex explain {view['slug']}"
    lines = explain_page(find(kb, SSHD_LINE), short=True).splitlines()
    assert lines[0].startswith("Failed password for invalid user webmaster")
    assert lines[4].startswith("meaning: sshd's one line per authentication attempt")
    assert any(line.startswith("fix: Count Failed lines per source address") for line in lines)
    assert not any(line in ("What triggers it", "Prevention", "Scenarios (6)") for line in lines)


def test_the_rest_follows_the_fix(kb: KnowledgeBase) -> None:
    lines = explain_page(find(kb, SSHD_LINE)).splitlines()
    order = ["What it means", "How to fix it", "More on what it means", "Other fixes", "What triggers it",
             "Common situations", "Prevention", "Scenarios (6)", "Captured from the line", "Pattern", "Source"]
    assert [line for line in lines if line in order] == order


def test_a_unique_prefix_resolves_and_a_near_miss_is_suggested(kb: KnowledgeBase) -> None:
    assert find(kb, "2715d7d4").record["id"] == "2715d7d48ff9726c"
    assert find(kb, "createos-returned-invalid-j").how == "prefix"
    assert find(kb, "paperclipai/paperclip/createos-returned-inv").record["slug"] == "createos-returned-invalid-json"
    assert suggestions(kb, "createos-returned-invalid-jsno") == ["createos-returned-invalid-json"]
    assert suggestions(kb, "a log line that matches nothing") == []
    with pytest.raises(RecordNotFound, match=r"did you mean createos-returned-invalid-json\?"):
        find(kb, "createos-retuned-invalid-json")
    with pytest.raises(RecordNotFound, match=r"\d+ records start with it: createos-"):
        find(kb, "createos-returned-an")
    with pytest.raises(RecordNotFound) as nothing:
        find(kb, "nothing at all here")
    assert "did you mean" not in str(nothing.value)


def _report(record_id: str, passed: bool) -> dict[str, Any]:
    scenarios = [{"id": "html-page", "passed": passed, "failures": [] if passed else ["raised nothing"]}]
    return {"records": [{"id": record_id, "slug": "s", "passed": passed, "problem": None, "scenarios": scenarios}]}


def test_proof_status_comes_only_from_a_run(kb: KnowledgeBase) -> None:
    found = find(kb, "createos-returned-invalid-json")
    assert "Proof: not proved in this run; run: errdex explain e1429068ae6e0ae1 --prove" in explain_page(found)
    assert "Proved scenarios" not in explain_page(found)
    good = explain_page(found, proof=proof_status(_report(found.record["id"], True), found.record["id"],
                                                  source="proofs.json"))
    assert "Proof: proved in proofs.json: 1 of 1 scenario(s) passed" in good and "html-page:" in good
    assert "[passed]" in good
    bad = explain_page(found, proof=proof_status(_report(found.record["id"], False), found.record["id"],
                                                 source="this run"))
    assert "Proof: NOT proved in this run: 0 of 1 scenario(s) passed; failed: html-page" in bad
    assert "[FAILED]" in bad and "        raised nothing" in bad
    other = proof_status(_report("ffffffffffffffff", True), found.record["id"], source="proofs.json")
    assert other == ProofStatus(None, "proofs.json")
    assert "not proved in this run (proofs.json holds no proof of it)" in explain_page(found, proof=other)
    with pytest.raises(DataError, match="not a proof report"):
        proof_status([], found.record["id"], source="x.json")
