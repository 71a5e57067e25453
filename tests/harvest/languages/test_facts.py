"""What a first pass over the tree learns (``errdex.harvest.languages.TreeFacts``), merged file after file."""

from __future__ import annotations

from errdex.harvest.languages import Parameter, TreeFacts
from errdex.harvest.sinks import Sink


def test_the_first_definition_wins_and_callers_literals_gather() -> None:
    logenv = Parameter("Environment", "logEnv", 2, 0)
    tree = TreeFacts(constants={"A": "first"}, sinks={"log_warn": Sink("log_warn", 0, "warning")},
                     passed={logenv: ["Server environment:"]})
    tree.add(TreeFacts(constants={"A": "second", "B": "b"}, sinks={"log_warn": Sink("log_warn", 1, "error")},
                       passed={logenv: ["Client environment:", "Server environment:"]}))
    assert tree.constants == {"A": "first", "B": "b"}
    assert tree.sinks == {"log_warn": Sink("log_warn", 0, "warning")}
    assert tree.passed == {logenv: ["Server environment:", "Client environment:"]}


def test_nothing_learned_adds_nothing() -> None:
    tree = TreeFacts(constants={"A": "a"})
    tree.add(TreeFacts())
    assert tree == TreeFacts(constants={"A": "a"})
