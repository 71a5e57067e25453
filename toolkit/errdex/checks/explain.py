"""``errdex validate --explain CODE``: a short page per check, like ``rustc --explain``.

The texts are data, one TOML file per code in ``explanations/``: what the check
looks for, why it matters, a failing example and the fixed one. The examples
are changes to one valid record (``explanations/base-record.json``), so they
can be written out and validated: the test suite runs every failing example
and expects its code, and every fixed example and expects no finding at all.

An example is a list of documents, each a table with any of these keys::

    file = "records/acme/api/other.json"   # where it is written (default: records/<repo>/<slug>.json)
    set = { "/record/httpStatus" = 700 }   # JSON pointer -> value (TOML)
    set_json = { "/record/x" = "1e999" }   # JSON pointer -> JSON text (for what TOML cannot hold)
    remove = ["/record/statusReason"]      # JSON pointers
    replace = [['"a": 1,', '"a": 1,,']]    # text substitutions in the written file
    text = "..."                           # the whole file, instead of the record
    encoding = "latin-1"                   # how the file is encoded (default: UTF-8)
    note = "..."                           # what this document is, shown on the page
"""

from __future__ import annotations

import copy
import difflib
import functools
import json
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errdex.checks import registry
from errdex.checks.base import Check
from errdex.errors import UsageError

__all__ = ["EXPLANATIONS", "Explanation", "explain", "explain_check", "explanation", "explanation_files",
           "resolve_code", "write_example"]

#: The folder of explanation files (package data).
EXPLANATIONS = Path(__file__).resolve().parent / "explanations"
_BASE = EXPLANATIONS / "base-record.json"
_DOCUMENT_KEYS = {"file", "set", "set_json", "remove", "replace", "text", "encoding", "note"}
_WIDTH = 78


def _checks() -> dict[str, type[Check]]:
    """The registered checks by code."""
    return registry.registry()


@dataclass(frozen=True)
class Explanation:
    """One check's page: the registry's facts and the texts of its explanation file."""

    code: str
    name: str
    severity: str
    summary: str
    looks_for: str
    why: str
    failing: tuple[dict[str, Any], ...]
    fixed: tuple[dict[str, Any], ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "summary": self.summary,
            "looksFor": self.looks_for,
            "why": self.why,
            "failing": list(self.failing),
            "fixed": list(self.fixed),
        }


def explanation_files() -> dict[str, Path]:
    """Every explanation file by the code its name gives (``EDX154.toml`` -> ``EDX154``)."""
    return {path.stem: path for path in sorted(EXPLANATIONS.glob("*.toml"))}


def resolve_code(query: str) -> str:
    """The code a code or a name (any case) stands for; an unknown one is a usage error naming the closest."""
    found = registry.lookup(query)
    if found is not None:
        return found.code
    checks = _checks()
    by_name = {cls.name: code for code, cls in checks.items()}
    wanted = query.strip()
    close = difflib.get_close_matches(wanted.upper(), list(checks), n=1) or difflib.get_close_matches(
        wanted.lower(), list(by_name), n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise UsageError(f"--explain: unknown check {query!r}{hint} (see 'errdex validate --list-checks')")


@functools.cache
def _load(code: str) -> Explanation:
    cls = _checks()[code]
    path = explanation_files().get(code)
    if path is None:
        raise UsageError(f"--explain: check {code} has no explanation yet")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for key in ("looks_for", "why", "failing", "fixed"):
        if key not in data:
            raise ValueError(f"{path.name}: {key!r} is missing")
    if (data.get("code"), data.get("name")) != (cls.code, cls.name):
        raise ValueError(f"{path.name}: names {data.get('code')} {data.get('name')}, "
                         f"the registry {cls.code} {cls.name}")
    for document in (*data["failing"], *data["fixed"]):
        unknown = set(document) - _DOCUMENT_KEYS
        if unknown:
            raise ValueError(f"{path.name}: unknown example keys {sorted(unknown)}")
    return Explanation(code, cls.name, cls.severity, cls.summary, data["looks_for"].strip(), data["why"].strip(),
                       tuple(data["failing"]), tuple(data["fixed"]))


def explanation(query: str) -> Explanation:
    """The explanation of a check, by code or name in any case."""
    return _load(resolve_code(query))


# --- examples as files ---------------------------------------------------------------------------------------


def _steps(pointer: str) -> list[str]:
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} is not a JSON pointer")
    return [step.replace("~1", "/").replace("~0", "~") for step in pointer[1:].split("/")]


def _parent(document: Any, pointer: str) -> tuple[Any, str]:
    *path, last = _steps(pointer)
    node = document
    for step in path:
        node = node[int(step)] if isinstance(node, list) else node[step]
    return node, last


def _set(document: Any, pointer: str, value: Any) -> None:
    node, last = _parent(document, pointer)
    if isinstance(node, list):
        if last == "-":
            node.append(value)
        else:
            node[int(last)] = value
    else:
        node[last] = value


