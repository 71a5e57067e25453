"""Migrating records between format versions: in memory, in files, and in the loader."""

from __future__ import annotations

import copy
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.errors import DataError, UsageError
from errdex.records import migrate as migration
from errdex.records import versions
from errdex.records.canonical import canonical_text, canonical_value
from errdex.records.loader import load_records
from errdex.records.migrate import LATEST, Loss, MigrationRefused, downgrade, migrate, migrate_record, upgrade
from errdex.records.models import RECORD_MODELS, SEVERITIES, RecordV2, RecordV3
from errdex.records.slug import derive_slug
from tests.conftest import ROOT, write_envelope
from tests.processes import leftovers, run

SEED_V2 = json.loads((ROOT / "tests/corpus/v2/seed.json").read_text(encoding="utf-8"))
SEED_V3 = json.loads((ROOT / "tests/corpus/v3/seed.json").read_text(encoding="utf-8"))
SEED_V3_SCENARIOS = [scenario["id"] for scenario in SEED_V3["record"]["scenarios"]]


def variant(envelope: dict[str, Any], number: int) -> dict[str, Any]:
    """A copy that is another record: its own id, message and slug, so that a folder of them validates."""
    other = copy.deepcopy(envelope)
    record = other["record"]
    record["id"] = f"{number:016x}"
    message = f"Variant {number}: {record['errorMessage']}"
    record["sourceCode"] = record["sourceCode"].replace(record["errorMessage"], message)
    record["errorMessage"] = message
    record["messagePattern"] = f"Variant {number}: {record['messagePattern']}"
    record["slug"] = derive_slug(record["errorMessage"])
    return other


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


# --- one record -----------------------------------------------------------------------------------------------

KEBAB = st.from_regex(r"\A[a-z0-9]+(-[a-z0-9]+)*\Z")
TEXT = st.text(min_size=1, max_size=40)


@st.composite
def v2_records(draw: st.DrawFn) -> dict[str, Any]:
    """Valid version-2 records: the seed with its text, lists and nullable fields varied, keys in any order."""
    record = copy.deepcopy(SEED_V2["record"])
    for name in ("errorClass", "documentation", "triggerScenarios", "commonSituations", "exampleFix",
                 "typeGuard", "tryCatchPattern", "filePath"):
        record[name] = draw(TEXT)
    for name in ("errorCode", "validationCode"):
        record[name] = draw(st.none() | st.text(max_size=20))
    record["httpStatus"] = draw(st.none() | st.integers(100, 599))
    record["severity"] = draw(st.sampled_from(SEVERITIES))
    record["lineNumber"] = draw(st.integers(1, 10**6))
    record["solutions"] = draw(st.lists(TEXT, min_size=1, max_size=4))
    record["preventionTips"] = draw(st.lists(TEXT, max_size=4))
    record["tags"] = draw(st.lists(KEBAB, max_size=4, unique=True))
    if draw(st.booleans()):
        record = {name: record[name] for name in draw(st.permutations(list(record)))}
    RecordV2.model_validate(record)
    return record


@settings(max_examples=150, deadline=None)
@given(v2_records())
def test_v2_to_v3_to_v2_returns_the_original_field_for_field(record: dict[str, Any]) -> None:
    original = copy.deepcopy(record)
    upgraded = upgrade(record, 3)
    RecordV3.model_validate(upgraded)
    assert upgraded["schemaVersion"] == 3 and upgraded["scenarios"] == []
    back, losses = downgrade(upgraded, 2)
    assert losses == []
    assert back == original and list(back) == list(original)  # same values, same key order
    assert record == original  # the input was not changed


def test_upgrade_puts_scenarios_where_the_canonical_form_has_it() -> None:
    upgraded = upgrade(SEED_V2["record"], 3)
    assert list(upgraded) == list(canonical_value(upgraded))
    assert list(upgraded)[-2:] == ["schemaVersion", "scenarios"]
    assert upgraded is not SEED_V2["record"] and SEED_V2["record"]["schemaVersion"] == 2


