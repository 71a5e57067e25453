"""Invariants every registered check keeps."""

from __future__ import annotations

import re

import pytest

from errdex.checks.base import LEVELS, registry

CHECKS = registry()


@pytest.mark.parametrize("code", sorted(CHECKS))
def test_check_has_stable_code_name_severity_and_summary(code: str) -> None:
    cls = CHECKS[code]
    assert re.fullmatch(r"EDX[0-9]{3}", cls.code) and cls.code == code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cls.name)
    assert cls.severity in LEVELS
    assert cls.summary and "\n" not in cls.summary
    assert cls.stage in ("parse", "record")


def test_names_are_unique() -> None:
    names = [cls.name for cls in CHECKS.values()]
    assert len(names) == len(set(names))


def test_list_checks_prints_the_registry(cli) -> None:
    result = cli("validate", "--list-checks", "--format", "json")
    assert result.exit_code == 0
    assert [row["code"] for row in result.json()] == sorted(CHECKS)
    text = cli("validate", "--list-checks").stdout
    assert all(code in text for code in CHECKS)


def test_the_readme_checks_table_lists_every_check_by_code_and_name() -> None:
    from tests.conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| (EDX[0-9]{3}) \| ([a-z0-9-]+) \|", readme, flags=re.MULTILINE)
    assert table == [(code, cls.name) for code, cls in CHECKS.items()]
