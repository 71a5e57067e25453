"""Compile every pattern in every engine and report what each engine rejects.

Engines: ``python`` (``re``, :data:`~errdex.patterns.translate.PYTHON_FLAGS`),
``re2`` (google-re2), ``duckdb`` (``regexp_matches`` over one table of all
patterns, wrapped in ``TRY`` so one query finds every culprit; culprits are
re-run alone for their message), ``hyperscan`` (portable patterns compiled
in multi-pattern chunks, bisected when a chunk fails, other patterns alone;
in threads, since hyperscan releases the GIL) and ``javascript`` (one ``node`` process, ``new RegExp(source, "u")``
for every pattern, JSON over stdin/stdout).

Portable patterns are compiled in their translation for each engine;
patterns that are not portable are compiled as written (so the report says
what each engine thinks of the raw source).

Nothing is cached here: callers keep verdicts in
:class:`~errdex.patterns.facts.PatternFacts`, the one cache of what errdex
knows about a pattern.  An engine that cannot run (module not installed, no
``node`` on ``PATH``, node failing) is skipped: see
:attr:`CompileReport.engines` and :attr:`CompileReport.skipped`.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .portability import is_portable
from .re2_options import re2_options
from .translate import HYPERSCAN_FLAGS, PYTHON_FLAGS, to_hyperscan, to_python, to_re2

__all__ = ["ENGINES", "CompileReport", "EngineProblem", "compile_problems"]

ENGINES: tuple[str, ...] = ("python", "re2", "duckdb", "hyperscan", "javascript")
_HS_CHUNK = 256

_NODE_SCRIPT = r"""
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const sources = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const out = new Array(sources.length);
  for (let i = 0; i < sources.length; i++) {
    try { new RegExp(sources[i], 'u'); out[i] = null; }
    catch (e) { out[i] = String((e && e.message) || e); }
  }
  process.stdout.write(JSON.stringify(out));
});
"""


@dataclass(frozen=True, slots=True)
class EngineProblem:
    """One engine's complaint about one pattern."""

    engine: str
    message: str


class CompileReport(dict[str, list[EngineProblem]]):
    """Maps every input pattern to its engine problems (empty list: compiles everywhere).

    Attributes: ``engines`` (the engines that ran), ``skipped`` (engine ->
    reason), ``seconds`` (engine -> wall time: translation and compiling) and
    ``compiled`` (engine -> number of distinct sources compiled).
    """

    engines: tuple[str, ...]
    skipped: dict[str, str]
    seconds: dict[str, float]
    compiled: dict[str, int]

    def __init__(self) -> None:
        super().__init__()
        self.engines = ()
        self.skipped = {}
        self.seconds = {}
        self.compiled = {}


# ------------------------------------------------------------------ engines
# Each engine: version() -> str (raises ImportError/OSError if unavailable),
# source(pattern) -> str | bytes, compile(sources) -> list[str | None].


def _python_version() -> str:
    return f"{sys.implementation.name}-{sys.version}-flags{int(PYTHON_FLAGS)}"


def _python_compile(sources: list[str]) -> list[str | None]:
    out: list[str | None] = []
    compile_ = re.compile
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for src in sources:
            seen = len(caught)
            try:
                compile_(src, PYTHON_FLAGS)
            except (re.error, RecursionError, OverflowError, ValueError) as e:
                out.append(str(e))
                continue
            if len(caught) > seen:
                out.append(f"warning: {caught[-1].message}")
            else:
                out.append(None)
    re.purge()
    return out


def _re2_version() -> str:
    importlib.import_module("re2")  # ImportError: engine skipped
    return importlib.metadata.version("google-re2")


def _re2_compile(sources: list[str]) -> list[str | None]:
    import re2  # here: an engine that is not installed is skipped, not a failure to import errdex.patterns

    options = re2_options()
    out: list[str | None] = []
    for src in sources:
        try:
            re2.compile(src, options)
            out.append(None)
        except Exception as e:  # re2.error and encoding errors
            out.append(str(e) or type(e).__name__)
    return out


