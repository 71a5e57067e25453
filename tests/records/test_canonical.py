from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from errdex.checks.registry import problem_label
from errdex.records.canonical import canonical_text, fmt, fmt_text
from tests.conftest import SEED_PATH, SHARED

#: Fields of the seed that proofs showed to be wrong or incomplete, rewritten in version 3.
SEED_CORRECTED = {
    "documentation", "triggerScenarios", "commonSituations", "solutions", "preventionTips", "tags",
    "contentChangedAt", "schemaVersion", "scenarios",
}


def test_bundled_seed_keeps_the_original_content() -> None:
    original_path = SHARED / "seeds" / "000_b8f3697582f6daa3.txt"
    if not original_path.exists():
        pytest.skip(f"the original seed is not at {original_path}")
    original = json.loads(original_path.read_text(encoding="utf-8"))["record"]
    bundled = json.loads(SEED_PATH.read_text(encoding="utf-8"))["record"]
    kept = {k: v for k, v in original.items() if k not in SEED_CORRECTED}
    assert {k: bundled[k] for k in kept} == kept
    assert set(original) <= set(bundled)
    assert bundled["schemaVersion"] == 3 and len(bundled["scenarios"]) >= 7


def test_canonical_text_orders_keys_and_is_idempotent(seed: dict[str, Any]) -> None:
    shuffled = {"datasetVersion": seed["datasetVersion"], "record": dict(reversed(list(seed["record"].items())))}
    text = canonical_text(shuffled)
    assert text == canonical_text(seed) == canonical_text(json.loads(text))
    assert text.startswith('{\n  "record": {\n    "id": ') and text.endswith("}\n")


def test_fmt_rewrites_and_check_reports(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps(seed))
    assert fmt([path], check=True).changed == [str(path)]
    assert path.read_text() == json.dumps(seed)
    assert fmt([path]).changed == [str(path)]
    assert path.read_text() == canonical_text(seed)
    assert fmt([path], check=True).changed == []
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temporary file left