def test_v3_to_v2_reports_every_field_that_holds_data() -> None:
    record = copy.deepcopy(SEED_V3["record"])
    record.update(status="superseded", statusReason="Merged into\nthe other record.", supersededBy="00000000000000aa")
    downgraded, losses = downgrade(record, 2)
    assert losses == [
        Loss("scenarios", f"{len(SEED_V3_SCENARIOS)} scenarios: {', '.join(SEED_V3_SCENARIOS)}"),
        Loss("status", "superseded"),
        Loss("statusReason", '"Merged into\\nthe other record."'),
        Loss("supersededBy", "00000000000000aa"),
    ]
    assert all("\n" not in str(loss) for loss in losses)
    assert set(downgraded) == set(RecordV2.model_fields) and downgraded["schemaVersion"] == 2
    RecordV2.model_validate(downgraded)
    assert record["schemaVersion"] == 3 and record["scenarios"]  # the input was not changed


def test_one_scenario_is_named_in_the_singular() -> None:
    record = {**SEED_V3["record"], "scenarios": SEED_V3["record"]["scenarios"][:1]}
    assert downgrade(record, 2)[1] == [Loss("scenarios", f"1 scenario: {SEED_V3_SCENARIOS[0]}")]


@pytest.mark.parametrize("defaults", [
    {},
    {"status": "active"},
    {"status": "active", "statusReason": None, "supersededBy": None},
])
def test_fields_at_their_defaults_are_no_loss(defaults: dict[str, Any]) -> None:
    record = {**SEED_V3["record"], "scenarios": [], **defaults}
    downgraded, losses = downgrade(record, 2)
    assert losses == []
    kept = {name: value for name, value in record.items() if name not in migration.ADDED_IN_3}
    assert downgraded == kept | {"schemaVersion": 2} and list(downgraded) == list(kept)


def test_migrate_record_chooses_the_direction() -> None:
    assert migrate_record(SEED_V2["record"], 3) == (upgrade(SEED_V2["record"], 3), [])
    assert migrate_record(SEED_V3["record"], 2) == downgrade(SEED_V3["record"], 2)
    assert migrate_record(SEED_V3["record"], 3) == (SEED_V3["record"], [])


@pytest.mark.parametrize("to", [1, 5, 7, True, "3"])
def test_unsupported_target_is_a_usage_error(to: Any) -> None:
    for call in (lambda: upgrade(SEED_V2["record"], to), lambda: downgrade(SEED_V3["record"], to),
                 lambda: migrate_record(SEED_V2["record"], to),
                 lambda: migrate([ROOT / "tests/corpus/v2/seed.json"], to)):
        with pytest.raises(UsageError, match="cannot migrate to version"):
            call()


def test_wrong_direction_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="use downgrade"):
        upgrade(SEED_V3["record"], 2)
    with pytest.raises(UsageError, match="use upgrade"):
        downgrade(SEED_V2["record"], 3)


def test_every_version_has_its_steps_and_every_added_field_is_accounted_for() -> None:
    assert max(RECORD_MODELS) == LATEST
    assert set(versions._UP) == set(range(min(RECORD_MODELS), LATEST))
    assert set(versions._DOWN) == set(range(min(RECORD_MODELS) + 1, LATEST + 1))
    added = [name for name in RecordV3.model_fields if name not in RecordV2.model_fields]
    assert list(migration.ADDED_IN_3) == added


# --- files ----------------------------------------------------------------------------------------------------


@pytest.fixture
def v2_folder(tmp_path: Path) -> Path:
    """Three valid version-2 records in their canonical places; one of them not in canonical form."""
    root = tmp_path / "records"
    for number in (1, 2, 3):
        write_envelope(root, variant(SEED_V2, number))
    messy = root / "paperclipai/paperclip" / f"{variant(SEED_V2, 3)['record']['slug']}.json"
    messy.write_text(json.dumps(json.loads(messy.read_text()), indent=4, ensure_ascii=True), encoding="utf-8")
    return root