def _remove(document: Any, pointer: str) -> None:
    node, last = _parent(document, pointer)
    del node[int(last) if isinstance(node, list) else last]


def _content(spec: dict[str, Any]) -> tuple[str | None, bytes]:
    """Where the document goes (None: its record's place) and its bytes."""
    encoding = spec.get("encoding", "utf-8")
    if "text" in spec:
        return spec.get("file"), spec["text"].encode(encoding)
    envelope = json.loads(_BASE.read_text(encoding="utf-8"))
    for pointer, value in spec.get("set", {}).items():
        _set(envelope, pointer, copy.deepcopy(value))
    for pointer, text in spec.get("set_json", {}).items():
        _set(envelope, pointer, json.loads(text))  # Python's json takes NaN, huge integers and lone surrogates
    for pointer in spec.get("remove", ()):
        _remove(envelope, pointer)
    body = json.dumps(envelope, indent=2) + "\n"
    for old, new in spec.get("replace", ()):
        if old not in body:
            raise ValueError(f"replace: {old!r} is not in the record's text")
        body = body.replace(old, new, 1)
    record = envelope.get("record") if isinstance(envelope, dict) else None
    place = None
    if isinstance(record, dict) and isinstance(record.get("repo"), str) and isinstance(record.get("slug"), str):
        place = f"records/{record['repo']}/{record['slug']}.json"
    return spec.get("file", place), body.encode(encoding)


@functools.cache
def _base_record() -> dict[str, Any]:
    record: dict[str, Any] = json.loads(_BASE.read_text(encoding="utf-8"))["record"]
    return record


_BASE_NOTE = ("The examples change one valid record (a copy of {repo}'s {slug} from the bundled dataset), written "
              "to records/<repo>/<slug>.json unless a file is named.")


def write_example(documents: tuple[dict[str, Any], ...], folder: Path) -> list[Path]:
    """Write an example's documents under ``folder``; the paths written, in order."""
    written = []
    for number, spec in enumerate(documents, 1):
        place, data = _content(spec)
        target = folder / (place or f"records/example-{number}.json")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(target)
    return written


# --- the page --------------------------------------------------------------------------------------------------


def _paragraphs(text: str, indent: str = "") -> str:
    return "\n\n".join(
        textwrap.fill(" ".join(part.split()), _WIDTH, initial_indent=indent, subsequent_indent=indent)
        for part in text.split("\n\n") if part.strip()
    )


def _block(text: str, indent: str) -> list[str]:
    """Lines of example text, indented, with characters a terminal would act on shown as escapes."""
    shown = "".join(c if c.isprintable() or c == "\n" else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
                    for c in text)
    return [f"{indent}{line}" for line in shown.splitlines()]


def _describe(spec: dict[str, Any]) -> list[str]:
    lines = []
    if "note" in spec:
        lines.append(_paragraphs(spec["note"], "    "))
    if "file" in spec:
        lines.append(f"    file: {spec['file']}")
    if "encoding" in spec:
        lines.append(f"    saved as {spec['encoding']}")
    if "text" in spec:
        lines.append("    the whole file:" + ("  (empty)" if not spec["text"] else ""))
        lines.extend(_block(spec["text"], "        "))
        return lines
    changes = [f"        {pointer}: {json.dumps(value)}" for pointer, value in spec.get("set", {}).items()]
    changes += [f"        {pointer}: {text}" for pointer, text in spec.get("set_json", {}).items()]
    changes += [f"        {pointer}: (removed)" for pointer in spec.get("remove", ())]
    for old, new in spec.get("replace", ()):
        changes += ["        the text", *_block(old, "            "), "        becomes", *_block(new, "            ")]
    lines.append("    a valid record with these changes:" if changes else "    a valid record, unchanged")
    lines.extend(changes)
    return lines


def _example(documents: tuple[dict[str, Any], ...]) -> str:
    if len(documents) == 1:
        return "\n".join(_describe(documents[0]))
    return "\n".join(f"  document {n}:\n" + "\n".join(_describe(spec)) for n, spec in enumerate(documents, 1))


def explain(query: str) -> str:
    """The page of a check (by code or name, any case): what it looks for, why, a failing and a fixed example."""
    item = explanation(query)
    return "\n".join([
        f"{item.code} {item.name} ({item.severity})",
        "",
        _paragraphs(item.summary),
        "",
        "What it looks for:",
        _paragraphs(item.looks_for, "  "),
        "",
        "Why it matters:",
        _paragraphs(item.why, "  "),
        "",
        _paragraphs(_BASE_NOTE.format(**_base_record())),
        "",
        "Failing example:",
        _example(item.failing),
        "",
        "Fixed:",
        _example(item.fixed),
        "",
    ])


#: The name the ``errdex`` package exports :func:`explain` under (``errdex explain`` explains log lines).
explain_check = explain
