"""Relocation on a tiny repository harvested at its first commit: every kind, and the new sites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errdex.drift.run import drift, harvested
from errdex.harvest.run import harvest
from tests.drift.conftest import Commit

CORE = '''def load(path):
    if not path:
        raise ValueError("no path given to the loader")
    if path.endswith(".tmp"):
        raise ValueError("temporary files are refused here")
    return path


def save(data):
    raise RuntimeError("save failed for the record")
'''
UTIL = '''def check(table, key):
    if key not in table:
        raise KeyError("missing key in the lookup table")
'''
STILL = '''def stay():
    raise OSError("this one never moves at all")
'''


@pytest.fixture
def moved_repo(repo: tuple[Path, Commit], tmp_path: Path) -> tuple[Path, Path, str, str]:
    """(repository, bundle harvested at the first commit, first sha, second sha)."""
    root, commit = repo
    old = commit({"core.py": CORE, "util.py": UTIL, "still.py": STILL})
    bundle = tmp_path / "records.jsonl"
    harvest(root, repo="o/n", rev=old, bundle=bundle)
    core = CORE.replace("def load(path):\n", "import os\n\n\ndef load(path):\n")
    refused = '    if path.endswith(".tmp"):\n        raise ValueError("temporary files are refused here")\n'
    core = core.replace(refused, "")
    core = core.replace("save failed for the record", "saving failed for this record")
    core += '\n\ndef extra():\n    raise ValueError("a brand new failure to report")\n'
    new = commit({"core.py": core, "util.py": None, "helpers.py": "# helpers\n" + UTIL})
    return root, bundle, old, new


def _by_message(bundle: Path) -> dict[str, str]:
    lines = bundle.read_text().splitlines()
    return {json.loads(line)["record"]["errorMessage"]: json.loads(line)["record"]["id"] for line in lines}


def test_every_kind(moved_repo: tuple[Path, Path, str, str]) -> None:
    root, bundle, _, new = moved_repo
    ids = _by_message(bundle)
    report = drift(root, rev=new, records=[bundle])
    found = {item.record_id: item for item in report.drifted}
    assert report.sha == new and report.repo == "o/n" and not report.clean
    still = found[ids["this one never moves at all"]]
    assert still.kind == "unchanged" and still.new is not None and still.new.line == 2
    inserted = found[ids["no path given to the loader"]]  # three lines inserted above
    assert (inserted.kind, inserted.how, inserted.new and inserted.new.line) == ("moved", "diff", 6)
    renamed = found[ids["missing key in the lookup table"]]  # util.py renamed to helpers.py, a line above
    assert renamed.kind == "moved" and renamed.new is not None
    assert (renamed.new.path, renamed.new.line) == ("helpers.py", 4)
    reworded = found[ids["save failed for the record"]]
    assert reworded.kind == "reworded" and reworded.new_message == "saving failed for this record"
    assert reworded.new_pattern is not None and "saving" in reworded.new_pattern
    vanished = found[ids["temporary files are refused here"]]
    assert vanished.kind == "vanished" and vanished.new is None
    assert [(site.site.path, site.draft["errorMessage"]) for site in report.new_sites] == [
        ("core.py", "a brand new failure to report")]


def test_the_package_offers_drift() -> None:
    import errdex.drift  # the package's lazy name, loaded on first use

    assert errdex.drift.drift is drift


def test_records_at_the_commit_itself_are_clean(moved_repo: tuple[Path, Path, str, str]) -> None:
    root, bundle, old, _ = moved_repo
    report = drift(root, rev=old, records=[bundle])
    assert report.clean and {item.kind for item in report.drifted} == {"unchanged"}


def test_without_the_old_commit_the_excerpt_and_message_still_relocate(
        moved_repo: tuple[Path, Path, str, str], tmp_path: Path) -> None:
    root, bundle, _, new = moved_repo
    lines = [json.loads(line) for line in bundle.read_text().splitlines()]
    for envelope in lines:
        envelope["record"]["analyzedSha"] = "f" * 40  # a commit the repository does not hold
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(envelope) + "\n" for envelope in lines))
    report = drift(root, rev=new, records=[other], repo="o/n")
    kinds = {item.old_message: item.kind for item in report.drifted}
    assert kinds["no path given to the loader"] == "moved"
    assert kinds["this one never moves at all"] == "unchanged"
    assert kinds["temporary files are refused here"] == "vanished"


def test_a_folder_outside_git_relocates_by_content(moved_repo: tuple[Path, Path, str, str], tmp_path: Path) -> None:
    root, bundle, _, new = moved_repo
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("core.py", "helpers.py", "still.py"):
        (copy / name).write_bytes((root / name).read_bytes())
    report = drift(copy, sha=new, records=[bundle], repo="o/n")
    kinds = {item.old_message: (item.kind, item.how) for item in report.drifted}
    assert kinds["no path given to the loader"] == ("moved", "content")
    assert kinds["missing key in the lookup table"] == ("moved", "content")
    assert kinds["this one never moves at all"] == ("unchanged", "content")
    assert kinds["save failed for the record"][0] == "reworded"
    assert kinds["temporary files are refused here"][0] == "vanished"
    assert report.sha == new


def test_a_hand_written_record_is_not_harvested_and_brings_no_new_sites(
        moved_repo: tuple[Path, Path, str, str], tmp_path: Path) -> None:
    root, bundle, _, new = moved_repo
    envelope = json.loads(bundle.read_text().splitlines()[0])
    envelope["record"].update(id="hand-written-1", status="published")
    assert harvested(json.loads(bundle.read_text().splitlines()[0])["record"])
    assert not harvested(envelope["record"])
    single = tmp_path / "one.jsonl"
    single.write_text(json.dumps(envelope) + "\n")
    report = drift(root, rev=new, records=[single])
    assert len(report.drifted) == 1 and report.new_sites == []


def test_identical_statements_keep_their_order_when_their_block_moves(repo: tuple[Path, Commit],
                                                                      tmp_path: Path) -> None:
    """pip's ``logger.debug("Exception information:", exc_info=True)`` after each of five handlers, their
    block re-indented into another function: every line changes, the nearest line would cross them; the
    five records land on the five statements in their order."""
    root, commit = repo
    handlers = "".join(f'''        except E{n} as exc:
            logger.critical("handler {n} failed")
            logger.debug("Exception information:", exc_info=True)
{"" if n % 2 else chr(10) * 3}''' for n in range(5))
    old = commit({"base.py": f"def main():\n    def wrapper():\n        try:\n            run()\n{handlers}"})
    bundle = tmp_path / "records.jsonl"
    harvest(root, repo="o/n", rev=old, bundle=bundle, log_levels="all")
    flat = handlers.replace("\n        ", "\n    ").replace("        except E0", "    except E0")
    new = commit({"base.py": "import os\n\n\ndef run_wrapper():\n    try:\n        run()\n" + flat})
    report = drift(root, rev=new, records=[bundle])
    records = [json.loads(line)["record"] for line in bundle.read_text().splitlines()]
    old_lines = {r["id"]: r["lineNumber"] for r in records if r["errorMessage"] == "Exception information:"}
    landed = sorted((old_lines[item.record_id], item.new.line) for item in report.drifted
                    if item.record_id in old_lines and item.new is not None)
    new_lines = [n for n, line in enumerate((root / "base.py").read_text().splitlines(), 1)
                 if "Exception information" in line]
    assert len(landed) == 5 and [new for _, new in landed] == new_lines
