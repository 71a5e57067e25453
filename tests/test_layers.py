"""The import contracts in pyproject.toml are what the build checks: a wrong-way import fails ``lint-imports``.

Each case copies the package's code to a temporary folder, adds one import that breaks a contract, and runs
``lint-imports`` (as ``.ci/check`` does) on the copy: it must fail and name that import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "toolkit" / "errdex"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

#: (module file under errdex/, the import added to it, what lint-imports must then say)
WRONG_WAY = [
    ("records/vocabulary.py", "import errdex.cli", "errdex.records is not allowed to import errdex.cli"),
    ("executor/__init__.py", "import errdex.records.loader",
     "errdex.executor is not allowed to import errdex.records"),
    ("site/__init__.py", "import errdex.prove", "errdex.site is not allowed to import errdex.prove"),
    ("_files.py", "import errdex.patterns", "errdex._files is not allowed to import errdex.patterns"),
]


def _lint_imports(toolkit: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports with this checkout's configuration, on the package found in ``toolkit``."""
    env = {**os.environ, "PYTHONPATH": str(toolkit)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


def _copy_package(tmp_path: Path) -> Path:
    """The package's Python modules (not its bundled data), under tmp_path/toolkit."""
    toolkit = tmp_path / "toolkit"
    shutil.copytree(PACKAGE, toolkit / "errdex",
                    ignore=shutil.ignore_patterns("__pycache__", "_bundled", "_site", "_schema"))
    return toolkit


@pytest.fixture(scope="module")
def untouched(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """What lint-imports says of the package as it is (run once for every case)."""
    return _lint_imports(ROOT / "toolkit", tmp_path_factory.mktemp("untouched"))


@pytest.mark.parametrize(("module", "line", "complaint"), WRONG_WAY, ids=[case[0] for case in WRONG_WAY])
def test_a_wrong_way_import_fails_the_build(tmp_path: Path, untouched: subprocess.CompletedProcess[str], module: str,
                                            line: str, complaint: str) -> None:
    assert complaint not in untouched.stdout, untouched.stdout[-3000:]
    toolkit = _copy_package(tmp_path)
    target = toolkit / "errdex" / module
    assert target.is_file(), f"{module} is gone: pick another module of that package for this case"
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # the deliberate wrong-way import\n",
                      encoding="utf-8")
    after = _lint_imports(toolkit, tmp_path)
    assert after.returncode != 0, after.stdout[-3000:]
    assert complaint in after.stdout, after.stdout[-3000:] + after.stderr[-2000:]


def test_the_package_keeps_every_import_contract(untouched: subprocess.CompletedProcess[str]) -> None:
    assert untouched.returncode == 0, untouched.stdout[-5000:] + untouched.stderr[-2000:]


def test_an_executor_may_import_the_record_vocabulary(tmp_path: Path) -> None:
    toolkit = _copy_package(tmp_path)
    for module in ("executor/__init__.py", "executor/createos/__init__.py"):
        target = toolkit / "errdex" / module
        target.write_text(target.read_text(encoding="utf-8") + "\nimport errdex.records.vocabulary\n"
                          "import errdex.records.scenarios\n", encoding="utf-8")
    done = _lint_imports(toolkit, tmp_path)
    assert "Executors know the record vocabulary only, not records or checks KEPT" in done.stdout, done.stdout[-3000:]
