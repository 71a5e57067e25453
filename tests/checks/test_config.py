from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from errdex import validate
from errdex.checks.config import find_config, load_config, resolve_checks
from errdex.errors import ConfigError, UsageError
from errdex.records.canonical import canonical_text
from tests.conftest import write_envelope

# Not a test of the cache: these validate or load the bundled records again and again, and share one cache of
# them for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")


def _broken(tmp_path: Path, seed: dict[str, Any]) -> Path:
    seed["record"]["httpStatus"] = 700
    seed["record"]["tags"] = ["Bad"]
    return write_envelope(tmp_path / "records", seed)


def test_codes_and_names_resolve() -> None:
    chosen = resolve_checks(["EDX154", "tag-format", "edx101,id-unique"], origin="x")
    assert chosen == {"EDX154", "EDX151", "EDX101", "EDX102"}


def test_unknown_check_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown check 'EDX999'"):
        resolve_checks(["EDX999"], origin="--select")


def test_select_and_ignore(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = _broken(tmp_path, seed)
    # The schema's objection to the tag stays: what no command can load is always reported.
    assert {(f.code, f.pointer) for f in validate([path], select=["http-status"]).findings} == \
        {("EDX154", "/record/httpStatus"), ("EDX010", "/record/tags/0")}
    # Ignoring the semantic check leaves the schema's own objection to the value.
    remaining = {(f.code, f.pointer) for f in validate([path], ignore=["EDX154"]).findings}
    assert remaining == {("EDX151", "/record/tags/0"), ("EDX010", "/record/httpStatus")}
    # The schema's finding says the record cannot be loaded at all: it runs whatever is ignored.
    assert {f.code for f in validate([path], ignore=["EDX154", "EDX010"]).findings} == {"EDX151", "EDX010"}


def test_per_record_ignores_from_errdex_toml(tmp_path: Path, seed: dict[str, Any],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = _broken(tmp_path, seed)
    (tmp_path / "errdex.toml").write_text('[per-record-ignores]\n"2715d7d48ff9726c" = ["http-status"]\n')
    monkeypatch.chdir(tmp_path)
    assert find_config(tmp_path) == tmp_path / "errdex.toml"
    assert {f.code for f in validate([path]).findings} == {"EDX151", "EDX010"}


def test_per_record_ignores_by_slug_in_pyproject(tmp_path: Path, seed: dict[str, Any]) -> None:
    path = _broken(tmp_path, seed)
    config = tmp_path / "pyproject.toml"
    config.write_text(
        '[tool.errdex]\nignore = ["EDX151", "EDX010"]\n[tool.errdex.per-record-ignores]\n'
        '"createos-process-creation-could-not-be-confirmed-destroy-the" = ["EDX154"]\n'
    )
    assert {(f.code, f.pointer) for f in validate([path], config=config).findings} == \
        {("EDX010", "/record/httpStatus"), ("EDX010", "/record/tags/0")}


def test_strict_turns_warnings_into_errors(tmp_path: Path) -> None:
    config = tmp_path / "errdex.toml"
    config.write_text("strict = true\n")
    assert load_config(config).strict is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("select = [", "not valid TOML"),
        ("colour = 1", "unknown key 'colour'"),
        ('ignore = ["EDX999"]', "unknown check 'EDX999'"),
        ("strict = 1", "strict must be true or false"),
        ("ignore = 3", "must be a list"),
        ('[per-record-ignores]\nabc = ["nope"]', "unknown check 'nope'"),
    ],
)
def test_broken_configuration_is_a_config_error(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "errdex.toml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(config)


def test_a_configuration_that_is_a_fifo_a_device_or_too_deep_is_refused_at_once(tmp_path: Path, cli) -> None:
    fifo = tmp_path / "errdex.toml"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    broken = tmp_path / "bytes.toml"
    broken.write_bytes(b"\xffstrict = true\n")
    for config, expected in ((fifo, "not a regular file"), ("/dev/zero", "not a regular file"),
                             (deep, "not valid TOML: nested too deep"), (broken, "not UTF-8 (byte 1)")):
        # a FIFO waited forever and /dev/zero was read until memory ran out
        result = cli("validate", "--config", str(config))
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"{config}: {expected}" in result.stderr and "codec" not in result.stderr


@pytest.mark.parametrize("how", ["select", "ignore", "config", "per-record"])
def test_what_every_command_refuses_cannot_be_ignored(tmp_path: Path, seed: dict[str, Any], how: str) -> None:
    """A record that index, export, release and prove refuse to load is never validated clean, whatever checks
    are chosen: the parse and schema findings (EDX001-EDX011) always run."""
    seed["record"]["httpStatus"] = 700
    seed["record"]["lineNumber"] = 10**20
    path = write_envelope(tmp_path / "records", seed)
    codes = "EDX008,EDX010,EDX154,EDX133"
    config = tmp_path / "errdex.toml"
    listed = repr(codes.split(",")).replace("'", '"')
    config.write_text({"config": f"ignore = {listed}\n",
                       "per-record": f'[per-record-ignores]\n"2715d7d48ff9726c" = {listed}\n'}
                      .get(how, ""))
    report = validate([path], config=config, select=["EDX113"] if how == "select" else None,
                      ignore=[codes] if how == "ignore" else None)
    assert not report.ok
    assert "EDX008" in {f.code for f in report.findings}


def test_import_never_writes_a_record_no_command_can_load_whatever_errdex_toml_ignores(
        tmp_path: Path, seed: dict[str, Any], cli, monkeypatch: pytest.MonkeyPatch) -> None:
    seed["record"]["httpStatus"] = 700
    (tmp_path / "dump.jsonl").write_text(canonical_text(seed, bundle_line=True) + "\n")
    (tmp_path / "errdex.toml").write_text('ignore = ["EDX010", "EDX154"]\n')
    monkeypatch.chdir(tmp_path)
    result = cli("import", "--records", "records", "dump.jsonl")
    assert result.exit_code == 1 and "EDX010" in result.stdout + result.stderr
    assert not (tmp_path / "records").exists() or not list((tmp_path / "records").rglob("*.json"))


@pytest.mark.parametrize("name", ["errdex.toml", "pyproject.toml"])
def test_a_configuration_saved_with_a_bom_is_read(tmp_path: Path, seed: dict[str, Any], name: str) -> None:
    """Editors on Windows save UTF-8 with a BOM: errdex.toml was 'not valid TOML' at 1:1, and a pyproject.toml was
    skipped without a word, its ignores not applied."""
    path = _broken(tmp_path, seed)
    table = "[tool.errdex]\r\n" if name == "pyproject.toml" else ""
    (tmp_path / name).write_bytes(f"\ufeff{table}ignore = [\"EDX151\"]\r\n".encode())
    assert find_config(tmp_path) == tmp_path / name
    assert "EDX151" not in {f.code for f in validate([path], config=tmp_path / name).findings}
