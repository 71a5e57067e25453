"""Benchmark errdex.patterns on realistic patterns (not collected by pytest).

    .venv/bin/python tests/patterns/bench_patterns.py [N]

Runs every step in a fresh process so that in-process caches do not flatter
the numbers: analysis, then compile_problems (which caches nothing: verdicts
are kept by errdex.patterns.facts.PatternFacts).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _analysis(n: int) -> dict[str, float]:
    # in the child only: each step starts with no warm cache from the others
    from patterns_corpus import realistic_patterns

    from errdex import patterns as P

    pats = realistic_patterns(n)
    out: dict[str, float] = {}
    for name, fn in [("parse", P.parse), ("portability_problems", P.portability_problems),
                     ("backtracking_problems", P.backtracking_problems),
                     ("to_python", P.to_python), ("to_re2", P.to_re2),
                     ("to_hyperscan", P.to_hyperscan), ("required_literals", P.required_literals),
                     ("literal_chars", P.literal_chars), ("variable_parts", P.variable_parts),
                     ("python_regex", P.python_regex)]:
        t = time.perf_counter()
        for p in pats:
            fn(p)
        out[name] = time.perf_counter() - t
    return out


def _compile(n: int) -> dict[str, object]:
    # in the child only: each step starts with no warm cache from the others
    from patterns_corpus import realistic_patterns

    from errdex.patterns import compile_problems

    pats = realistic_patterns(n)
    t = time.perf_counter()
    report = compile_problems(pats)
    total = time.perf_counter() - t
    return {"total": total, "seconds": report.seconds, "compiled": report.compiled,
            "problems": sum(bool(v) for v in report.values()),
            "skipped": report.skipped}


def _child(args: list[str]) -> object:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        kind, n = sys.argv[2], int(sys.argv[3])
        if kind == "analysis":
            print(json.dumps(_analysis(n)))
        else:
            print(json.dumps(_compile(n)))
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    print(f"{n} realistic patterns")
    for k, v in _child(["analysis", str(n)]).items():  # type: ignore[union-attr]  # the analysis step prints an object
        print(f"  {k:24s} {v:7.3f} s  ({v / n * 1e6:6.1f} us/pattern)")
    r = _child(["compile", str(n)])
    assert isinstance(r, dict)
    per = ", ".join(f"{e} {s:.3f}s" for e, s in r["seconds"].items())
    print(f"  compile_problems total {r['total']:.3f}s: {per}")
    print(f"      compiled={r['compiled']} problems={r['problems']} skipped={r['skipped']}")


if __name__ == "__main__":
    main()
