"""Bundles in and out: ``import_bundle`` and ``export_dataset`` (the dataset is copied, never modified)."""

from __future__ import annotations

import copy
import gzip
import json
import shutil
import stat
from pathlib import Path
from typing import Any

import duckdb
import pytest

from errdex.bundles import export_dataset, import_bundle, parquet_columns
from errdex.checks.runner import validate
from errdex.errors import DataError, UsageError
from errdex.records.canonical import canonical_text
from errdex.records.loader import load_records
from tests.conftest import ROOT, write_envelope
from tests.processes import run

# Not a test of the cache: import and export validate the same records again and again, and these share one cache
# of them for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")

DATASET = ROOT / "records"
#: Two records of the bundled dataset that the conflict tests change.
CHANGED_ID, CLASH_ID = "077cfa2869e9eb8e", "199f83aae73eacda"
NEW_ID = "0123456789abcdef"


def dataset_envelopes() -> dict[str, dict[str, Any]]:
    """Every envelope of the bundled dataset, by id (fresh copies)."""
    return {item.record["id"]: {"record": copy.deepcopy(item.record), "datasetVersion": item.dataset_version}
            for item in load_records([DATASET])}


def write_bundle(path: Path, envelopes: list[dict[str, Any]], *, extra_lines: tuple[str, ...] = ()) -> Path:
    lines = [canonical_text(envelope, bundle_line=True) for envelope in envelopes] + list(extra_lines)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def copy_dataset(target: Path) -> Path:
    shutil.copytree(DATASET, target, ignore=shutil.ignore_patterns(".*"))
    return target


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under the folder: its bytes and modification time."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def conflicting_bundle(path: Path) -> Path:
    """One record whose documentation changed and one new id that takes an existing slug."""
    envelopes = dataset_envelopes()
    changed = envelopes[CHANGED_ID]
    changed["record"]["documentation"] += " Seen upstream too."
    clash = envelopes[CLASH_ID]
    clash["record"]["id"] = NEW_ID
    return write_bundle(path, [changed, clash])


def errors_in(folder: Path) -> list[str]:
    return [f"{f.path}:{f.line}: {f.code} {f.message}" for f in validate([folder]).findings if f.severity == "error"]


# ----------------------------------------------------------------------------- export


def test_jsonl_export_is_sorted_canonical_and_reproducible(tmp_path: Path) -> None:
    first = export_dataset("jsonl", tmp_path / "a.jsonl")
    export_dataset("jsonl", tmp_path / "b.jsonl")
    data = (tmp_path / "a.jsonl").read_bytes()
    assert data == (tmp_path / "b.jsonl").read_bytes()
    lines = data.decode("utf-8").splitlines()
    envelopes = [json.loads(line) for line in lines]
    assert first.records == len(lines) == len(dataset_envelopes())
    assert [e["record"]["id"] for e in envelopes] == sorted(dataset_envelopes())
    assert all(line == canonical_text(e, bundle_line=True) for line, e in zip(lines, envelopes, strict=True))


def test_gzipped_jsonl_export_is_reproducible(tmp_path: Path) -> None:
    export_dataset("jsonl", tmp_path / "plain.jsonl")
    export_dataset("jsonl", tmp_path / "a.jsonl.gz")
    export_dataset("jsonl", tmp_path / "b.jsonl.gz")
    packed = (tmp_path / "a.jsonl.gz").read_bytes()
    assert packed == (tmp_path / "b.jsonl.gz").read_bytes()
    assert gzip.decompress(packed) == (tmp_path / "plain.jsonl").read_bytes()


