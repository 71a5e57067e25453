"""EDX125 pattern-size: oversized patterns are reported at once, and no engine or other analysis pays for them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
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


def _validate(root: Path, cache: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "ERRDEX_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT / "toolkit")}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "errdex", "validate", "--format", "json", "-q", str(root)],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    return done, time.perf_counter() - started


def test_ten_wide_bounded_repeats_are_reported_fast(tmp_path: Path, seed: dict[str, Any]) -> None:
    import json

    root = _records(tmp_path, seed, [(p, p.replace(".{0,1000}", "x").replace("\\.", ".")) for p in TEN])
    done, seconds = _validate(root, tmp_path / "cache")  # a cold cache: nothing known yet
    findings = json.loads(done.stdout)
    codes = {f["code"] for f in findings if f["pointer"] == "/record/messagePattern"}
    assert codes == {"EDX125"}, codes  # no engine compiled them (EDX122), nothing else analysed them
    assert sum(f["code"] == "EDX125" for f in findings) == 10
    assert seconds < 15, seconds  # was 40-108 s of hyperscan compiling


def test_a_70_kb_pattern_is_reported_fast_and_quietly(tmp_path: Path, seed: dict[str, Any]) -> None:
    import json

    message = " ".join(f"word{i}" for i in range(12000))[:70000]
    root = _records(tmp_path, seed, [(message, message), ("\u4e00*" * 35000, "x")])
    done, seconds = _validate(root, tmp_path / "cache")
    findings = [f for f in json.loads(done.stdout) if f["code"] == "EDX125"]
    assert len(findings) == 2 and "above the limit of 4,000" in findings[0]["message"]
    assert seconds < 15, seconds  # the second pattern took 147 s of analysis
    assert "DFA out of memory" not in done.stderr and "re2.cc" not in done.stderr, done.stderr


def test_re2_never_writes_to_stderr_on_a_large_pattern(tmp_path: Path) -> None:
    code = ("from errdex.patterns.facts import PatternFacts\n"
            "assert PatternFacts().full_match('a.{0,3}' * 2000, 'a' * 2000)  # exhausts RE2's DFA memory\n"
            "from errdex.patterns.engines import _re2_compile\n"
            "assert _re2_compile(['(a'])[0]\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "toolkit")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