def test_migrate_up_rewrites_files_atomically_and_canonically(v2_folder: Path, cli) -> None:
    inodes = {path: path.stat().st_ino for path in v2_folder.rglob("*.json")}
    report = migrate([v2_folder], 3)
    assert report.applied and len(report.changed) == 3 and report.losses == []
    assert all(file.from_versions == (2,) and file.records == 1 for file in report.files)
    for path, inode in inodes.items():
        value = json.loads(path.read_text(encoding="utf-8"))
        assert value["record"]["schemaVersion"] == 3 and value["record"]["scenarios"] == []
        assert path.read_text(encoding="utf-8") == canonical_text(value)
        assert path.stat().st_ino != inode  # replaced by a rename, not written over
    assert sorted(p.name for p in v2_folder.rglob("*")) == sorted(
        ["paperclipai", "paperclip", *(p.name for p in inodes)])  # no temporary file left
    assert cli("fmt", "--check", str(v2_folder)).exit_code == 0
    validated = cli("validate", str(v2_folder))
    assert validated.exit_code == 0, validated.stdout


def test_migrate_is_idempotent(v2_folder: Path) -> None:
    migrate([v2_folder], 3)
    before = snapshot(v2_folder)
    again = migrate([v2_folder], 3)
    assert again.changed == [] and len(again.unchanged) == 3
    assert snapshot(v2_folder) == before


def test_up_then_down_gives_back_the_same_bytes(v2_folder: Path) -> None:
    migrate([v2_folder], 3)  # canonical from here on
    canonical = snapshot(v2_folder)
    migrate([v2_folder], 2)
    migrate([v2_folder], 3)
    assert snapshot(v2_folder) == canonical


def test_check_writes_nothing(v2_folder: Path) -> None:
    before = snapshot(v2_folder)
    report = migrate([v2_folder], 3, check=True)
    assert not report.applied and len(report.changed) == 3
    assert snapshot(v2_folder) == before


def test_losing_data_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    lossless = variant(SEED_V3, 1)
    lossless["record"]["scenarios"] = []
    withdrawn = variant(SEED_V3, 2)
    withdrawn["record"].update(status="withdrawn", statusReason="Removed upstream.")
    first = write_envelope(tmp_path, lossless)
    second = write_envelope(tmp_path, withdrawn)
    third = write_envelope(tmp_path, variant(SEED_V3, 3))
    before = snapshot(tmp_path)
    with pytest.raises(MigrationRefused) as refused:
        migrate([tmp_path], 2)
    assert isinstance(refused.value, DataError)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{second}: migrating to version 2 would drop data from record ")
    assert "scenarios (14 scenarios: " in message and "status (withdrawn)" in message and "--allow-loss" in message
    assert "1 more file(s) would lose data" in message
    assert [(path, record_id, loss.field) for path, record_id, loss in refused.value.report.losses] == [
        (str(second), "0000000000000002", "scenarios"),
        (str(second), "0000000000000002", "status"),
        (str(second), "0000000000000002", "statusReason"),
        (str(third), "0000000000000003", "scenarios"),
    ]
    assert snapshot(tmp_path) == before
    assert first.exists()

    report = migrate([tmp_path], 2, allow_loss=True)
    assert report.applied and len(report.changed) == 3 and len(report.losses) == 4
    for record in load_records([tmp_path]):
        assert record.record["scenarios"] == []  # loaded back (upgraded in memory) ...
    for path in (first, second, third):
        on_disk = json.loads(path.read_text(encoding="utf-8"))["record"]
        # ... but version 2 on disk
        assert on_disk["schemaVersion"] == 2 and not set(migration.ADDED_IN_3) & set(on_disk)


def test_invalid_record_is_refused_with_its_location_and_nothing_is_written(tmp_path: Path) -> None:
    write_envelope(tmp_path, variant(SEED_V2, 1))
    broken = variant(SEED_V2, 2)
    broken["record"]["httpStatus"] = 42
    path = write_envelope(tmp_path, broken)
    before = snapshot(tmp_path)
    with pytest.raises(DataError) as failed:
        migrate([tmp_path], 3)
    message = str(failed.value)
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(lines, 1) if '"httpStatus": 42' in text)
    column = lines[line - 1].index("42") + 1
    assert message.startswith(f"{path}:{line}:{column}: /record/httpStatus: ") and "run 'errdex validate'" in message
    assert snapshot(tmp_path) == before


def test_unparseable_file_is_refused_with_its_location(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"record": {"id": }}', encoding="utf-8")
    with pytest.raises(DataError, match=rf"^{path}:1:19: "):
        migrate([path], 3)
    assert path.read_text(encoding="utf-8") == '{"record": {"id": }}'


