"""``errdex validate``'s own options: --explain (the pages themselves are tested in tests/checks/test_explain.py)."""

from __future__ import annotations

from collections.abc import Callable

from errdex.checks.explain import explain
from tests.conftest import CliResult

Cli = Callable[..., CliResult]


def test_a_check_can_be_explained_by_its_name_in_any_case(cli: Cli) -> None:
    assert cli("validate", "--explain", "HTTP-Status").stdout == explain("EDX154")


def test_explain_as_json_holds_the_examples(cli: Cli) -> None:
    result = cli("validate", "--explain", "EDX154", "--format", "json")
    assert result.exit_code == 0
    data = result.json()
    assert (data["code"], data["name"]) == ("EDX154", "http-status")
    assert data["failing"] and data["fixed"]


def test_an_unknown_code_is_a_usage_error_naming_the_closest(cli: Cli) -> None:
    result = cli("validate", "--explain", "EDX1544")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'EDX1544'" in lines[0] and "EDX154" in lines[0]


def test_an_unknown_name_names_the_closest_name(cli: Cli) -> None:
    result = cli("validate", "--explain", "http-stats")
    assert result.exit_code == 2 and "http-status" in result.stderr
