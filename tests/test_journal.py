"""The journal of a change of many files: finished in the folder it names and nowhere else, never outside it,
and by whatever command reads the folder next (real processes, killed at chosen points)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from errdex._journal import JOURNAL, Change, read_journal
from errdex._locks import settle
from errdex.errors import DataError
from tests.conftest import write_envelope
from tests.harvest.conftest import git
from tests.processes import ROOT, leftovers, run, start

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, hidden ones too (a journal, a staged file), and its bytes."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name != ".errdex.lock"}


def _records(folder: Path) -> dict[str, bytes]:
    return {name: data for name, data in _files(folder).items() if "/." not in f"/{name}"}


# ---- an import killed, then finished from somewhere else ------------------------------------------------------


@pytest.fixture
def two_places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Folders A and B, each holding a copy of the project's records in recs/, and a bundle changing them all."""
    first, second = tmp_path / "A", tmp_path / "B"
    for place in (first, second):
        shutil.copytree(ROOT / "records", place / "recs", ignore=shutil.ignore_patterns(".releases"))
    exported = run("export", "--to", "jsonl", "--records", "recs", "--output", "../all.jsonl", cwd=first)
    assert exported.returncode == 0, exported.stderr
    changed = []
    for line in (tmp_path / "all.jsonl").read_text(encoding="utf-8").splitlines():
        envelope = json.loads(line)
        envelope["record"]["documentation"] += " Changed by the import."
        changed.append(json.dumps(envelope))
    (tmp_path / "changed.jsonl").write_text("\n".join(changed) + "\n", encoding="utf-8")
    return first, second, tmp_path / "changed.jsonl"


def _killed_import(place: Path, bundle: Path, point: str = "change:journaled") -> None:
    killed = run("import", str(bundle), "--records", "recs", "--overwrite", cwd=place, ERRDEX_CRASH_AT=point)
    assert killed.returncode == -9, killed.stderr
    assert (place / "recs" / JOURNAL).exists()


def test_a_killed_import_is_finished_in_its_own_folder_by_a_run_from_another(two_places) -> None:
    first, second, bundle = two_places
    other = _files(second / "recs")
    _killed_import(first, bundle)
    again = run("import", str(bundle), "--records", str(first / "recs"), cwd=second)
    assert _files(second / "recs") == other  # the other folder's recs/ is untouched
    assert again.returncode == 0, again.stderr
    assert "finished a change that process" in again.stderr
    changed = [data for data in _records(first / "recs").values() if b"Changed by the import." in data]
    assert len(changed) == len(bundle.read_text(encoding="utf-8").splitlines())  # every record: the killed import
    assert leftovers(first, second) == []


def test_a_copy_of_a_folder_with_a_pending_change_is_refused_and_the_original_left_alone(two_places) -> None:
    first, _, bundle = two_places
    _killed_import(first, bundle)
    shutil.copytree(first / "recs", first / "copy", symlinks=True)
    original, copy = _files(first / "recs"), _files(first / "copy")
    for command in (("validate", "copy"), ("import", str(bundle), "--records", "copy", "--overwrite"),
                    ("export", "--to", "jsonl", "--records", "copy", "--output", "-")):
        refused = run(*command, cwd=first)
        assert refused.returncode == 1, refused.stderr
        assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
        assert f"copy/{JOURNAL}: the journal of a change killed in the middle in {first / 'recs'}" \
            in refused.stderr and "not in this folder" in refused.stderr
        assert _files(first / "recs") == original and _files(first / "copy") == copy
    finished = run("validate", "recs", cwd=first)
    assert "finished a change that process" in finished.stderr and not (first / "recs" / JOURNAL).exists()


def test_a_journal_of_the_current_release_is_finished_where_its_run_started(two_places) -> None:
    """The journal an earlier errdex wrote (targets relative to where it ran) is finished in its own folder."""
    first, second, _ = two_places
    target = first / "recs" / "openssh" / "openssh-portable" / "read-connection-reset-by-peer.json"
    removed = next(iter(sorted((first / "recs" / "paperclipai").rglob("*.json"))))
    staged = target.with_name(f".{target.name}.{_dead_pid()}-abcdefgh.tmp")
    staged.write_bytes(b'{"new": true}\n')
    (first / "recs" / JOURNAL).write_text(json.dumps({"pid": _dead_pid(), "renames": [
        [str(staged), str(target.relative_to(first))]], "removes": [str(removed.relative_to(first))]}))
    other = _files(second / "recs")
    done = run("validate", str(first / "recs"), cwd=second)
    assert "finished a change that process" in done.stderr, done.stderr
    assert target.read_bytes() == b'{"new": true}\n' and not removed.exists()
    assert _files(second / "recs") == other and leftovers(first) == []