def test_parquet_export_reads_back_in_duckdb_with_every_record(tmp_path: Path) -> None:
    target = tmp_path / "errdex.parquet"
    report = export_dataset("parquet", target)
    envelopes = dataset_envelopes()
    source = f"'{target}'"
    assert duckdb.sql(f"SELECT count(*), count(DISTINCT id) FROM {source}").fetchall() == [(len(envelopes),) * 2]
    assert report.records == len(envelopes)
    types = dict(duckdb.sql(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {source})").fetchall())
    assert list(types) == list(parquet_columns())
    assert types["solutions"] == types["tags"] == types["preventionTips"] == "VARCHAR[]"
    assert types["scenarios"].endswith("[]") and types["lineNumber"] == "INTEGER"
    rows = duckdb.sql(f"SELECT id, solutions, tags, preventionTips, errorMessage, lineNumber, httpStatus, "
                      f"scenarios, datasetVersion FROM {source} ORDER BY id").fetchall()
    assert [row[0] for row in rows] == sorted(envelopes)
    for rid, solutions, tags, tips, message, line, status, scenarios, version in rows:
        record = envelopes[rid]["record"]
        assert (solutions, tags, tips) == (record["solutions"], record["tags"], record["preventionTips"])
        assert (message, line, status) == (record["errorMessage"], record["lineNumber"], record["httpStatus"])
        assert [json.loads(s) for s in scenarios] == record["scenarios"]
        assert version == envelopes[rid]["datasetVersion"]


def test_parquet_export_of_a_version_2_record(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = tmp_path / "records"
    write_envelope(folder, seed)
    export_dataset("parquet", tmp_path / "v2.parquet", records=[folder])
    [loaded] = load_records([folder])  # the record as the loader gives it (exports write what it loads)
    rows = duckdb.sql(f"SELECT id, schemaVersion, scenarios, solutions, errorCode FROM '{tmp_path / 'v2.parquet'}'")
    scenarios = loaded.record.get("scenarios")
    assert rows.fetchall() == [(seed["record"]["id"], loaded.record["schemaVersion"],
                                None if scenarios is None else [json.dumps(s) for s in scenarios],
                                seed["record"]["solutions"], None)]


def test_duckdb_export_opens_and_has_every_record(tmp_path: Path) -> None:
    target = tmp_path / "errdex.duckdb"
    report = export_dataset("duckdb", target)
    con = duckdb.connect(str(target), read_only=True)
    try:
        ids = [row[0] for row in con.execute("SELECT id FROM records ORDER BY id").fetchall()]
        solutions = con.execute("SELECT count(*) FROM solutions").fetchone()
    finally:
        con.close()
    envelopes = dataset_envelopes()
    assert ids == sorted(envelopes) and report.records == len(ids)
    assert solutions == (sum(len(e["record"]["solutions"]) for e in envelopes.values()),)


def test_export_replaces_a_file_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "out" / "errdex.parquet"
    target.parent.mkdir()
    target.write_text("old")
    export_dataset("parquet", target)
    assert target.read_bytes()[:4] == b"PAR1"
    assert [p.name for p in target.parent.iterdir()] == ["errdex.parquet"]


def test_export_refuses_a_bad_format_and_a_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown export format"):
        export_dataset("xml", tmp_path / "x.xml")
    with pytest.raises(UsageError, match="is a folder"):
        export_dataset("jsonl", tmp_path)


# ----------------------------------------------------------------------------- import


def test_import_into_an_empty_folder_writes_owner_repo_slug_files(tmp_path: Path) -> None:
    export_dataset("jsonl", tmp_path / "dump.jsonl.gz")
    folder = tmp_path / "records"
    report = import_bundle(tmp_path / "dump.jsonl.gz", records_dir=folder)
    assert not report.blocked and {e.status for e in report.entries} == {"added"}
    assert len(report.written) == len(dataset_envelopes())
    for entry in report.entries:
        assert entry.path == folder / entry.repo / f"{entry.slug}.json"  # type: ignore[operator]  # a written entry has both
        original = DATASET / entry.repo / f"{entry.slug}.json"  # type: ignore[operator]  # a written entry has both
        assert entry.path.read_bytes() == original.read_bytes()  # type: ignore[union-attr]  # ... and a path
    assert errors_in(folder) == []


def test_import_of_the_seed_adds_a_clean_canonical_file(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = tmp_path / "records"
    report = import_bundle(write_bundle(tmp_path / "seed.jsonl", [seed]), records_dir=folder)
    target = folder / "paperclipai" / "paperclip" / f"{seed['record']['slug']}.json"
    assert report.written == [target]
    assert target.read_text(encoding="utf-8") == canonical_text(seed)
    assert errors_in(folder) == []


def test_reimport_is_unchanged_and_writes_nothing(tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    before = snapshot(folder)
    export_dataset("jsonl", tmp_path / "dump.jsonl")
    report = import_bundle(tmp_path / "dump.jsonl", records_dir=folder)
    assert {e.status for e in report.entries} == {"unchanged"} and report.written == []
    assert snapshot(folder) == before


def test_volatile_fields_alone_leave_a_record_unchanged(tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    envelope = dataset_envelopes()[CHANGED_ID]
    envelope["datasetVersion"] = "2031-01-01T00:00:00Z"
    envelope["record"]["contentChangedAt"] = "2031-01-01T00:00:00Z"
    report = import_bundle(write_bundle(tmp_path / "dump.jsonl", [envelope]), records_dir=folder)
    assert [e.status for e in report.entries] == ["unchanged"] and report.written == []


def test_conflicts_are_reported_and_change_nothing(tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    before = snapshot(folder)
    report = import_bundle(conflicting_bundle(tmp_path / "dump.jsonl"), records_dir=folder)
    changed, clash = report.entries
    assert report.blocked and [e.status for e in report.entries] == ["conflict", "conflict"]
    assert changed.fields == ["documentation"] and changed.reasons == ["changed: documentation"]
    assert clash.reasons == [f"slug taken by {CLASH_ID}"]
    assert report.written == [] and snapshot(folder) == before


def test_check_reports_without_writing(tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    before = snapshot(folder)
    report = import_bundle(conflicting_bundle(tmp_path / "dump.jsonl"), records_dir=folder, overwrite=True, check=True)
    assert len(report.conflicts) == 2 and report.written == [] and snapshot(folder) == before


def test_overwrite_replaces_conflicting_records(tmp_path: Path) -> None:
    folder = copy_dataset(tmp_path / "records")
    report = import_bundle(conflicting_bundle(tmp_path / "dump.jsonl"), records_dir=folder, overwrite=True)
    changed, clash = report.entries
    assert changed.written and clash.written and report.removed == []
    assert changed.path is not None and clash.path is not None
    assert json.loads(changed.path.read_text())["record"]["documentation"].endswith(" Seen upstream too.")
    assert json.loads(clash.path.read_text())["record"]["id"] == NEW_ID
    assert CLASH_ID not in {item.record["id"] for item in load_records([folder])}
    assert errors_in(folder) == []


def test_seed_version_2_conflicts_with_its_version_3_record(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = copy_dataset(tmp_path / "records")
    report = import_bundle(write_bundle(tmp_path / "seed.jsonl", [seed]), records_dir=folder)
    [entry] = report.entries
    assert entry.status == "conflict" and {"schemaVersion", "scenarios", "documentation"} <= set(entry.fields)
    assert "contentChangedAt" not in entry.fields


def test_an_existing_record_keeps_its_file(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    envelope = dataset_envelopes()[CHANGED_ID]
    kept = write_envelope(folder, envelope, name="kept-here.json")
    envelope["record"]["documentation"] += " More."
    report = import_bundle(write_bundle(tmp_path / "dump.jsonl", [envelope]), records_dir=folder, overwrite=True)
    assert report.written == [kept] and [p.name for p in kept.parent.iterdir()] == ["kept-here.json"]
    assert kept.read_text(encoding="utf-8") == canonical_text(envelope)


def test_invalid_records_are_reported_and_never_imported(tmp_path: Path) -> None:
    envelopes = dataset_envelopes()
    good, bad = envelopes[CHANGED_ID], envelopes[CLASH_ID]
    bad["record"]["severity"] = "bogus"
    bundle = write_bundle(tmp_path / "dump.jsonl", [good, bad])
    folder = tmp_path / "records"
    report = import_bundle(bundle, records_dir=folder)
    [invalid] = report.invalid
    assert report.blocked and invalid.line == 2 and invalid.record_id == CLASH_ID
    assert invalid.findings[0].code == "EDX010" and invalid.reasons[0].startswith(f"{bundle}:2:")
    assert not folder.exists()
    report = import_bundle(bundle, records_dir=folder, overwrite=True)
    assert not report.blocked and [e.written for e in report.entries] == [True, False]
    assert {item.record["id"] for item in load_records([folder])} == {CHANGED_ID}


def test_a_bare_record_line_is_invalid(tmp_path: Path, seed: dict[str, Any]) -> None:
    bundle = tmp_path / "dump.jsonl"
    bundle.write_text(json.dumps(seed["record"]) + "\n", encoding="utf-8")
    [entry] = import_bundle(bundle, records_dir=tmp_path / "records").entries
    assert entry.status == "invalid" and "not a record envelope" in entry.reasons[0]


def test_a_line_that_is_not_json_names_file_and_line_and_writes_nothing(tmp_path: Path, seed: dict[str, Any]) -> None:
    bundle = write_bundle(tmp_path / "dump.jsonl", [seed], extra_lines=("{not json",))
    folder = tmp_path / "records"
    with pytest.raises(DataError, match=rf"^{bundle}:2:\d+: "):
        import_bundle(bundle, records_dir=folder, overwrite=True)
    assert not folder.exists()


def test_import_refuses_what_is_not_a_bundle(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = write_envelope(tmp_path, seed)
    with pytest.raises(UsageError, match="not a JSONL bundle"):
        import_bundle(path, records_dir=tmp_path / "records")


@pytest.mark.parametrize("format", ["jsonl", "parquet", "duckdb"])
def test_export_never_replaces_a_device_or_fifo_with_a_file(tmp_path: Path, cli: Any, format: str) -> None:
    # --output /dev/null (or /dev/full) run as root put a regular file in the device's place: the write goes
    # through a temporary file and a rename. A FIFO stands in for the device here.
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = cli("export", "--to", format, "--output", str(fifo))
    assert result.exit_code == 2, result.stderr
    assert "not a regular file" in result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
    result = cli("index", "--db", str(fifo))
    assert result.exit_code == 2 and stat.S_ISFIFO(os.lstat(fifo).st_mode), result.stderr


def test_a_slug_of_the_same_repository_spelled_in_other_case_is_a_conflict(tmp_path: Path) -> None:
    """GitHub does not tell repositories apart by case, nor does the site (EDX115): importing PaperclipAI/Paperclip
    beside paperclipai/paperclip with one slug left a folder that validate refuses."""
    folder = copy_dataset(tmp_path / "records")
    before = snapshot(folder)
    clash = dataset_envelopes()[CLASH_ID]
    clash["record"]["id"] = NEW_ID
    clash["record"]["repo"] = "PaperclipAI/Paperclip"
    url = clash["record"]["githubUrl"]
    clash["record"]["githubUrl"] = url.replace("paperclipai/paperclip", "PaperclipAI/Paperclip")
    report = import_bundle(write_bundle(tmp_path / "dump.jsonl", [clash]), records_dir=folder)
    assert [e.status for e in report.entries] == ["conflict"], report.entries
    assert report.entries[0].reasons == [f"slug taken by {CLASH_ID}"]
    assert report.written == [] and snapshot(folder) == before


def test_overwrite_through_a_link_inside_the_folder_rewrites_the_file_it_points_at(tmp_path: Path) -> None:
    """import --overwrite replaced such a link with a new file and left the old one: one id twice."""
    folder = copy_dataset(tmp_path / "records")
    envelope = dataset_envelopes()[CHANGED_ID]
    link = folder / envelope["record"]["repo"] / f"{envelope['record']['slug']}.json"
    (folder / "store").mkdir()
    real = folder / "store" / "real.json"
    link.rename(real)
    link.symlink_to(Path("..") / ".." / "store" / "real.json")
    envelope["record"]["documentation"] += " Seen upstream too."
    import_bundle(write_bundle(tmp_path / "dump.jsonl", [envelope]), records_dir=folder, overwrite=True)
    assert link.is_symlink()
    assert json.loads(real.read_text())["record"]["documentation"].endswith(" Seen upstream too.")


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "a\\..\\..\\b.ts", "src/a\nb.ts"])
def test_a_file_path_outside_the_repository_is_never_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               path: str) -> None:
    # whatever the configuration ignores (here EDX130 itself), such a filePath is invalid
    (tmp_path / "errdex.toml").write_text('ignore = ["EDX130", "EDX131"]\n')
    monkeypatch.chdir(tmp_path)
    envelope = dataset_envelopes()[CHANGED_ID]
    envelope["record"]["filePath"] = path
    bundle = write_bundle(tmp_path / "dump.jsonl", [envelope])
    report = import_bundle(bundle, records_dir=tmp_path / "records", overwrite=True)
    [entry] = report.entries
    assert entry.status == "invalid" and "EDX130" in entry.reasons[0] and not (tmp_path / "records").exists()
    assert "\n" not in entry.reasons[0]


def test_a_killed_parquet_export_leaves_nothing_after_the_next(tmp_path: Path) -> None:
    """A Parquet export killed (kill -9, an abort under ulimit -v) left a copy of every record as JSONL in
    /tmp/errdex-export-*, which no run removed."""
    scratch, out = tmp_path / "tmp", tmp_path / "out"
    scratch.mkdir()
    args = ("export", "--to", "parquet", "--records", str(ROOT / "records"), "--output", str(out / "all.parquet"))
    killed = run(*args, cwd=tmp_path, TMPDIR=str(scratch), ERRDEX_CRASH_AT="export:scratch-written")
    assert killed.returncode == -9, killed.stderr
    done = run(*args, cwd=tmp_path, TMPDIR=str(scratch))
    assert done.returncode == 0, done.stderr
    assert [path.name for path in out.iterdir()] == ["all.parquet"]
    assert list(scratch.iterdir()) == []