def test_stdin_cannot_be_migrated() -> None:
    with pytest.raises(UsageError, match="stdin"):
        migrate(["-"], 3)


def test_bundle_becomes_one_canonical_line_per_envelope(tmp_path: Path, cli) -> None:
    bundle = tmp_path / "records.jsonl"
    lines = [json.dumps(variant(SEED_V2, 1), indent=None), "", json.dumps(variant(SEED_V3, 2))]
    bundle.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = migrate([bundle], 3)
    assert [(f.path, f.from_versions, f.records, f.changed) for f in report.files] == [(str(bundle), (2, 3), 2, True)]
    written = bundle.read_text(encoding="utf-8").splitlines()
    assert len(written) == 2
    assert written == [canonical_text(json.loads(line), bundle_line=True) for line in written]
    assert [json.loads(line)["record"]["schemaVersion"] for line in written] == [3, 3]
    assert json.loads(written[1]) == variant(SEED_V3, 2)  # the record already at version 3 is kept as it was
    assert cli("fmt", "--check", str(bundle)).exit_code == 0
    assert migrate([bundle], 3).changed == []


def test_gzipped_bundle_is_written_gzipped_without_a_timestamp(tmp_path: Path) -> None:
    bundle = tmp_path / "records.jsonl.gz"
    bundle.write_bytes(gzip.compress(b"".join(json.dumps(variant(SEED_V2, n)).encode() + b"\n" for n in (1, 2))))
    migrate([bundle], 3)
    data = bundle.read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0"  # gzip, mtime 0: the same records give the same bytes
    assert [r.record["schemaVersion"] for r in load_records([bundle])] == [3, 3]
    lines = gzip.decompress(data).decode("utf-8").splitlines()
    assert lines == [canonical_text(json.loads(line), bundle_line=True) for line in lines]
    migrate([bundle], 2)
    migrate([bundle], 3)
    assert bundle.read_bytes() == data


def test_a_file_named_twice_is_migrated_once(tmp_path: Path) -> None:
    path = write_envelope(tmp_path, variant(SEED_V2, 1))
    report = migrate([tmp_path, path], 3)
    assert [file.path for file in report.files] == [str(path)]
    assert json.loads(path.read_text(encoding="utf-8"))["record"]["schemaVersion"] == 3


def test_bare_record_stays_bare(tmp_path: Path) -> None:
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(SEED_V2["record"]), encoding="utf-8")
    migrate([path], 3)
    assert path.read_text(encoding="utf-8") == canonical_text(upgrade(SEED_V2["record"], 3))


def test_loader_upgrades_version_2_in_memory(tmp_path: Path) -> None:
    path = write_envelope(tmp_path, variant(SEED_V2, 1))
    before = path.read_bytes()
    (loaded,) = load_records([path])
    assert loaded.record["schemaVersion"] == 3 and loaded.record["scenarios"] == []
    assert loaded.record == upgrade(variant(SEED_V2, 1)["record"], 3)
    assert path.read_bytes() == before


