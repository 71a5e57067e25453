from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

from errdex.records.canonical import canonical_text
from errdex.records.sources import bundled_records_dir, iter_documents, record_files
from tests.processes import time_limit


def test_default_is_the_bundled_dataset() -> None:
    docs = list(iter_documents())
    assert docs and all(doc.path.startswith("records/") for doc in docs)
    assert bundled_records_dir().is_dir()


def test_folder_walk_is_sorted_and_skips_hidden(tmp_path: Path, seed: dict[str, Any]) -> None:
    for name in ("b.json", "a.json", ".hidden.json", "notes.txt"):
        (tmp_path / name).write_text(canonical_text(seed))
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.json").write_text("{}")
    assert [Path(d.path).name for d in iter_documents([tmp_path])] == ["a.json", "b.json"]


def test_bundle_lines_keep_their_line_numbers(tmp_path: Path, seed: dict[str, Any]) -> None:
    line = canonical_text(seed, bundle_line=True)
    bundle = tmp_path / "dump.jsonl"
    bundle.write_text(f"{line}\n\n{{broken\n{line}\n")
    docs = list(iter_documents([bundle]))
    assert len(docs) == 3
    assert docs[1].problems[0].kind.value == "invalid-json" and docs[1].problems[0].line == 3
    assert docs[2].parsed.line_offset == 3


def test_gzipped_bundle(tmp_path: Path, seed: dict[str, Any]) -> None:
    bundle = tmp_path / "dump.jsonl.gz"
    bundle.write_bytes(gzip.compress((canonical_text(seed, bundle_line=True) + "\n").encode()))
    assert [d.value["record"]["id"] for d in iter_documents([bundle])] == [seed["record"]["id"]]


def test_broken_gzip_is_a_problem(tmp_path: Path) -> None:
    bundle = tmp_path / "dump.jsonl.gz"
    bundle.write_bytes(b"not gzip at all")
    assert [p.kind.value for d in iter_documents([bundle]) for p in d.problems] == ["unreadable-input"]


def test_stdin_single_document_and_bundle(seed: dict[str, Any]) -> None:
    pretty = canonical_text(seed).encode()
    assert len(list(iter_documents(["-"], stdin=io.BytesIO(pretty)))) == 1
    lines = (canonical_text(seed, bundle_line=True) + "\n").encode() * 3
    docs = list(iter_documents(["-"], stdin=io.BytesIO(lines)))
    assert len(docs) == 3 and all(d.path == "<stdin>" for d in docs)