def test_an_old_journal_of_a_copied_folder_is_refused(two_places) -> None:
    first, second, _ = two_places
    target = first / "recs" / "openssh" / "openssh-portable" / "read-connection-reset-by-peer.json"
    staged = target.with_name(f".{target.name}.{_dead_pid()}-abcdefgh.tmp")
    staged.write_bytes(b"new")
    (second / "recs" / JOURNAL).write_text(json.dumps({"pid": _dead_pid(), "renames": [
        [str(staged), str(target.relative_to(first))]], "removes": []}))
    before, other = _files(first / "recs"), _files(second / "recs")
    refused = run("validate", "recs", cwd=second)
    assert refused.returncode == 1 and "of an earlier errdex" in refused.stderr and "not in this folder" in \
        refused.stderr and refused.stderr.count("\n") == 1
    assert _files(first / "recs") == before and _files(second / "recs") == other


# ---- a sync killed in its rename window -----------------------------------------------------------------------


@pytest.fixture
def reworded(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose one message was reworded after its records were harvested: (repo, records)."""
    repo, records = tmp_path / "repo", tmp_path / "recs"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    body = 'export function f(ok: boolean) {\n  if (!ok) throw new Error("The widget broke.");\n}\n'
    (repo / "a.ts").write_text(body, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    harvested = run("harvest", str(repo), "--repo", "acme/app", "--rev", "HEAD", "--out", str(records),
                    cwd=tmp_path, **EPOCH)
    assert harvested.returncode == 0, harvested.stderr
    (repo / "a.ts").write_text((repo / "a.ts").read_text().replace("broke.", "broke badly."))
    git(repo, "commit", "-q", "-am", "two")
    return repo, records


def _names(records: Path) -> list[str]:
    return sorted(path.name for path in records.rglob("*.json") if not path.name.startswith("."))


def _killed_sync(tmp_path: Path, repo: Path, records: Path) -> None:
    killed = run("sync", "--source", str(repo), "--rev", "HEAD", "--records", str(records), "--accept-reworded",
                 cwd=tmp_path, ERRDEX_CRASH_AT="change:renamed-one", **EPOCH)
    assert killed.returncode == -9, killed.stderr
    assert _names(records) == ["the-widget-broke-badly.json", "the-widget-broke.json"]  # one id, twice


@pytest.mark.parametrize("command", [
    ("validate", "{records}"), ("drift", "--source", "{repo}", "--rev", "HEAD", "--records", "{records}"),
    ("index", "--records", "{records}", "--db", "x.duckdb"),
    ("export", "--to", "jsonl", "--records", "{records}", "--output", "x.jsonl"),
    ("site", "build", "--records", "{records}", "--out", "site", "--no-search"),
    ("sync", "--source", "{repo}", "--rev", "HEAD", "--records", "{records}", "--accept-reworded"),
    ("validate", "{records}/acme/app/the-widget-broke-badly.json"),
], ids=lambda command: "-".join(command[:2]).replace("{", "").replace("}", ""))
def test_every_command_finishes_a_sync_killed_in_its_rename_window(tmp_path: Path, reworded, command) -> None:
    repo, records = reworded
    _killed_sync(tmp_path, repo, records)
    done = run(*(part.format(repo=repo, records=records) for part in command), cwd=tmp_path, **EPOCH)
    assert done.returncode == 0, done.stderr
    assert "finished a change that process" in done.stderr
    assert _names(records) == ["the-widget-broke-badly.json"]
    assert not (records / JOURNAL).exists()
    assert run("validate", str(records), cwd=tmp_path).returncode == 0


# ---- hostile and damaged journals ------------------------------------------------------------------------------


def _journal(place: Path, renames: list[list[str]], removes: Sequence[str] = (), **extra: object) -> Path:
    record = {"errdexJournal": 2, "folder": str(place.resolve()), "pid": _dead_pid(), "token": "t",
              "parts": [], "renames": renames, "removes": list(removes), **extra}
    path = place / JOURNAL
    path.write_text(json.dumps(record))
    return path


@pytest.fixture
def victim(tmp_path: Path) -> tuple[Path, Path]:
    """A records folder, and a file beside it that a hostile journal aims at: (folder, victim)."""
    folder = tmp_path / "recs"
    folder.mkdir()
    (folder / "a.json").write_text("a")
    target = tmp_path / "victim.json"
    target.write_text("keep me")
    return folder, target


HOSTILE = {
    "parent": lambda folder: _journal(folder, [[".a.json.1-abcdefgh.tmp", "../victim.json"]]),
    "absolute": lambda folder: _journal(folder, [[".a.json.1-abcdefgh.tmp", str(folder.parent / "victim.json")]]),
    "absolute staged": lambda folder: _journal(folder, [[str(folder.parent / ".victim.json.1-abcdefgh.tmp"),
                                                         "victim.json"]]),
    "remove parent": lambda folder: _journal(folder, [], ["../victim.json"]),
    "remove absolute": lambda folder: _journal(folder, [], [str(folder.parent / "victim.json")]),
    "remove through a link": lambda folder: (os.symlink(folder.parent, folder / "up"),
                                             _journal(folder, [], ["up/victim.json"])),
    "not staged": lambda folder: _journal(folder, [["a.json", "b.json"]]),
    "onto another name": lambda folder: _journal(folder, [[".a.json.1-abcdefgh.tmp", "b.json"]]),
    "another folder": lambda folder: _journal(folder, [], folder=str(folder.parent)),
    "not json": lambda folder: (folder / JOURNAL).write_text("{not json"),
    "truncated": lambda folder: (folder / JOURNAL).write_text(json.dumps({"errdexJournal": 2, "renames": []})[:20]),
    "deep": lambda folder: (folder / JOURNAL).write_text("[" * 100_000 + "]" * 100_000),
    "later version": lambda folder: _journal(folder, [], errdexJournal=3),
    "no pid": lambda folder: (folder / JOURNAL).write_text(json.dumps({"renames": [], "removes": []})),
    "huge": lambda folder: ((folder / JOURNAL).write_bytes(b"{"), os.truncate(folder / JOURNAL, 65 * 1024 * 1024)),
    "fifo": lambda folder: os.mkfifo(folder / JOURNAL),
    "link": lambda folder: os.symlink(folder.parent / "victim.json", folder / JOURNAL),
    "old parent": lambda folder: (folder / JOURNAL).write_text(json.dumps(
        {"pid": 1, "renames": [[str(folder / ".a.json.1-abcdefgh.tmp"), "../victim.json"]], "removes": []})),
    "old remove outside": lambda folder: (folder / JOURNAL).write_text(json.dumps(
        {"pid": 1, "renames": [[str(folder / ".a.json.1-abcdefgh.tmp"), "recs/a.json"]],
         "removes": ["recs/../victim.json"]})),
    "old absolute elsewhere": lambda folder: (folder / JOURNAL).write_text(json.dumps(
        {"pid": 1, "renames": [[str(folder / ".victim.json.1-abcdefgh.tmp"), str(folder.parent / "victim.json")]],
         "removes": []})),
    "old relative remove alone": lambda folder: (folder / JOURNAL).write_text(json.dumps(
        {"pid": 1, "renames": [], "removes": ["a.json"]})),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_or_damaged_journal_is_refused_and_nothing_touched(victim, name: str) -> None:
    folder, target = victim
    (folder / ".a.json.1-abcdefgh.tmp").write_text("staged")
    HOSTILE[name](folder)
    before = _files(folder.parent) if name != "fifo" else None
    with pytest.raises(DataError) as refused:
        settle(folder, what="test")
    message = str(refused.value)
    assert "\n" not in message and message.startswith(str(folder / JOURNAL)), message
    assert target.read_text() == "keep me" and (folder / "a.json").read_text() == "a"
    if before is not None:
        assert _files(folder.parent) == before


def test_a_hostile_journal_is_refused_by_every_command_in_one_line(victim) -> None:
    folder, target = victim
    HOSTILE["parent"](folder)
    refused = run("validate", str(folder), cwd=folder.parent)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "outside the folder" in refused.stderr
    assert target.read_text() == "keep me"


def test_a_pending_change_in_a_folder_that_cannot_be_written_is_refused_in_one_line(two_places) -> None:
    first, _, bundle = two_places
    _killed_import(first, bundle)
    before = _files(first / "recs")
    (first / "recs").chmod(0o555)
    try:
        if os.access(first / "recs", os.W_OK):
            pytest.skip("run as root: a folder without write permission can still be written")
        refused = run("validate", "recs", cwd=first)
    finally:
        (first / "recs").chmod(0o755)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert "cannot be written to finish it" in refused.stderr
    assert _files(first / "recs") == before


# ---- a change of files in more than one folder ----------------------------------------------------------------


def test_a_change_over_two_folders_writes_a_part_in_the_other(tmp_path: Path) -> None:
    home, other = tmp_path / "recs", tmp_path / "out"
    home.mkdir()
    other.mkdir()
    change = Change(home / JOURNAL)
    change.write(home / "a.json", b"a")
    change.write(other / "b.json", b"b")
    change.commit()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.json", "b.json", "out", "recs"]


@pytest.mark.parametrize("point", ["change:parts-journaled", "change:journaled", "change:renamed-one",
                                   "change:renamed-all"])
def test_a_release_killed_at_each_point_is_finished_or_undone_by_a_reader(tmp_path: Path, point: str) -> None:
    """A release writes in three folders (records, its bundle folder, the changelog's): killed at each point,
    the next command that reads the records folder leaves every folder as the release left it, or as before."""
    work = tmp_path / "work"
    shutil.copytree(ROOT / "records", work / "records", ignore=shutil.ignore_patterns(".releases"))
    before = _records(work)
    killed = run("release", "--version", "2027-01-01T00:00:00Z", "--out", "out", cwd=work, ERRDEX_CRASH_AT=point)
    assert killed.returncode == -9, killed.stderr
    read = run("validate", "records", cwd=work)
    assert read.returncode == 0, read.stderr
    if point == "change:parts-journaled":  # the change was never made (its parts in out/ and work/ are dropped
        assert _records(work) == before   # by the next release, which writes there)
    else:
        assert not list(work.rglob(JOURNAL))
        assert "finished a change that process" in read.stderr
        assert (work / "CHANGELOG.md").exists() and len(list((work / "out").iterdir())) >= 3
    again = run("release", "--version", "2027-01-01T00:00:00Z", "--out", "out", cwd=work)
    assert again.returncode == 0, again.stderr
    assert leftovers(work) == []


def test_a_part_left_by_a_change_never_made_is_dropped(tmp_path: Path) -> None:
    part = tmp_path / "out"
    part.mkdir()
    (part / ".b.json.1-abcdefgh.tmp").write_text("b")
    _journal(part, [[".b.json.1-abcdefgh.tmp", "b.json"]], main=str(tmp_path / "recs"))
    assert "killed before making" in str(settle(part, what="test"))
    assert not (part / "b.json").exists() and read_journal(part / JOURNAL) is None


# ---- every command that changes records, killed at every point of its change ------------------------------------

POINTS = ["change:staged-one", "change:parts-journaled", "change:journaled", "change:renamed-one",
          "change:renamed-all"]


def _import_case(work: Path) -> tuple[str, ...]:
    shutil.copytree(ROOT / "records", work / "recs", ignore=shutil.ignore_patterns(".releases"))
    run("export", "--to", "jsonl", "--records", "recs", "--output", "all.jsonl", cwd=work)
    lines = (work / "all.jsonl").read_text(encoding="utf-8").splitlines()
    changed = [json.loads(line) for line in lines]
    for envelope in changed:
        envelope["record"]["documentation"] += " Changed."
    (work / "all.jsonl").write_text("".join(json.dumps(envelope) + "\n" for envelope in changed), encoding="utf-8")
    return ("import", "all.jsonl", "--records", "recs", "--overwrite")


def _migrate_case(work: Path) -> tuple[str, ...]:
    shutil.copytree(ROOT / "records", work / "recs", ignore=shutil.ignore_patterns(".releases"))
    return ("migrate", "--to", "4", "recs")


def _harvest_case(work: Path) -> tuple[str, ...]:
    repo = work / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.ts").write_text("".join(f'export function f{n}(ok: boolean) {{\n  if (!ok) throw new Error('
                                       f'"Widget {n} broke.");\n}}\n' for n in range(5)), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    (work / "recs").mkdir()
    return ("harvest", "repo", "--repo", "acme/app", "--rev", "HEAD", "--out", "recs")


def _sync_case(work: Path) -> tuple[str, ...]:
    _harvest_case(work)
    done = run("harvest", "repo", "--repo", "acme/app", "--rev", "HEAD", "--out", "recs", cwd=work, **EPOCH)
    assert done.returncode == 0, done.stderr
    text = (work / "repo" / "a.ts").read_text(encoding="utf-8")
    (work / "repo" / "a.ts").write_text("// moved\n" + text.replace("Widget 1 broke.", "Widget 1 broke badly."),
                                        encoding="utf-8")
    git(work / "repo", "commit", "-q", "-am", "two")
    return ("sync", "--source", "repo", "--rev", "HEAD", "--records", "recs", "--accept-reworded")


CASES = {"import": _import_case, "migrate": _migrate_case, "harvest": _harvest_case, "sync": _sync_case}


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("name", CASES)
def test_a_change_killed_at_any_point_is_read_as_before_or_after_and_never_half(tmp_path: Path, name: str,
                                                                                 point: str) -> None:
    reference, work = tmp_path / "reference", tmp_path / "work"
    for place in (reference, work):
        place.mkdir()
    command = CASES[name](reference)
    assert CASES[name](work) == command
    assert run(*command, cwd=reference, **EPOCH).returncode in (0, 1)
    before = _records(work / "recs")
    after = _records(reference / "recs")
    assert before != after
    killed = run(*command, cwd=work, ERRDEX_CRASH_AT=point, **EPOCH)
    assert killed.returncode == -9, killed.stderr
    read = run("validate", "recs", cwd=work)
    assert "Traceback" not in read.stderr and not list(work.rglob(JOURNAL)), read.stderr
    made = point not in ("change:staged-one", "change:parts-journaled")
    assert _records(work / "recs") == (after if made else before)
    assert ("finished a change that process" in read.stderr) == made
    again = run(*command, cwd=work, **EPOCH)
    assert again.returncode in (0, 1) and "Traceback" not in again.stderr, again.stderr
    assert _records(work / "recs") == after and leftovers(work) == []


def test_two_readers_at_once_finish_a_pending_change_once(two_places) -> None:
    first, _, bundle = two_places
    _killed_import(first, bundle)
    readers = [start("validate", "recs", cwd=first) for _ in range(2)]
    errors = [reader.communicate(timeout=120)[1] for reader in readers]
    assert [reader.returncode for reader in readers] == [0, 0], errors
    assert sum("finished a change that process" in error for error in errors) == 1
    changed = [data for data in _records(first / "recs").values() if b"Changed by the import." in data]
    assert len(changed) == len(bundle.read_text(encoding="utf-8").splitlines()) and leftovers(first) == []


def test_a_run_killed_while_it_finishes_a_change_leaves_it_for_the_next(two_places) -> None:
    first, _, bundle = two_places
    _killed_import(first, bundle)
    killed = run("validate", "recs", cwd=first, ERRDEX_CRASH_AT="recover:renamed-one")
    assert killed.returncode == -9 and (first / "recs" / JOURNAL).exists()
    done = run("export", "--to", "jsonl", "--records", "recs", "--output", "-", cwd=first)
    assert done.returncode == 0 and "finished a change that process" in done.stderr, done.stderr
    assert done.stdout.count("Changed by the import.") == len(bundle.read_text(encoding="utf-8").splitlines())
    assert leftovers(first) == []


def test_a_journal_above_the_records_is_finished_when_it_is_the_users_and_ignored_when_not(tmp_path: Path,
                                                                                             seed) -> None:
    write_envelope(tmp_path / "recs", seed)
    (tmp_path / JOURNAL).write_text("{not json")
    mine = run("validate", "recs", cwd=tmp_path)
    assert mine.returncode == 1 and f"{tmp_path / JOURNAL}: not the journal of an errdex change" in mine.stderr
    try:
        os.chown(tmp_path / JOURNAL, 65534, 65534)  # another user's, as in a shared /tmp
    except PermissionError:
        pytest.skip("only root can give a file to another user")
    theirs = run("validate", "recs", cwd=tmp_path)
    assert theirs.returncode == 0, theirs.stderr