def test_a_migration_killed_half_way_is_finished_by_the_next_run(tmp_path: Path) -> None:
    folder = tmp_path / "records"

    def on_disk() -> list[int]:
        return sorted(json.loads(p.read_text())["record"]["schemaVersion"]
                      for p in folder.rglob("*.json") if not p.name.startswith("."))

    for number in range(4):
        write_envelope(folder, variant(SEED_V2, number))
    killed = run("migrate", "--to", "3", "records", cwd=tmp_path, ERRDEX_CRASH_AT="change:renamed-one")
    assert killed.returncode == -9
    assert on_disk() == [2, 2, 2, 3] and leftovers(folder)  # half migrated (any command reading them finishes it)
    again = run("migrate", "--to", "3", "records", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "finished a change that process" in again.stderr and "3 of 4 file(s)" in again.stderr
    assert on_disk() == [3] * 4
    assert leftovers(folder) == []


def test_migrate_never_writes_through_a_folder_link_out_of_the_tree(tmp_path, seed) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text(json.dumps(seed), encoding="utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(DataError, match="symbolic link that leaves the folder given"):
        migrate([tree], 3)
    assert (outside / "x.json").read_text(encoding="utf-8") == json.dumps(seed)
    assert migrate([outside / "x.json"], 3).applied  # named itself, it is migrated


# --- version 4: drafts ----------------------------------------------------------------------------------------

SEED_V4 = json.loads((ROOT / "tests/corpus/v4/seed.json").read_text(encoding="utf-8"))
DRAFT_V4 = json.loads((ROOT / "tests/corpus/v4/draft-empty-prose.json").read_text(encoding="utf-8"))


def test_v3_to_v4_changes_only_the_version_and_back_again() -> None:
    record = SEED_V3["record"]
    upgraded = upgrade(record, 4)
    assert upgraded == {**record, "schemaVersion": 4} and list(upgraded) == list(record)
    assert downgrade(upgraded, 3) == (record, [])
    assert upgrade(SEED_V2["record"]) == upgrade(upgrade(SEED_V2["record"], 3), 4)


def test_a_draft_does_not_go_down_to_3_even_when_loss_is_allowed(tmp_path: Path) -> None:
    with pytest.raises(versions.DraftRefused, match=f"record {DRAFT_V4['record']['id']} is a draft"):
        downgrade(DRAFT_V4["record"], 3)
    path = tmp_path / "draft.json"
    path.write_text(canonical_text(DRAFT_V4), encoding="utf-8")
    before = path.read_bytes()
    for allow_loss in (False, True):
        with pytest.raises(DataError, match=rf"^{re.escape(str(path))}: record \w+ is a draft.*nothing was written$"):
            migrate([path], 3, allow_loss=allow_loss)
        assert path.read_bytes() == before


def test_migrate_cli_to_4_and_refusal_to_3(tmp_path: Path, cli: Any) -> None:
    folder = tmp_path / "records"
    write_envelope(folder, variant(SEED_V3, 1))
    result = cli("migrate", "--to", "4", str(folder))
    assert result.exit_code == 0, result.stderr
    (path,) = folder.rglob("*.json")
    assert json.loads(path.read_text(encoding="utf-8"))["record"]["schemaVersion"] == 4
    draft = folder / "draft.json"
    draft.write_text(canonical_text(DRAFT_V4), encoding="utf-8")
    result = cli("migrate", "--to", "3", "--allow-loss", str(folder))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and str(draft) in result.stderr
    assert json.loads(path.read_text(encoding="utf-8"))["record"]["schemaVersion"] == 4  # nothing was written


def test_loader_loads_drafts_and_keeps_version_3_at_3(tmp_path: Path) -> None:
    old = write_envelope(tmp_path, variant(SEED_V3, 1))
    draft = tmp_path / "draft.json"
    draft.write_text(canonical_text(DRAFT_V4), encoding="utf-8")
    loaded = {item.path: item.record for item in load_records([tmp_path])}
    assert loaded[str(old)]["schemaVersion"] == 3
    assert loaded[str(draft)] == DRAFT_V4["record"]


def test_an_active_version_4_record_with_empty_prose_is_refused_by_the_loader(tmp_path: Path) -> None:
    path = tmp_path / "active.json"
    path.write_text(canonical_text({**DRAFT_V4, "record": {**DRAFT_V4["record"], "status": "active"}}),
                    encoding="utf-8")
    with pytest.raises(DataError, match=r"active\.json:\d+:\d+: /record/documentation: String should have"):
        load_records([path])


def test_a_record_the_lower_version_cannot_hold_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    # 'migrate --to 3' wrote sshd scenarios into version 3 files, which every command then refused
    folder = tmp_path / "records"
    sshd = sorted((ROOT / "records" / "openssh" / "openssh-portable").glob("*.json"))[0]
    (folder / "a").mkdir(parents=True)
    (folder / "a" / sshd.name).write_bytes(sshd.read_bytes())
    before = {path: path.read_bytes() for path in folder.rglob("*.json")}
    for check in (False, True):
        with pytest.raises(DataError, match=r"cannot be written at version 3: /record/scenarios/0/call/operation: "
                                            r".*; nothing was written$"):
            migrate([folder], 3, allow_loss=True, check=check)
    assert {path: path.read_bytes() for path in folder.rglob("*.json")} == before
    assert leftovers(folder) == []