def test_missing_and_empty_inputs_are_problems(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    docs = list(iter_documents([tmp_path / "nope.json", tmp_path / "empty"]))
    assert [p.kind.value for d in docs for p in d.problems] == ["unreadable-input", "unreadable-input"]
    assert "no such file" in docs[0].problems[0].message


def test_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    target = tmp_path / "dir.json"
    target.mkdir()
    (target / "inner.json").write_text(json.dumps({}))
    assert [Path(d.path).name for d in iter_documents([target])] == ["inner.json"]


def test_folder_links_that_loop_are_reported_once_and_the_walk_ends(tmp_path: Path, seed: dict[str, Any]) -> None:
    folder = tmp_path / "records" / "acme" / "api"
    folder.mkdir(parents=True)
    (folder / "a.json").write_text(canonical_text(seed))
    (folder / "up").symlink_to("..", target_is_directory=True)
    (folder / "top").symlink_to(tmp_path / "records", target_is_directory=True)
    (tmp_path / "records" / "again").symlink_to("acme", target_is_directory=True)
    with time_limit(30, what="walking folder links that loop"):  # a walk that followed the loops never ends
        docs = list(iter_documents([tmp_path / "records"]))
    read = [d.path for d in docs if not d.problems]
    assert read == [str(folder / "a.json")]
    skipped = sorted((Path(d.path).name, d.problems[0].kind.value) for d in docs if d.problems)
    assert skipped == [("again", "unreadable-input"), ("top", "unreadable-input"), ("up", "unreadable-input")]
    assert all("symbolic link" in d.problems[0].message for d in docs if d.problems)
    assert record_files([tmp_path / "records"]) == [str(folder / "a.json")]


def test_a_file_reached_through_a_link_out_of_the_folder_is_marked(tmp_path: Path, seed: dict[str, Any]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text(canonical_text(seed))
    tree = tmp_path / "tree"
    (tree / "inner").mkdir(parents=True)
    (tree / "inner" / "y.json").write_text(canonical_text(seed))
    (tree / "linked").symlink_to(outside, target_is_directory=True)
    (tree / "alias").symlink_to(tree / "inner", target_is_directory=True)
    (tree / "file.json").symlink_to(outside / "x.json")
    (outside / "z.json").write_text(canonical_text(seed))
    marks = {Path(d.path).relative_to(tree).as_posix(): d.outside for d in iter_documents([tree]) if not d.problems}
    # linked/x.json is file.json: one file, read once.
    assert marks == {"file.json": True, "inner/y.json": False, "linked/z.json": True}
    assert not next(iter(iter_documents([outside / "x.json"]))).outside


def test_a_missing_path_gives_one_finding(cli, tmp_path: Path) -> None:
    result = cli("validate", "--no-config", "--format", "json", str(tmp_path / "nope.json"))
    assert result.exit_code == 1 and [f["code"] for f in result.json()] == ["EDX007"]


def test_a_bundle_line_longer_than_a_record_file_may_be_is_refused_without_reading_it_whole(
        tmp_path: Path, seed: dict[str, Any], monkeypatch: Any) -> None:
    # A 1.5 MB gzip of one 1.5 GB line (or a sparse file without a newline) was read whole into memory.
    from errdex.records import sources

    line = canonical_text(seed, bundle_line=True)
    seed["record"]["documentation"] = "x" * 400
    short = canonical_text(seed, bundle_line=True)
    monkeypatch.setattr(sources, "MAX_DOCUMENT_BYTES", len(short) + 10)
    bundle = tmp_path / "dump.jsonl.gz"
    bundle.write_bytes(gzip.compress(f"{short}\n{' ' * 5_000_000}{line}\n{short}\n".encode()))
    docs = list(iter_documents([bundle]))
    assert [(d.problems[0].kind.value, d.problems[0].line) if d.problems else d.parsed.line_offset for d in docs] == \
        [0, ("unreadable-input", 2), 2]
    assert "longer than" in docs[1].problems[0].message


def test_a_bundle_of_blank_lines_is_empty_as_an_empty_record_file_is(tmp_path: Path) -> None:
    for name, data in (("none.jsonl", b""), ("blank.jsonl", b"\n  \n\r\n")):
        (tmp_path / name).write_bytes(data)
        [doc] = list(iter_documents([tmp_path / name]))
        assert [p.kind.value for p in doc.problems] == ["empty-file"]


def test_one_file_named_twice_is_read_once(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    """A folder and a link to it, or a folder and one of its files, are one set of records, not two: no record
    is a duplicate of itself and no line matches one record twice."""
    folder = tmp_path / "records" / "paperclipai" / "paperclip"
    folder.mkdir(parents=True)
    record = folder / f"{seed['record']['slug']}.json"
    record.write_text(canonical_text(seed))
    (tmp_path / "alias").symlink_to(tmp_path / "records", target_is_directory=True)
    (folder / "same.json").symlink_to(record.name)
    paths = [tmp_path / "records", tmp_path / "alias", record]
    assert [d.path for d in iter_documents(paths)] == [str(record)]
    result = cli("validate", "--no-config", *map(str, paths))
    assert result.exit_code == 0, result.stdout + result.stderr
    line = seed["record"]["errorMessage"]
    args = [a for p in paths for a in ("--records", str(p))]
    result = cli("match", "--format", "jsonl", *args, "-", input=line + "\n")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout.splitlines()[0])["matches"]) == 1


def test_stdin_named_twice_is_read_once(cli, seed: dict[str, Any]) -> None:
    result = cli("validate", "--no-config", "--format", "json", "-", "-", input=canonical_text(seed))
    assert "EDX005" not in {f["code"] for f in result.json()}, result.stdout


def test_a_parquet_or_duckdb_file_given_as_records_is_named_for_what_it_is(tmp_path: Path, cli) -> None:
    """export writes Parquet and DuckDB; handed back as records they were 'not valid UTF-8; save the file as
    UTF-8', which sends a newcomer the wrong way."""
    parquet, db = tmp_path / "x.parquet", tmp_path / "x.duckdb"
    assert cli("export", "--to", "parquet", "--output", str(parquet)).exit_code == 0
    assert cli("export", "--to", "duckdb", "--output", str(db)).exit_code == 0
    for path, what in ((parquet, "a Parquet file"), (db, "a DuckDB database")):
        result = cli("validate", "--no-config", "--format", "json", str(path))
        assert result.exit_code == 1 and [f["code"] for f in result.json()] == ["EDX007"]
        assert what in result.json()[0]["message"]
        result = cli("match", "--records", str(path), "-", input="x\n")
        assert result.exit_code == 1 and what in result.stderr and "UTF-8" not in result.stderr
    result = cli("validate", "--no-config", "-", input=parquet.read_bytes())
    assert result.exit_code == 1 and "a Parquet file" in result.stdout
