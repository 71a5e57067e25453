"""EDX125 pattern-size: oversized patterns are reported at once, and no engine or other analysis pays for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, write_envelope

TEN = [f"Job {chr(97 + i)} failed at .{{0,1000}}\\." for i in range(10)]


def _records(tmp_path: Path, seed: dict[str, Any], pattern_messages: list[tuple[str, str]]) -> Path:
    root = tmp_path / "records"
    for number, (pattern, message) in enumerate(pattern_messages):
        envelope = {**seed, "record": {**seed["record"], "id": f"{number + 1:016x}", "slug": f"big-{number}",
                                       "messagePattern": pattern, "errorMessage": message}}
        write_envelope(root, envelope, folder="acme/api")
    return root


def _validate(root: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ERRDEX_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT / "toolkit")}
    return subprocess.run([sys.executable, "-m", "errdex", "validate", "--format", "json", "-q", str(root)],
                          capture_output=True, text=True, env=env, timeout=60, check=False)


def _assert_analysed_no_further(cache: Path, count: int) -> None:
    """What validation learnt about the patterns (kept in the pattern-facts cache): only their size problem.

    No other analysis ran (it took up to 147 s on such a pattern) and no engine compiled them (40-108 s of
    hyperscan compiling), so nothing else was remembered."""
    [path] = cache.rglob("pattern-facts.json")
    entries = list(json.loads(path.read_text())["entries"].values())
    analyses = [e for e in entries if isinstance(e, dict) and "size" in e]
    assert len(analyses) == count
    assert all(a["size"] and not (a["portability"] or a["backtracking"] or a["literals"]) for a in analyses)
    assert not [e for e in entries if isinstance(e, list)]  # no engine verdicts


def test_ten_wide_bounded_repeats_are_reported_alone(tmp_path: Path, seed: dict[str, Any]) -> None:
    root = _records(tmp_path, seed, [(p, p.replace(".{0,1000}", "x").replace("\\.", ".")) for p in TEN])
    done = _validate(root, tmp_path / "cache")  # a cold cache: nothing known yet
    findings = json.loads(done.stdout)
    codes = {f["code"] for f in findings if f["pointer"] == "/record/messagePattern"}
    assert codes == {"EDX125"}, codes  # no engine compiled them (EDX122), nothing else analysed them
    assert sum(f["code"] == "EDX125" for f in findings) == 10
    _assert_analysed_no_further(tmp_path / "cache", 10)


def test_a_70_kb_pattern_is_reported_alone_and_quietly(tmp_path: Path, seed: dict[str, Any]) -> None:
    message = " ".join(f"word{i}" for i in range(12000))[:70000]
    root = _records(tmp_path, seed, [(message, message), ("\u4e00*" * 35000, "x")])
    done = _validate(root, tmp_path / "cache")
    findings = [f for f in json.loads(done.stdout) if f["code"] == "EDX125"]
    assert len(findings) == 2 and "above the limit of 4,000" in findings[0]["message"]
    _assert_analysed_no_further(tmp_path / "cache", 2)
    assert "DFA out of memory" not in done.stderr and "re2.cc" not in done.stderr, done.stderr


def test_re2_never_writes_to_stderr_on_a_large_pattern(tmp_path: Path) -> None:
    code = ("from errdex.patterns.facts import PatternFacts\n"
            "assert PatternFacts().full_match('a.{0,3}' * 2000, 'a' * 2000)  # exhausts RE2's DFA memory\n"
            "from errdex.patterns.engines import _re2_compile\n"
            "assert _re2_compile(['(a'])[0]\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "toolkit")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