def test_fmt_leaves_broken_files_alone(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"record": ')
    result = fmt([path])
    assert result.failed and result.failed[0][0] == str(path)
    assert path.read_text() == '{"record": '


def test_fmt_leaves_json_that_holds_no_record_alone(tmp_path: Path, seed: dict[str, Any]) -> None:
    # '[1,2,3]' was rewritten and counted as reformatted, while validate refuses it as not-a-record (EDX006)
    texts = {"list.json": "[1,2,3]\n", "other.json": '{"a":1}\n',
             "mixed.jsonl": canonical_text(seed, bundle_line=True) + '\n[1]\n'}
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    result = fmt([tmp_path])
    assert result.changed == [] and sorted((Path(path).name, line) for path, line, _, _ in result.failed) == \
        [("list.json", 1), ("mixed.jsonl", 2), ("other.json", 1)]
    assert all("not a record" in message for *_, message in result.failed)
    assert {name: (tmp_path / name).read_text() for name in texts} == texts
    assert fmt_text(b"[1,2,3]").text is None


def test_fmt_bundle_one_compact_line_per_record(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps(seed, indent=None) + "\n" + json.dumps(seed) + "\n")
    fmt([path])
    assert path.read_text() == (canonical_text(seed, bundle_line=True) + "\n") * 2


def test_non_ascii_stays_readable(seed: dict[str, Any]) -> None:
    assert "—" in canonical_text(seed)


def test_fmt_formats_a_file_named_twice_once(tmp_path: Path, seed: dict[str, Any]) -> None:
    bundle = tmp_path / "b.jsonl"
    other = json.loads(json.dumps(seed))
    other["record"]["id"] = "00000000000000aa"
    bundle.write_text(json.dumps(seed) + "\n\n" + json.dumps(other) + "\n")
    fmt([tmp_path, bundle])
    assert len(bundle.read_text().splitlines()) == 2
    assert fmt([tmp_path, bundle], check=True).changed == []


@pytest.mark.parametrize(
    ("before", "after", "code"),
    [
        ('"httpStatus": null', '"httpStatus": null, "httpStatus": 404', "EDX004"),
        ('"httpStatus": null', '"httpStatus": 1e999', "EDX003"),
        ('"httpStatus": null', '"httpStatus": NaN', "EDX003"),
        ('"lineNumber": 197', '"lineNumber": 100000000000000000000', "EDX008"),
        ('"errorCode": null', '"errorCode": "\\ud800"', "EDX009"),
    ],
)
def test_fmt_refuses_what_validate_reports_as_a_parse_finding(tmp_path: Path, seed: dict[str, Any], before: str,
                                                              after: str, code: str) -> None:
    path = tmp_path / "x.json"
    text = json.dumps(seed, indent=4).replace(before, after)
    assert after in text
    path.write_text(text, encoding="utf-8")
    for check in (True, False):
        result = fmt([path], check=check, label=problem_label)
        assert result.changed == [] and result.unchanged == []
        assert [(p, m.split()[0]) for p, _, _, m in result.failed] == [(str(path), code)]
    assert path.read_text(encoding="utf-8") == text


def test_fmt_of_a_text_is_the_canonical_form(seed: dict[str, Any]) -> None:
    done = fmt_text(json.dumps(seed).encode())
    assert done.text == canonical_text(seed) and done.changed and not done.failed
    assert not fmt_text(canonical_text(seed).encode()).changed
    line = canonical_text(seed, bundle_line=True)
    assert fmt_text(f"{line}\n{json.dumps(seed)}\n".encode()).text == f"{line}\n{line}\n"
    refused = fmt_text(b'{"a": 1, "a": 2}', label=problem_label)
    assert refused.text is None and refused.failed[0][2].startswith("EDX004 duplicate-key: ")
    assert fmt_text(b'{"a": 1, "a": 2}').failed[0][2].startswith("duplicate-key: ")  # no registry: the kind


def test_fmt_dash_reads_stdin_and_writes_stdout(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    compact = json.dumps(seed)
    result = cli("fmt", "-", input=compact)
    assert result.exit_code == 0 and result.stdout == canonical_text(seed)
    assert not list(tmp_path.iterdir()) and not Path("-").exists()
    assert cli("fmt", "--check", "-", input=compact).exit_code == 1
    assert cli("fmt", "--check", "-", input=compact).stdout == ""
    assert cli("fmt", "--check", "-", input=canonical_text(seed)).exit_code == 0
    empty = cli("fmt", "-", input="")
    assert empty.exit_code == 1 and "<stdin>:1:1: cannot format: EDX005" in empty.stderr
    mixed = cli("fmt", "-", str(tmp_path))
    assert mixed.exit_code == 2 and mixed.stderr.count("\n") == 1


def test_fmt_never_writes_through_a_folder_link_out_of_the_tree(tmp_path: Path, seed: dict[str, Any]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text(json.dumps(seed), encoding="utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "inside.json").write_text(json.dumps(seed), encoding="utf-8")
    (tree / "linked").symlink_to(outside, target_is_directory=True)
    result = fmt([tree])
    assert result.changed == [str(tree / "inside.json")]
    assert [(p, "symbolic link" in m) for p, _, _, m in result.failed] == [(str(tree / "linked" / "x.json"), True)]
    assert (outside / "x.json").read_text(encoding="utf-8") == json.dumps(seed)
    assert fmt([outside / "x.json"]).changed == [str(outside / "x.json")]  # named itself, it is formatted


def test_fmt_formats_a_gzipped_bundle_it_is_given(tmp_path: Path, seed: dict[str, Any], cli) -> None:
    """A gzipped bundle named on the command line is checked and formatted like a plain one (as migrate
    rewrites it), never skipped with '0 file(s)' and exit 0."""
    bundle = tmp_path / "dump.jsonl.gz"
    bundle.write_bytes(gzip.compress((json.dumps(seed, indent=1) .replace("\n", "") + "\r\n").encode()))
    result = cli("fmt", "--check", str(bundle))
    assert result.exit_code == 1 and "1 file(s) would reformat" in result.stderr, result.stderr
    assert cli("fmt", str(bundle)).exit_code == 0
    assert gzip.decompress(bundle.read_bytes()).decode() == canonical_text(seed, bundle_line=True) + "\n"
    again = fmt([bundle], check=True)
    assert again.changed == [] and again.unchanged == [str(bundle)]


def test_fmt_through_a_link_inside_the_tree_rewrites_the_file_it_points_at(tmp_path: Path,
                                                                          seed: dict[str, Any]) -> None:
    """fmt replaced such a link with a formatted copy and left the real file as it was: two files, one record
    twice. migrate already rewrites the file a link points at; fmt does the same."""
    tree = tmp_path / "tree"
    (tree / "z").mkdir(parents=True)
    (tree / "z" / "real.json").write_text(json.dumps(seed), encoding="utf-8")
    (tree / "a.json").symlink_to(Path("z") / "real.json")
    fmt([tree])
    assert (tree / "a.json").is_symlink()
    assert (tree / "z" / "real.json").read_text(encoding="utf-8") == canonical_text(seed)
