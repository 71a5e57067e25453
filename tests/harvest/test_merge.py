"""harvest's merge: a draft is known by its id, or by the place of a harvested record (after a sync)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.harvest.drafts import draft_record, record_id, source_lines
from errdex.harvest.merge import Existing, is_harvested, merge_drafts
from errdex.harvest.sites import Site, Text

REPO, SHA = "acme/app", "c" * 40
LINES = source_lines(("\n".join(f"line {n}" for n in range(1, 30)) + "\n").encode())


def _draft(message: str, path: str = "src/a.ts", line: int = 10) -> dict[str, Any]:
    site = Site(path=path, language="typescript", kind="throw", line=line, end_line=line, template=(Text(message),),
                error_class="Error", function="f", guards=())
    return draft_record(site, repo=REPO, sha=SHA, analyzed_at="2027-01-01T00:00:00Z", lines=LINES,
                        pattern=message)


def _existing(record: dict[str, Any], tmp_path: Path) -> dict[str, Existing]:
    return {record["id"]: Existing({"record": record, "datasetVersion": "2027-01-01T00:00:00Z"},
                                   tmp_path / f"{record['slug']}.json")}


def test_a_synced_draft_is_known_by_its_place_not_added_again(tmp_path: Path) -> None:
    # sync accepted a rewording: the record kept the id of its first message
    synced = _draft("Old words.") | {"errorMessage": "New words.", "messagePattern": "New words."}
    assert is_harvested(synced)
    merge = merge_drafts([_draft("New words.")], _existing(synced, tmp_path), repo=REPO, folder=tmp_path)
    assert not merge.new and not merge.gone
    assert merge.unchanged == [synced["id"]]  # the same site, under the record's own id


def test_a_renamed_draft_is_known_by_its_place(tmp_path: Path) -> None:
    moved = _draft("Boom.", "src/b.ts")  # sync followed a rename; the id still names src/a.ts
    synced = moved | {"id": _draft("Boom.")["id"], "slug": "boom"}
    merge = merge_drafts([_draft("Boom.", "src/b.ts")], _existing(synced, tmp_path), repo=REPO, folder=tmp_path)
    assert not merge.new and merge.unchanged == [synced["id"]]


def test_another_place_or_commit_is_still_a_new_draft(tmp_path: Path) -> None:
    synced = _draft("Old words.") | {"errorMessage": "New words."}
    for other in (_draft("New words.", line=11), _draft("New words.") | {"analyzedSha": "d" * 40}):
        merge = merge_drafts([other], _existing(synced, tmp_path), repo=REPO, folder=tmp_path)
        assert [key for key, _ in merge.new] == [other["id"]]


def test_a_hand_written_record_at_the_place_is_left_to_its_author(tmp_path: Path) -> None:
    hand = _draft("Boom.") | {"id": "0123456789abcdef", "status": "active", "errorMessage": "Boom!"}
    assert not is_harvested(hand)
    merge = merge_drafts([_draft("Boom.")], _existing(hand, tmp_path), repo=REPO, folder=tmp_path)
    assert [key for key, _ in merge.new] == [_draft("Boom.")["id"]] and not merge.updated


def test_ordinal_ids_that_changed_places_stay_with_their_records(tmp_path: Path) -> None:
    # two sites of one message; sync moved the second record (ordinal 2) to line 5, where the first site now is
    first, second = _draft("Boom.", line=10), _draft("Boom.", line=20)
    second = second | {"id": record_id(REPO, "src/a.ts", "Boom.", 2), "slug": "boom-2", "lineNumber": 5}
    held = {**_existing(first, tmp_path), **_existing(second, tmp_path)}
    drafts = [_draft("Boom.", line=5), _draft("Boom.", line=10) | {"id": record_id(REPO, "src/a.ts", "Boom.", 2)}]
    merge = merge_drafts(drafts, held, repo=REPO, folder=tmp_path)
    assert not merge.new and merge.unchanged == [first["id"]]
    assert [key for key, _, _ in merge.updated] == [second["id"]]  # its excerpt, drafted at line 20, refreshed
    assert merge.envelopes[second["id"]]["record"]["lineNumber"] == 5
    assert merge.envelopes[first["id"]]["record"]["lineNumber"] == 10


def test_a_new_site_whose_id_a_placed_record_holds_gets_a_free_ordinal(tmp_path: Path) -> None:
    placed = _draft("Boom.", line=5)  # id of ordinal 1, at line 5
    drafts = [_draft("Boom.", line=5), _draft("Boom.", line=7)]  # the second site, new, drafted with ordinal 1 too
    merge = merge_drafts(drafts, _existing(placed, tmp_path), repo=REPO, folder=tmp_path)
    assert merge.unchanged == [placed["id"]]
    assert [key for key, _ in merge.new] == [record_id(REPO, "src/a.ts", "Boom.", 2)]
    assert merge.envelopes[record_id(REPO, "src/a.ts", "Boom.", 2)]["record"]["lineNumber"] == 7


def test_a_documented_record_keeps_its_words_and_pattern_and_follows_its_place(tmp_path: Path) -> None:
    # a contributor documented the draft: reworded its message for the log line and tuned its pattern
    documented = _draft("Boom.") | {"status": "active", "errorMessage": "Boom (as logged).",
                                    "messagePattern": "Boom\\.$", "severity": "warning"}
    moved = _draft("Boom.", line=12)
    moved["id"] = documented["id"]
    merge = merge_drafts([moved], _existing(documented, tmp_path), repo=REPO, folder=tmp_path)
    record = merge.envelopes[documented["id"]]["record"]
    assert (record["errorMessage"], record["messagePattern"], record["severity"]) == (
        "Boom (as logged).", "Boom\\.$", "warning")
    assert record["lineNumber"] == 12 and record["sourceCode"] == moved["sourceCode"]


def test_a_draft_takes_every_mechanical_field_again(tmp_path: Path) -> None:
    old = _draft("Boom.") | {"messagePattern": "Bo+m\\."}
    merge = merge_drafts([_draft("Boom.")], _existing(old, tmp_path), repo=REPO, folder=tmp_path)
    assert merge.envelopes[old["id"]]["record"]["messagePattern"] == "Boom."
