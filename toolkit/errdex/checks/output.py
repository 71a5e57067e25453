"""Rendering validation findings: text, json, github annotations and SARIF."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from errdex._version import __version__
from errdex.checks.base import Check
from errdex.checks.runner import ValidationReport
from errdex.terminal import safe

__all__ = ["FORMATS", "render_check_list", "render_findings"]

FORMATS = ("text", "json", "github", "sarif")
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _text(report: ValidationReport, color: bool) -> str:
    lines = []
    for f in report.findings:
        code = f"{f.code} {f.name}"
        if color:
            tint = {"error": "31", "warning": "33"}.get(f.severity, "36")
            code = f"\x1b[1;{tint}m{f.code}\x1b[0m {f.name}"
        lines.append(safe(f"{f.path}:{f.line}:{f.column}: ", newlines=False) + code
                     + safe(f": {f.message}", newlines=False))
    return "\n".join(lines) + ("\n" if lines else "")


def summary_line(report: ValidationReport) -> str:
    records, documents = report.records, report.documents
    checked = f"{records} record{'s' if records != 1 else ''} in {documents} document{'s' if documents != 1 else ''}"
    if not report.findings:
        return f"{checked}: no findings"
    return f"{checked}: {report.errors} error(s), {report.warnings} warning(s), {report.count('info')} note(s)"


def _escape_property(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github(report: ValidationReport) -> str:
    lines = []
    for f in report.findings:
        level = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
        title = _escape_property(f"{f.code} {f.name}")
        props = f"file={_escape_property(f.path)},line={f.line},col={f.column},title={title}"
        lines.append(safe(f"::{level} {props}::{_escape_data(f.message)}", newlines=False))
    return "\n".join(lines) + ("\n" if lines else "")


def _sarif_uri(path: str) -> str:
    """A finding's path as SARIF's ``artifactLocation.uri``: a URI reference, so percent-encoded (a ``#``, a ``?``,
    a space or a ``%`` in a file name would otherwise read as a fragment, a query or an escape); an absolute
    path as a ``file://`` URI. A name that is not UTF-8 keeps its bytes (``%FF``)."""
    posix = path.replace("\\", "/")
    try:
        encoded = quote(posix, safe="/", errors="surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte
        encoded = quote(posix, safe="/", errors="replace")
    return "file://" + encoded if posix.startswith("/") else encoded


def _sarif(report: ValidationReport, checks: dict[str, type[Check]]) -> str:
    rules = [
        {
            "id": code,
            "name": cls.name,
            "shortDescription": {"text": cls.summary},
            "defaultConfiguration": {"level": _SARIF_LEVEL[cls.severity]},
        }
        for code, cls in checks.items()
    ]
    index = {code: i for i, code in enumerate(checks)}
    results: list[dict[str, Any]] = []
    for f in report.findings:
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _sarif_uri(f.path)},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    },
                    "logicalLocations": [{"fullyQualifiedName": f.pointer or "/", "kind": "member"}],
                }
            ],
            "properties": {"pointer": f.pointer, "recordId": f.record_id},
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "errdex", "version": __version__, "rules": rules}},
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def render_findings(report: ValidationReport, fmt: str, *, checks: dict[str, type[Check]], color: bool = False) -> str:
    """The report in one of FORMATS (``json`` is a list of finding objects)."""
    if fmt == "json":
        return json.dumps([f.as_dict() for f in report.findings], indent=2, ensure_ascii=False) + "\n"
    if fmt == "github":
        return _github(report)
    if fmt == "sarif":
        return _sarif(report, checks)
    return _text(report, color)


def render_check_list(checks: dict[str, type[Check]], fmt: str) -> str:
    """The registry: code, name, severity and summary of every check."""
    rows = [{"code": c, "name": cls.name, "severity": cls.severity, "stage": cls.stage, "summary": cls.summary}
            for c, cls in checks.items()]
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    width = max(len(r["name"]) for r in rows)
    return "".join(f"{r['code']}  {r['name']:<{width}}  {r['severity']:<7}  {r['summary']}\n" for r in rows)
