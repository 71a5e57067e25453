"""Harvested records on real Python codebases and their real logs: pip (the venv's own copy) and asyncio.

pip runs a fixed set of offline commands at ``-vvv`` (:mod:`tests.harvest.pylogs`) while a root handler
writes each record to a log and, to a truth file, the ``pathname:lineno`` Python's ``logging`` knows wrote it.
pip's folder is harvested with the default sinks and ``--log-levels all``, every line of the log that pip's
own code wrote is matched, and its top-1 record must name the statement that wrote it (or, for a wrapper
such as ``write_output(msg, *args)`` that logs its parameter, the statement that called the wrapper).
asyncio (the interpreter's standard library) runs a small program on 127.0.0.1 in debug mode the same way, and
paramiko (an SSH library whose classes log through their own ``self._log(DEBUG, "...")`` methods) an SSH server
thread and a client on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from errdex.harvest.run import harvest
from tests.harvest.pylogs import run_asyncio_workload, run_paramiko_workload, run_pip_workload
from tests.harvest.pyraises import raised_expected, run_jinja_workload
from tests.harvest.truth import Score, python_expected, score


def _package(name: str) -> Path:
    """The folder of an installed package; a skip with the reason when it is missing (a failure under CI=true)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        reason = f"{name} is not installed in this interpreter: the real Python codebase to harvest is missing"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return Path(spec.origin).resolve().parent


def _measure(tmp: Path, folder: Path, repo: str, workload: Callable[[Path, str], tuple[Path, Path]]
             ) -> tuple[Score, int]:
    log, truth = workload(tmp, sys.executable)
    records = tmp / "records"
    records.mkdir()
    harvest(folder, repo=repo, sha="0" * 40, out=records, log_levels="all")
    expected, others = python_expected(log, truth, folder)
    return score(records, expected), others


def test_pip_lines_trace_to_their_log_call(tmp_path: Path) -> None:
    result, others = _measure(tmp_path, _package("pip"), "pypa/pip", run_pip_workload)
    assert (result.total, others) == (PIP_LINES, 0), result.summary()
    assert result.rate >= PIP_FLOOR, result.summary(shown=40)


def test_asyncio_debug_lines_trace_to_their_log_call(tmp_path: Path) -> None:
    result, others = _measure(tmp_path, Path(asyncio.__file__).resolve().parent, "python/cpython",
                              run_asyncio_workload)
    assert (result.total, others) == (ASYNCIO_LINES, 0), result.summary()
    assert result.rate >= ASYNCIO_FLOOR, result.summary(shown=40)


def test_paramiko_lines_trace_to_their_log_call(tmp_path: Path) -> None:
    result, others = _measure(tmp_path, _package("paramiko"), "paramiko/paramiko", run_paramiko_workload)
    assert result.total >= PARAMIKO_LINES and others == 0, result.summary()
    assert result.rate >= PARAMIKO_FLOOR, result.summary(shown=40)


def test_jinja2_errors_trace_to_the_statement_that_wrote_them(tmp_path: Path) -> None:
    """The errors a template's author meets, raised through ``self.fail(msg, lineno)``, an ``Undefined``'s
    property and a ``Failure`` object holding its message (:mod:`tests.harvest.pyraises`)."""
    folder = _package("jinja2")
    log, truth = run_jinja_workload(tmp_path, sys.executable)
    records = tmp_path / "records"
    records.mkdir()
    harvest(folder, repo="pallets/jinja", sha="0" * 40, out=records, log_levels="all")
    result = score(records, raised_expected(log, truth, folder))
    assert result.total == JINJA_LINES, result.summary()
    assert result.rate >= JINJA_FLOOR, result.summary(shown=40)


#: jinja2 3.1.6 raises 79 of its own errors for the broken templates; 61 are traced (10 before helpers,
#: properties and stored messages were read). The misses: ``unexpected 'x'`` the lexer and the parser both
#: write (12), ``TemplateNotFound`` whose message is only the template's name (4), and "No filter named" that
#: the compiler and the environment both write, told apart only by the class the line names (2).
JINJA_LINES, JINJA_FLOOR = 79, 0.77


#: The lines each workload writes through the harvested tree's loggers (none through other packages'), and
#: what is traced today, rounded down (the issue's target is 98%): pip 237 of 256 (92.6%), asyncio 11 to 15 of 18
#: (which lines a run writes depends on its timing). The README lists the misses and why: tables and JSON pip
#: prints with no literal, identical statements.
PIP_LINES, PIP_FLOOR = 256, 0.92
ASYNCIO_LINES, ASYNCIO_FLOOR = 18, 0.6
#: paramiko writes 138 lines, all traced (a thread's last lines may vary with timing: at least 130 are asked for).
PARAMIKO_LINES, PARAMIKO_FLOOR = 130, 0.98
