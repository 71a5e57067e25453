from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import errdex
from errdex import __version__
from errdex.cli import COMMANDS
from tests.conftest import ROOT, write_envelope

# Not a test of the cache: these validate or load the bundled records again and again, and share one cache of
# them for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")


def test_version(cli) -> None:
    result = cli("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"errdex {__version__}"


GROUPS = {"site": ["build", "serve"], "executor": ["serve"]}


@pytest.mark.parametrize("command", [[], *[[name] for name in sorted(COMMANDS)],
                                     *[[group, sub] for group, subs in GROUPS.items() for sub in subs]])
def test_every_help_has_an_example(cli, command: list[str]) -> None:
    result = cli(*command, "--help")
    assert result.exit_code == 0
    assert "Example:" in result.stdout


@pytest.mark.parametrize(
    "args",
    [["nope"], ["validate", "--format", "xml"], ["validate", "--select", "EDX999"], ["validate", "--bogus"]],
)
def test_usage_errors_are_one_line_and_exit_2(cli, args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith("errdex: error: ") and result.stderr.count("\n") == 1
    assert result.stdout == ""


def test_bundled_dataset_is_clean_in_strict_mode(cli) -> None:
    result = cli("validate", "--strict", "--format", "json")
    assert result.exit_code == 0, result.stdout
    # EDX136 empty-source stays a warning with --strict until the bundled records get their harvested excerpts
    assert [f for f in result.json() if f["code"] != "EDX136" or f["severity"] != "warning"] == []


def test_stdin(cli, seed: dict[str, Any]) -> None:
    seed["record"]["httpStatus"] = 42
    result = cli("validate", "-", "--format", "json", input=json.dumps(seed))
    assert result.exit_code == 1
    assert [(f["code"], f["path"]) for f in result.json()] == [("EDX154", "<stdin>")]


def test_text_github_and_sarif_outputs(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    seed["record"]["httpStatus"] = 42
    path = write_envelope(tmp_path, seed)
    text = cli("validate", str(path))
    assert text.stdout.startswith(f"{path}:") and ": EDX154 http-status: " in text.stdout
    assert "\x1b[" not in text.stdout  # not a terminal: no color
    assert "1 error(s)" in text.stderr
    github = cli("validate", str(path), "--format", "github").stdout
    assert github.startswith(f"::error file={path},line=") and "title=EDX154 http-status::" in github
    sarif = json.loads(cli("validate", str(path), "--format", "sarif").stdout)
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["EDX154"]
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules[results[0]["ruleIndex"]]["id"] == "EDX154"


def test_quiet_prints_only_data(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    path = write_envelope(tmp_path, seed)
    result = cli("validate", str(path), "--quiet")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def test_hostile_inputs_never_give_a_traceback(cli, tmp_path: Path) -> None:
    (tmp_path / "binary.json").write_bytes(os.urandom(4096))
    (tmp_path / "deep.json").write_bytes(b"[" * 200_000)
    (tmp_path / "deep2.json").write_bytes(b'{"record":' * 50_000 + b"1" + b"}" * 50_000)
    (tmp_path / "nul.json").write_bytes(b'{"record": {"id": "\x00"}}')
    (tmp_path / "folder.json").mkdir()
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "bundle.jsonl").write_bytes(b"\xff\n{}\n[]\n" + b"{" * 10 + b"\n")
    result = cli("validate", str(tmp_path), "--format", "json")
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    paths = {Path(f["path"]).name for f in result.json()}
    assert {"binary.json", "deep.json", "deep2.json", "nul.json", "pipe.json", "bundle.jsonl"} <= paths


def test_console_script_works_from_any_folder(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("errdex")
    result = subprocess.run([str(script), "validate"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "53 records in 53 documents: 0 error(s)" in result.stderr  # 13 warnings: EDX136 empty-source


def test_pre_commit_hooks_are_declared() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: errdex-validate" in text and "entry: errdex validate" in text


def test_every_public_name_resolves() -> None:
    assert all(getattr(errdex, name) is not None for name in errdex.__all__)
    with pytest.raises(AttributeError):
        errdex.no_such_name  # noqa: B018  (the lookup itself is what raises)


#: Modules a one-line ``match`` or ``explain`` on cached records must not import: each is made lazy for start-up
#: time (decompressors, forking, the pager, the record parser and models, OpenSSL's hashlib, click's suggestions).
NOT_ON_ONE_LINE_PATHS = ("difflib", "pickle", "gzip", "bz2", "lzma", "zlib", "select", "signal", "subprocess",
                         "shlex", "hashlib", "_hashlib", "pydantic", "jsonschema", "errdex.records.jsontext",
                         "errdex.records.problems", "errdex.records.models", "errdex.records.slug",
                         "errdex.records.duplicates", "errdex.checks")
_MODULES_AFTER = """
import json, runpy, sys
sys.argv = ["errdex", *sys.argv[1:]]
try:
    runpy.run_module("errdex", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def _modules_after(*args: str) -> set[str]:
    """The modules loaded by one errdex start with ``args`` (the second one: the first fills the caches)."""
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _MODULES_AFTER, *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=120, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return set(json.loads(done.stderr.rsplit("MODULES ", 1)[1]))


@pytest.mark.parametrize(("args", "needed"), [
    (["match", "examples/worker.log", "-q"], set()),
    # the text page shows the record's releases: the bundled dataset has some, read by the JSON text parser
    (["explain", "2715d7d4", "--no-pager"], {"errdex.records.jsontext", "errdex.records.problems"}),
    (["explain", "2715d7d4", "--short", "--no-pager"], set()),
    (["explain", "2026-11-30T10:00:01Z worker[7] ERROR CreateOS request failed (HTTP 502) during process creation.",
      "--no-pager", "--short"], set()),
])
def test_one_line_paths_import_none_of_the_lazy_modules(args: list[str], needed: set[str]) -> None:
    loaded = _modules_after(*args)
    assert "errdex.match.knowledge" in loaded  # the path really ran
    assert sorted(loaded & set(NOT_ON_ONE_LINE_PATHS) - needed) == []
    assert not [name for name in loaded if name.startswith(("pydantic", "jsonschema", "errdex.checks."))]


def test_short_options_are_read_as_before(cli) -> None:
    """``-q`` is read without click's suggestions; a misspelt long option still gets them."""
    quiet = cli("match", "-q", str(ROOT / "examples" / "worker.log"))
    assert quiet.exit_code in (0, 1) and "line(s) matched" not in quiet.stderr
    wrong = cli("match", "--quiett", "x")
    assert wrong.exit_code == 2 and "Did you mean '--quiet'?" in wrong.stderr
    short = cli("match", "-x", "x")
    assert short.exit_code == 2 and "No such option '-x'." in short.stderr and "Did you mean" not in short.stderr


_BYTECODE_FOLDER = """
import runpy, sys
sys.argv = ["errdex", "--version"]
try:
    runpy.run_module("errdex", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write(f"PREFIX {sys.pycache_prefix}\\n")
"""


def _bytecode_prefix(tree: Path, cache: Path) -> str:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "ERRDEX_CACHE_DIR": str(cache),
           "PYTHONPATH": str(tree / "toolkit")}
    done = subprocess.run([sys.executable, "-c", _BYTECODE_FOLDER], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done.stderr.rsplit("PREFIX ", 1)[1].strip()


def test_bytecode_compiled_by_the_install_is_read_beside_the_sources(tmp_path: Path) -> None:
    """Bytecode the install compiled beside the sources is read there; none there, or any out of date, and it is
    kept in the cache folder instead (a folder elsewhere would have the standard library compiled again)."""
    import compileall
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "toolkit" / "errdex", tree / "toolkit" / "errdex",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    assert _bytecode_prefix(tree, tmp_path / "cache1") == str(tmp_path / "cache1" / "pycache")
    assert compileall.compile_dir(tree / "toolkit" / "errdex", quiet=1, force=True)
    assert _bytecode_prefix(tree, tmp_path / "cache2") == "None"
    assert not (tmp_path / "cache2").exists()
    edited = tree / "toolkit" / "errdex" / "cli" / "__init__.py"
    edited.write_text(edited.read_text() + "\n")  # a source changed since it was compiled
    assert _bytecode_prefix(tree, tmp_path / "cache3") == str(tmp_path / "cache3" / "pycache")
