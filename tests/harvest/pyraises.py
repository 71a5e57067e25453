"""A real template engine's errors and Python's own record of which statement raised each.

jinja2 (the venv's own copy) renders a fixed set of broken templates in a subprocess; each exception caught
is written as the last line of its traceback (``jinja2.exceptions.UndefinedError: 'user' is undefined``, its
message's first line), and a trace function writes, to the truth, the frame that raised it: the first frame
an ``exception`` event names for it (jinja2 rewrites its tracebacks, so the traceback itself cannot say). When
that frame's function was handed the message as a parameter (``def fail(self, msg, lineno, exc): raise
exc(msg, ...)``), its callers up the stack that handed the same message are the statements that wrote the text:
the truth names, as ``caller``, the first frame up the stack that was not handed it (the raise itself is not
the answer then). Only jinja2's own exceptions are in the truth: a ``TypeError`` Python raised for a call in a
template is in the log, but no statement of jinja2 wrote it.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.pyraises OUT_DIR
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.harvest.truth import Expected, python_span

__all__ = ["JINJA_DRIVER", "JINJA_TEMPLATES", "raised_expected", "run_jinja_workload"]

#: Broken templates (source, context), each the kind of mistake a template's author makes.
JINJA_TEMPLATES: tuple[tuple[str, dict[str, object]], ...] = (
    ("Hello {{ user.name }}", {}),
    ("{{ missing }}", {}),
    ("{{ missing + 1 }}", {}),
    ("{% for x in items %}{{ x }}", {"items": [1]}),
    ("{% if a %}yes", {}),
    ("{% if a %}yes{% endfor %}", {}),
    ("{% block a %}{% endblock %}{% block a %}{% endblock %}", {}),
    ("{% foo %}", {}),
    ("{{ 1 + }}", {}),
    ("{{ a.b }}", {"a": {}}),
    ("{{ a.b.c }}", {"a": {}}),
    ("{{ a[3] }}", {"a": []}),
    ("{{ x | nosuchfilter }}", {"x": 1}),
    ("{% if x is nosuchtest %}{% endif %}", {"x": 1}),
    ("{{ 'a' }", {}),
    ("{# never closed", {}),
    ("{% raw %}never closed", {}),
    ("{% extends 'base.html' %}", {}),
    ("{% include 'missing.html' %}", {}),
    ("{% macro m(a=1, b) %}{% endmacro %}", {}),
    ("{{ x is defined is defined }}", {}),
    ("{% set %}", {}),
    ("{{ a.( }}", {}),
    ("{{ a[] }}", {}),
    ("{% for %}{% endfor %}", {}),
    ("{{ f(**a, *b) }}", {}),
    ("{% call %}{% endcall %}", {}),
    ("{{ 1 if }}", {}),
    ("{{ range(10) | sum(attribute=) }}", {}),
    ("{% with %}{% endwith %}", {}),
    ("{{ 'x' ~ }}", {}),
    ("{{ m() }}", {}),
    ("{{ a() }}", {"a": 1}),
    ("{{ (1, 2) | join(\"\", 3, 4) }}", {}),
    ("{% trans %}x{% endtrans %}", {}),
    ("{% endif %}", {}),
    ("{{ missing.attr }}", {}),
    ("{{ a | attr('x') | int + missing }}", {"a": 1}),
    ("{% for x in 3 %}{% endfor %}", {}),
    ("{{ 1 | random(3) }}", {}),
    ("{{ missing() }}", {}),
    ("{{ '%d' % 'x' }}", {}),
    ("{{ a.b() }}", {"a": {}}),
    ("{% set x = 1 %}{{ x.y.z }}", {}),
    ("{{ a(]) }}", {}),
    ("{% include %}", {}),
    ("{% import 'x' %}", {}),
    ("{% from 'x' import %}", {}),
    ("{{ items | map('upper') | list }}", {"items": [1]}),
    ("{{ a | batch('x') | list }}", {"a": [1]}),
    ("{{ a | slice(0) | list }}", {"a": [1]}),
)

#: Render each template with a strict and a default Undefined; the last traceback line to the log, the origin
#: to the truth (one JSON line per log line).
JINJA_DRIVER = r'''
import json, sys, traceback
import jinja2

LOG, TRUTH = open(sys.argv[1], "w", encoding="utf-8"), open(sys.argv[2], "w", encoding="utf-8")
raised = {}


def tracer(frame, event, arg):
    return local


def local(frame, event, arg):
    if event == "exception" and id(arg[1]) not in raised:
        message = arg[1].args[0] if arg[1].args else None
        place = {"path": frame.f_code.co_filename, "lineno": frame.f_lineno}
        caller, up = frame, frame
        while up is not None and isinstance(message, str) and _handed(up, message):
            caller, up = up.f_back, up.f_back  # the message was a parameter: its caller wrote it
        if caller is not frame and caller is not None:
            place["caller"] = [caller.f_code.co_filename, caller.f_lineno]
        raised[id(arg[1])] = (arg[1], place)
    return local


def _handed(frame, message):
    code = frame.f_code
    values = [frame.f_locals.get(name) for name in code.co_varnames[:code.co_argcount]]
    return any(value is message for value in values)


environments = [jinja2.Environment(loader=jinja2.DictLoader({}), extensions=[]),
                jinja2.Environment(loader=jinja2.DictLoader({}), undefined=jinja2.StrictUndefined)]
lines = 0
for source, context in json.loads(sys.argv[3]):
    for environment in environments:
        sys.settrace(tracer)
        try:
            environment.from_string(source).render(**context)
        except Exception as error:
            sys.settrace(None)
            last = traceback.format_exception_only(type(error), error)[-1].rstrip("\n")
            first = last.split("\n")[0]
            kept = raised.get(id(error))
            lines += 1
            LOG.write(first + "\n")
            if kept is not None and kept[0] is error and isinstance(error, jinja2.TemplateError):
                TRUTH.write(json.dumps({"line": lines, **kept[1]}) + "\n")
        finally:
            sys.settrace(None)
            raised.clear()
LOG.close()
TRUTH.close()
'''


def run_jinja_workload(work: Path, python: str = sys.executable) -> tuple[Path, Path]:
    """Render the broken templates with the interpreter's jinja2 in ``work``; (log, truth) paths."""
    log, truth = work / "jinja.log", work / "jinja-truth.jsonl"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run([python, "-c", JINJA_DRIVER, str(log), str(truth), json.dumps(JINJA_TEMPLATES)], cwd=work,
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=60)
    return log, truth


def raised_expected(log: Path, truth: Path, root: Path) -> list[Expected]:
    """The log's lines jinja2's own code raised, each with the statement that wrote its text: the caller that
    handed the message to a helper when there is one inside ``root``, else the raise."""
    raw = log.read_text(encoding="utf-8").split("\n")
    expected = []
    for row in map(json.loads, truth.read_text(encoding="utf-8").splitlines()):
        span = python_span(root, *row["caller"]) if row.get("caller") else None
        span = span or python_span(root, row["path"], row["lineno"])
        if span is not None:
            expected.append(Expected(row["line"], raw[row["line"] - 1], (span,)))
    return expected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    print(*run_jinja_workload(args.out), sep="\n")


if __name__ == "__main__":
    main()
