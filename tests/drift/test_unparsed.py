"""A file at the new commit that the parser cannot take: drift lists it, its records are vanished with
``how="unparsed"``, and sync never retires them."""

from __future__ import annotations

from pathlib import Path

from errdex.drift import drift
from errdex.drift.report import as_dict, text_lines
from errdex.harvest.run import harvest
from errdex.sync import sync
from tests.drift.conftest import Commit

APP = 'def load(path):\n    raise ValueError("cannot load the settings file")\n'


def test_a_record_in_a_file_the_parser_refuses_is_not_retired(repo: tuple[Path, Commit], tmp_path: Path) -> None:
    root, commit = repo
    old = commit({"app.py": APP})
    bundle = tmp_path / "records.jsonl"
    harvest(root, repo="o/n", rev=old, bundle=bundle)
    deep = "".join(" " * level + "if x:\n" for level in range(720))  # crashed the Python parser
    new = commit({"app.py": deep + " " * 720 + 'raise ValueError("cannot load the settings file")\n'})
    report = drift(root, rev=new, records=[bundle])
    assert [path for path, _ in report.unparsed] == ["app.py"]
    assert [(item.kind, item.how) for item in report.drifted] == [("vanished", "unparsed")]
    assert text_lines(report)[-1].startswith("failed to parse app.py: 721 distinct indentations")
    assert as_dict(report)["unparsedFiles"][0]["path"] == "app.py"
    before = bundle.read_bytes()
    synced = sync(root, drift=report, rev=new, records=[bundle], retire_vanished=True)
    assert not synced.changed and bundle.read_bytes() == before
    assert [kept.detail for kept in synced.kept] == ["app.py:2: its file failed to parse"]
    assert "(give" not in synced.lines()[0]