def _duckdb_version() -> str:
    import duckdb  # here: an engine that is not installed is skipped, and duckdb is slow to import

    return str(duckdb.__version__)


def _duckdb_compile(sources: list[str]) -> list[str | None]:
    import duckdb  # here: an engine that is not installed is skipped, and duckdb is slow to import

    from errdex._duckdb import connect  # here: as duckdb above

    out: list[str | None] = [None] * len(sources)
    if not sources:
        return out
    con = connect()
    try:
        rows = con.execute(
            "SELECT i FROM (SELECT i, TRY(regexp_matches('', p)) AS ok "
            "FROM unnest($1::VARCHAR[]) WITH ORDINALITY AS t(p, i)) WHERE ok IS NULL",
            [sources],
        ).fetchall()
        culprits = [int(r[0]) - 1 for r in rows]
    except duckdb.Error:
        culprits = list(range(len(sources)))  # the batch itself failed: check one by one
    for k in culprits:
        try:
            con.execute("SELECT regexp_matches('', $1)", [sources[k]]).fetchall()
            out[k] = "rejected in batch (TRY returned NULL) but compiles alone"
        except duckdb.Error as e:
            out[k] = str(e)
    con.close()
    return out


def _hyperscan_version() -> str:
    importlib.import_module("hyperscan")  # ImportError: engine skipped
    return f"{importlib.metadata.version('hyperscan')}-flags{HYPERSCAN_FLAGS}"


def _hyperscan_compile(sources: list[bytes], likely_ok: set[bytes] | None = None
                       ) -> list[str | None]:
    """Compile each source; ``likely_ok`` sources go in multi-pattern chunks.

    Chunks are cheaper per pattern (about 0.4 ms instead of 0.5 ms with two
    threads) but hyperscan does not say which expression failed, so a failing
    chunk is bisected; sources not known to be portable are compiled alone.
    """
    import hyperscan  # here: an engine that is not installed is skipped, not a failure to import errdex.patterns

    out: list[str | None] = [None] * len(sources)

    def compile_range(idx: list[int]) -> None:
        exprs = [sources[k] for k in idx]
        try:
            hyperscan.Database().compile(expressions=exprs, ids=list(range(len(exprs))),
                                         flags=[HYPERSCAN_FLAGS] * len(exprs))
            return
        except Exception as e:  # hyperscan.error; does not say which expression failed
            if len(idx) == 1:
                out[idx[0]] = str(e) or type(e).__name__
                return
        mid = len(idx) // 2
        compile_range(idx[:mid])
        compile_range(idx[mid:])

    ok = likely_ok or set()
    batched = [k for k, s in enumerate(sources) if s in ok]
    alone = [k for k, s in enumerate(sources) if s not in ok]
    tasks = [batched[i:i + _HS_CHUNK] for i in range(0, len(batched), _HS_CHUNK)]
    tasks += [[k] for k in alone]
    workers = min(len(tasks), os.cpu_count() or 1)
    if workers <= 1:
        for t in tasks:
            compile_range(t)
    else:
        with ThreadPoolExecutor(max_workers=workers) as ex:
            list(ex.map(compile_range, tasks))
    return out


def _node_path() -> str:
    node = shutil.which("node")
    if node is None:
        raise OSError("node is not on PATH")
    return node


def _javascript_version() -> str:
    node = os.path.realpath(_node_path())
    st = os.stat(node)
    return f"{node}:{st.st_size}:{st.st_mtime_ns}"


def _javascript_compile(sources: list[str], timeout: float) -> list[str | None]:
    proc = subprocess.run([_node_path(), "-e", _NODE_SCRIPT],
                          input=json.dumps(sources).encode("utf-8"), capture_output=True,
                          timeout=timeout, check=False)
    if proc.returncode != 0:
        raise OSError(f"node exited with {proc.returncode}: "
                      f"{proc.stderr.decode('utf-8', 'replace')[:300]}")
    result = json.loads(proc.stdout)
    if not isinstance(result, list) or len(result) != len(sources):
        raise OSError("node returned a malformed answer")
    return [None if r is None else str(r) for r in result]


def _python_source(p: str) -> str:
    return to_python(p) if is_portable(p) else p


