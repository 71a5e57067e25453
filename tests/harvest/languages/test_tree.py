"""The trees the constants pass keeps for the sites pass (``errdex.harvest.languages._tree.KeptTrees``)."""

from __future__ import annotations

import tree_sitter
import tree_sitter_go

from errdex.harvest.languages._tree import KeptTrees

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language()))


def test_a_kept_tree_is_handed_out_once() -> None:
    trees = KeptTrees(_PARSER)
    source = b'package main\nconst A = "x"\n'
    kept = trees.parse(source, keep=True)
    assert trees.parse(source) is kept
    again = trees.parse(source)
    assert again is not kept and str(again.root_node) == str(kept.root_node)


def test_equal_bytes_of_another_file_are_parsed_anew() -> None:
    trees = KeptTrees(_PARSER)
    first = b'package main\nconst A = "x"\n'
    kept = trees.parse(first, keep=True)
    other = bytes(bytearray(first))  # equal, not the same object
    assert trees.parse(other) is not kept


def test_the_oldest_trees_go_past_the_budget() -> None:
    one, two = b"package a\n" + b" " * 40, b"package b\n" + b" " * 40
    trees = KeptTrees(_PARSER, budget=60)
    first = trees.parse(one, keep=True)
    second = trees.parse(two, keep=True)
    assert trees.parse(one) is not first and trees.parse(two) is second
