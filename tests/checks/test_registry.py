"""Invariants every registered check keeps, lookups in the registry, and the README table it generates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from errdex.checks import registry as reg
from errdex.checks.base import LEVELS, Check, register
from errdex.records.problems import ProblemKind
from tests.conftest import ROOT

CHECKS = reg.registry()


@pytest.mark.parametrize("code", sorted(CHECKS))
def test_check_has_stable_code_name_severity_summary_and_rule(code: str) -> None:
    cls = CHECKS[code]
    assert re.fullmatch(r"EDX[0-9]{3}", cls.code) and cls.code == code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cls.name)
    assert cls.severity in LEVELS
    assert cls.summary and "\n" not in cls.summary
    assert cls.rule and "\n" not in cls.rule
    assert cls.stage in ("parse", "record")


def test_names_are_unique() -> None:
    names = [cls.name for cls in CHECKS.values()]
    assert len(names) == len(set(names))


def test_a_clashing_code_or_name_is_refused() -> None:
    taken = CHECKS["EDX101"]
    for code, name in ((taken.code, "a-new-name"), ("EDX999", taken.name)):
        clash = type("Clash", (Check,), {"code": code, "name": name, "summary": "s", "rule": "r"})
        with pytest.raises(RuntimeError, match="clashes with EDX101 id-format"):
            register(clash)
    assert reg.registry() == CHECKS


def test_lookup_by_code_or_name_in_any_case() -> None:
    assert reg.get("EDX123") is reg.get("edx123") is reg.get("Pattern-Backtracking") is CHECKS["EDX123"]
    assert reg.lookup("EDX999") is None and reg.lookup("no-such-check") is None
    with pytest.raises(KeyError, match="EDX999"):
        reg.get("EDX999")
    assert reg.all_checks() == list(CHECKS.values())


def test_every_problem_kind_has_one_parse_check() -> None:
    for kind in ProblemKind:
        cls = reg.for_kind(kind)
        assert cls.kind is kind and cls.stage == "parse" and cls.name == kind.value
    assert reg.problem_label(ProblemKind.DUPLICATE_KEY) == "EDX004 duplicate-key"


def test_list_checks_prints_the_registry(cli) -> None:
    result = cli("validate", "--list-checks", "--format", "json")
    assert result.exit_code == 0
    assert [row["code"] for row in result.json()] == sorted(CHECKS)
    text = cli("validate", "--list-checks").stdout
    assert all(code in text for code in CHECKS)


def test_the_readme_checks_table_is_the_one_the_registry_generates() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert reg.sync_readme(readme) == readme, "run: python -m errdex.checks.registry --readme README.md"
    table = re.findall(r"^\| (EDX[0-9]{3}) \| ([a-z0-9-]+) \|", readme, flags=re.MULTILINE)
    assert table == [(code, cls.name) for code, cls in CHECKS.items()]


def test_regenerating_rewrites_only_the_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{reg.README_START}\n| stale |\n{reg.README_END}\n\nafter\n", encoding="utf-8")
    assert reg.main(["--readme", str(readme), "--check"]) == 1
    assert reg.main(["--readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text == f"# x\n\n{reg.README_START}\n{reg.readme_table()}{reg.README_END}\n\nafter\n"
    assert reg.main(["--readme", str(readme), "--check"]) == 0
    assert "| EDX125 | pattern-size | `messagePattern` is at most" in text and "(`a\\|b`)" in text


def test_a_readme_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="checks:start"):
        reg.sync_readme("# no table\n")
