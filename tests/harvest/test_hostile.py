"""Hostile source files: nesting that crashes a grammar's parser, messages built of thousands of parts, long
chains of ``+``. No input crashes or hangs the harvest: a file or site it cannot take is listed with why."""

from __future__ import annotations

from pathlib import Path

import pytest

from errdex.harvest import pattern as pattern_module
from errdex.harvest.drafts import message_text
from errdex.harvest.languages import Unparsable, _tree, finder_for
from errdex.harvest.run import harvest
from errdex.harvest.sites import Hole, Text
from errdex.patterns import PatternProblem
from tests.processes import growth, run, time_limit

SHA = "a" * 40
LOG_OK = 'import logging\nlog = logging.getLogger()\n\ndef f(x):\n    log.error("could not open %s", x)\n'


def _nested_ifs(depth: int) -> str:
    lines = [" " * level + "if x:" for level in range(depth)]
    return "\n".join([*lines, " " * depth + 'raise ValueError("deep inside")']) + "\n"


def _harvest(folder: Path, tmp_path: Path, *args: str) -> tuple[int, str]:
    done = run("harvest", str(folder), "--repo", "acme/app", "--sha", SHA, "--bundle", str(tmp_path / "b.jsonl"),
               *args, cwd=tmp_path)
    return done.returncode, done.stderr


def test_blocks_nested_past_the_python_parser_are_listed_not_a_crash(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "deep.py").write_text(_nested_ifs(720))  # tree-sitter-python died of a segmentation fault
    (source / "ok.py").write_text(LOG_OK)
    code, err = _harvest(source, tmp_path)
    assert code == 0, err
    assert "failed to parse deep.py: 721 distinct indentations, over the 200 errdex parses" in err
    assert "1 site(s)" in err  # the other file is harvested


def test_python_indentation_is_bounded_by_its_distinct_widths() -> None:
    finder = finder_for("a.py")
    assert finder is not None
    shallow = _nested_ifs(150).encode()
    assert finder.find(shallow, "a.py", sinks=finder.default_sinks, levels=frozenset({"error"}),
                       facts=finder.survey(shallow)).sites
    with pytest.raises(Unparsable, match="distinct indentations"):
        finder.find(_nested_ifs(201).encode(), "a.py", sinks=(), levels=frozenset(), facts=finder.survey(b""))


def test_a_parse_over_its_time_bound_is_given_up_and_the_parser_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    finder = finder_for("A.java")
    assert finder is not None
    source = b"class A { void m() { throw new IllegalStateException(\"stopped\"); } }\n" * 200
    monkeypatch.setattr(_tree, "PARSE_SECONDS", 0.0)
    with pytest.raises(Unparsable, match="gave up after 0 s"):
        finder.find(source, "A.java", sinks=finder.default_sinks, levels=frozenset(), facts=finder.survey(b""))
    monkeypatch.setattr(_tree, "PARSE_SECONDS", 20.0)
    again = bytes(bytearray(source))  # other bytes: the refusal is kept for the bytes refused
    found = finder.find(again, "A.java", sinks=finder.default_sinks, levels=frozenset(), facts=finder.survey(b""))
    assert len(found.sites) == 200 and found.parse_error is None


@pytest.mark.parametrize("name, code", [
    ("a.py", "def f(x):\n    raise ValueError(" + " + ".join(f'"p{i} " + x' for i in range(600)) + ")\n"),
    ("A.java", "class A { void m(Object x) {\n throw new IllegalStateException("
     + " + ".join(f'"p{i} " + x' for i in range(600)) + ");\n} }\n"),  # a segmentation fault in the finder
])
def test_long_chains_deep_trees_are_skipped_as_too_large(tmp_path: Path, name: str, code: str) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / name).write_text(code)
    code_, err = _harvest(source, tmp_path, "--format", "json")
    assert code_ == 0, err
    assert "too-large 1" in err


HUGE = {
    "f-string": "def f(x):\n    raise ValueError(f\"" + "w{x}" * 64000 + "\")\n",
    "percent": "def f(t):\n    raise ValueError(\"" + "w%s" * 64000 + "\" % t)\n",
    "percent-dict": "def f(t):\n    raise ValueError(\"" + "".join(f"w%(k{i})s" for i in range(20000)) + "\" % t)\n",
    "format": "def f(x):\n    raise ValueError(\"" + "w{}" * 10000 + "\".format(" + ", ".join(["x"] * 10000) + "))\n",
    "log-arguments": "import logging\nlog = logging.getLogger()\n\ndef f(x):\n    log.error(\"" + "w%s" * 16000
                     + "\", " + ", ".join(["x"] * 16000) + ")\n",
    "constant": "MSG = f\"" + "w{x}" * 64000 + "\"\n\ndef f(x):\n    raise ValueError(MSG)\n",
    "returned": "def describe(x):\n    return f\"" + "w{x}" * 64000
                + "\"\n\ndef f(x):\n    raise ValueError(describe(x))\n",
    "nested-f-strings": "def f(x):\n    raise ValueError(" + "f'a{" * 150 + "x" + "}'" * 150 + ")\n",
}


@pytest.mark.parametrize("shape", sorted(HUGE))
def test_a_message_of_thousands_of_parts_is_skipped_not_hung_on(tmp_path: Path, shape: str) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "app.py").write_text(HUGE[shape])
    with time_limit(60, what=f"harvest of a message built of thousands of parts ({shape})"):
        report = harvest(source, repo="acme/app", sha=SHA, bundle=tmp_path / "b.jsonl", check=True)
    assert report.skipped and not report.parse_failures
    assert {item.reason for item in report.skipped} <= {"too-large", "no-literal"}


def test_a_pattern_too_long_is_refused_before_any_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    analysed: list[str] = []
    real = pattern_module.backtracking_problems

    def counted(pattern: str) -> list[PatternProblem]:
        analysed.append(pattern)
        return real(pattern)

    monkeypatch.setattr(pattern_module, "backtracking_problems", counted)
    template = tuple(part for _ in range(64000) for part in (Text("w"), Hole("%s")))
    with pytest.raises(pattern_module.PatternRefused, match="characters long") as refused:
        pattern_module.build(template)
    assert refused.value.reason == "too-large" and analysed == []


def test_writing_a_pattern_grows_linearly_with_its_parts() -> None:
    def work(n: int) -> None:
        template = tuple(part for i in range(n) for part in (Text(f"w{i}: "), Hole("%s")))
        with pytest.raises(pattern_module.PatternRefused):
            pattern_module.build(template)

    assert growth(work, 4000) < 8  # it was quadratic (16)


@pytest.mark.parametrize("name, code", [
    ("a.py", "def f():\n    raise ValueError({})\n"),
    ("a.js", "function f() {{\n  throw new Error({});\n}}\n"),
    ("A.java", "class A {{ void m() {{ throw new IllegalStateException({}); }} }}\n"),
    ("a.go", 'package a\n\nimport "errors"\n\nfunc m() error {{ return errors.New({}) }}\n'),
])
@pytest.mark.parametrize("count", [10, 60, 300])
def test_a_chain_of_plus_is_read_whole(name: str, code: str, count: int) -> None:
    finder = finder_for(name)
    assert finder is not None
    source = code.format(" + ".join(f'"part{i} "' for i in range(count))).encode()
    found = finder.find(source, name, sinks=finder.default_sinks, levels=frozenset({"error"}),
                        facts=finder.survey(source))
    assert [message_text(site.template) for site in found.sites] == ["".join(f"part{i} " for i in range(count))]