def _re2_source(p: str) -> str:
    return to_re2(p) if is_portable(p) else p


def _hyperscan_source(p: str) -> bytes:
    return to_hyperscan(p) if is_portable(p) else p.encode("utf-8", "surrogatepass")


def _js_source(p: str) -> str:
    return p


@dataclass(slots=True)
class _Engine:
    name: str
    version: Callable[[], str]
    source: Callable[[str], str | bytes]
    # Any: each engine compiles the kind of source its own ``source`` makes (str, or bytes for hyperscan).
    compile: Callable[[list[Any]], list[str | None]]


# ------------------------------------------------------------------ entry point


def _engines(unique: list[str], node_timeout: float) -> dict[str, _Engine]:
    """The engines by name, for one run over ``unique`` patterns."""

    def hyperscan_compile(sources: list[bytes]) -> list[str | None]:
        return _hyperscan_compile(sources, {to_hyperscan(p) for p in unique if is_portable(p)})

    def javascript_compile(sources: list[str]) -> list[str | None]:
        return _javascript_compile(sources, node_timeout)

    return {
        "python": _Engine("python", _python_version, _python_source, _python_compile),
        "re2": _Engine("re2", _re2_version, _re2_source, _re2_compile),
        "duckdb": _Engine("duckdb", _duckdb_version, _re2_source, _duckdb_compile),
        "hyperscan": _Engine("hyperscan", _hyperscan_version, _hyperscan_source, hyperscan_compile),
        "javascript": _Engine("javascript", _javascript_version, _js_source, javascript_compile),
    }


def _run(engine: _Engine, unique: list[str], report: CompileReport) -> None:
    """Compile every pattern in one engine and add its complaints to ``report`` (or say why it was skipped)."""
    started = time.perf_counter()
    try:
        engine.version()
    except (ImportError, OSError) as e:
        report.skipped[engine.name] = f"{type(e).__name__}: {e}"
        return
    sources = [engine.source(p) for p in unique]
    distinct = list(dict.fromkeys(sources))
    try:
        results = dict(zip(distinct, engine.compile(distinct), strict=True)) if distinct else {}
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        report.skipped[engine.name] = f"{type(e).__name__}: {e}"
        return
    for p, source in zip(unique, sources, strict=True):
        verdict = results[source]
        if verdict is not None:
            report[p].append(EngineProblem(engine.name, verdict))
    report.compiled[engine.name] = len(distinct)
    report.seconds[engine.name] = time.perf_counter() - started


def _join(report: CompileReport, aside: CompileReport) -> None:
    """Add one engine's report, made apart, to ``report``."""
    for p, problems in aside.items():
        report[p].extend(problems)
    report.skipped.update(aside.skipped)
    report.seconds.update(aside.seconds)
    report.compiled.update(aside.compiled)


def compile_problems(patterns: Sequence[str], *, engines: Iterable[str] | None = None,
                     node_timeout: float = 120.0) -> CompileReport:
    """Compile each pattern in each engine; return a :class:`CompileReport`.

    ``engines`` restricts the run to some of :data:`ENGINES`.
    """
    selected = tuple(ENGINES if engines is None else engines)
    unknown = set(selected) - set(ENGINES)
    if unknown:
        raise ValueError(f"unknown engines: {sorted(unknown)}")
    report = CompileReport()
    unique = list(dict.fromkeys(patterns))
    for p in unique:
        report[p] = []
    table = _engines(unique, node_timeout)
    with ThreadPoolExecutor(max_workers=1) as pool:
        # node starts in about 0.1-0.3 s: it compiles while the other engines do, and its verdicts join the
        # report in their place in the order of the engines.
        early = None
        if "javascript" in selected and len(selected) > 1:
            aside = CompileReport()
            for p in unique:
                aside[p] = []
            early = pool.submit(_run, table["javascript"], unique, aside)
        for name in selected:
            if name == "javascript" and early is not None:
                early.result()
                _join(report, aside)
            else:
                _run(table[name], unique, report)
    report.engines = tuple(name for name in selected if name not in report.skipped)
    return report
