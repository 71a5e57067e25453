"""Fuzzing every command that reads records or logs: random bytes, random JSON and records with one field
replaced by a random value. Whatever comes in, a command ends within its time, with exit 0, 1 or 2, and never
with an internal error (exit 70) or a traceback."""

from __future__ import annotations

import copy
import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, run_cli

# Not a test of the cache: every command here reads the bundled records again on each input, and these tests
# share one cache of them for speed.
pytestmark = pytest.mark.usefixtures("shared_cache")

BASE_PATH = ROOT / "records/paperclipai/paperclip/createos-returned-invalid-json.json"
BASE = json.loads(BASE_PATH.read_text(encoding="utf-8"))

#: Seconds a single command may take on any input before it counts as a hang.
BUDGET_S = 30

FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so the CLI's own handler cannot swallow it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise Hang()


def run_bounded(*args: str, input: bytes | None = None) -> tuple[int, str]:
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(BUDGET_S)
    try:
        result = run_cli(*args, input=input)
    except Hang:
        pytest.fail(f"errdex {' '.join(args)} took longer than {BUDGET_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return result.exit_code, result.stderr


def assert_handled(code: int, stderr: str, args: tuple[str, ...]) -> None:
    assert code in (0, 1, 2), f"errdex {' '.join(args)} exited {code}: {stderr[-2000:]}"
    assert "Traceback" not in stderr, stderr[-3000:]
    assert "internal error" not in stderr, stderr[-2000:]
    if code:
        assert stderr.strip(), f"errdex {' '.join(args)} exited {code} without saying why"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)

#: Texts that broke commands before, mixed into the random values.
NASTY_TEXT = st.sampled_from([
    "", "..", "../../../etc", "/abs/path", "a\x00b", "\ud800", "\x1b]0;T\x07\x1b[2J", "(", "(a+)+$", "\\",
    "x" * 5000, "é" * 70, "evil/-repo", "-", "CON", "a/b/c", "\u202e", "NaN", "1e999",
]) | st.sampled_from(sorted(RAW := {
    # JSON texts no Python value dumps to: each stands for itself in the written file.
    "@raw-bigint@": "1" + "0" * 5000, "@raw-float-int@": "79.0", "@raw-overflow@": "1e999", "@raw-nan@": "NaN",
    "@raw-surrogate@": '"\\ud800"', "@raw-deep@": "[" * 256 + "]" * 256, "@raw-huge@": "100000000000000000000",
    "@raw-negative@": "-1", "@raw-dup@": '{"a": 1, "a": 2}',
}))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


@st.composite
def mutated(draw: Callable[..., Any], value: Any, *, removals: bool = False) -> bytes:
    """``value`` as JSON with one to three fields (at any depth) replaced by a random value (or, with
    ``removals``, removed); the RAW markers are then written as the texts they stand for."""
    copy_ = copy.deepcopy(value)
    paths = [path for path in _paths(copy_) if path]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        parent: Any = copy_
        try:
            for key in path[:-1]:
                parent = parent[key]
            if removals and draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = draw(json_values | NASTY_TEXT)
        except (KeyError, IndexError, TypeError):
            continue
    text = json.dumps(copy_, ensure_ascii=draw(st.booleans()))
    for marker, raw in RAW.items():
        text = text.replace(f'"{marker}"', raw)
    return text.encode("utf-8", "surrogatepass")


raw_inputs = st.binary(max_size=2048) | json_values.map(lambda v: json.dumps(v).encode()) | mutated(BASE, removals=True)


def _record_dir(tmp: Path, data: bytes) -> Path:
    folder = tmp / "records"
    target = folder / "paperclipai/paperclip/createos-returned-invalid-json.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return folder


def _bundle(tmp: Path, data: bytes) -> Path:
    bundle = tmp / "in.jsonl"
    bundle.write_bytes(json.dumps(BASE).encode() + b"\n" + data.replace(b"\n", b" ") + b"\n")
    return bundle


#: Commands that read records: (name, argv builder given the temporary folder and the records folder/bundle).
RECORD_COMMANDS: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "validate": lambda tmp, folder, bundle: ["validate", str(folder), str(bundle)],
    "fmt": lambda tmp, folder, bundle: ["fmt", "--check", str(folder)],
    "migrate": lambda tmp, folder, bundle: ["migrate", "--to", "2", "--check", str(folder)],
    "import": lambda tmp, folder, bundle: ["import", str(bundle), "--records", str(tmp / "target"), "--check"],
    "index": lambda tmp, folder, bundle: ["index", "--records", str(folder), "--db", str(tmp / "x.duckdb")],
    "match": lambda tmp, folder, bundle: ["match", "--records", str(bundle), str(tmp / "log.txt")],
    "explain": lambda tmp, folder, bundle: ["explain", "--records", str(folder), "CreateOS returned invalid JSON."],
    "export": lambda tmp, folder, bundle: ["export", "--records", str(folder), "--to", "jsonl",
                                           "--output", str(tmp / "out.jsonl")],
    "site": lambda tmp, folder, bundle: ["site", "build", "--records", str(folder), "--out", str(tmp / "site"),
                                         "--no-search"],
    "release": lambda tmp, folder, bundle: ["release", "--records", str(folder), "--check"],
    "diff": lambda tmp, folder, bundle: ["diff", str(BASE_PATH.parent.parent.parent), str(folder)],
    "prove": lambda tmp, folder, bundle: ["prove", "--records", str(folder)],
}


@pytest.mark.parametrize("command", sorted(RECORD_COMMANDS))
def test_commands_reading_records_survive_any_input(command: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    build = RECORD_COMMANDS[command]

    @FUZZ
    @given(data=raw_inputs)
    def check(data: bytes) -> None:
        tmp = tmp_path_factory.mktemp(command)
        (tmp / "log.txt").write_bytes(b"CreateOS returned invalid JSON.\n")
        args = tuple(build(tmp, _record_dir(tmp, data), _bundle(tmp, data)))
        assert_handled(*run_bounded(*args), args)

    check()


log_inputs = st.binary(max_size=4096) | st.lists(
    st.sampled_from([b"CreateOS returned invalid JSON.", b"\x1b[2J", b"\r", b"\x00", b"{\"message\": ", b"\xff\xfe",
                     b"x" * 300, b"CreateOS request failed with HTTP 502", b"\n", b"\x1f\x8b\x08\x00"]),
    max_size=40).map(b"".join)


@pytest.mark.parametrize("how", ["file", "stdin", "gzip-name", "summary"])
def test_match_survives_any_log(how: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    @FUZZ
    @given(data=log_inputs)
    def check(data: bytes) -> None:
        tmp = tmp_path_factory.mktemp("log")
        if how == "stdin":
            args: tuple[str, ...] = ("match", "-")
            result = run_bounded(*args, input=data)
        else:
            log = tmp / ("log.gz" if how == "gzip-name" else "log.txt")
            log.write_bytes(data)
            args = ("match", str(log), "--format", "json") if how == "summary" else ("match", str(log))
            result = run_bounded(*args)
        assert_handled(*result, args)

    check()


#: Where the known-bad texts go in the explicit sweep: a field of each JSON type, at the top and nested.
SWEEP_FIELDS = [("record", "lineNumber"), ("record", "errorMessage"), ("record", "messagePattern"),
                ("record", "httpStatus"), ("record", "tags"), ("record", "solutions", 0), ("datasetVersion",)]


def _with_raw(path: tuple[Any, ...], raw: str) -> bytes:
    envelope = copy.deepcopy(BASE)
    parent: Any = envelope
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = "@marker@"
    return json.dumps(envelope, ensure_ascii=False).replace('"@marker@"', raw).encode("utf-8", "surrogatepass")


def _sweep(tmp_path: Path) -> Iterator[tuple[Path, tuple[Any, ...], str, bytes]]:
    """Each known-bad text in each sweep field: a fresh folder (with a log), the field, the text, the record."""
    for n, (path, raw) in enumerate((p, r) for p in SWEEP_FIELDS for r in RAW.values()):
        tmp = tmp_path / str(n)
        tmp.mkdir()
        (tmp / "log.txt").write_bytes(b"CreateOS returned invalid JSON.\n")
        yield tmp, path, raw, _with_raw(path, raw)


@pytest.mark.parametrize("command", sorted(RECORD_COMMANDS))
def test_commands_reading_records_survive_known_bad_texts(command: str, tmp_path: Path) -> None:
    """Every known-bad JSON text (huge integers, 79.0, NaN, lone surrogates, deep nesting...) in every kind of
    field, through every command: the cases random generation reaches too rarely."""
    build = RECORD_COMMANDS[command]
    for tmp, _, _, data in _sweep(tmp_path):
        args = tuple(build(tmp, _record_dir(tmp, data), _bundle(tmp, data)))
        assert_handled(*run_bounded(*args), args)


#: Commands that need every record to be valid: what validate accepts they must accept, and the reverse.
STRICT_COMMANDS = ["index", "export", "site", "explain", "release", "prove"]


def test_what_validate_accepts_every_command_accepts(tmp_path: Path) -> None:
    """One loader and one set of checks: a record that validates clean works everywhere; one that does not is
    refused everywhere (exit 1), never accepted by one command and broken in another."""
    for tmp, path, raw, data in _sweep(tmp_path):
        folder = _record_dir(tmp, data)
        verdict, _ = run_bounded("validate", str(folder))
        for command in STRICT_COMMANDS:
            if command == "explain":
                args = ("explain", "--records", str(folder), BASE["record"]["id"])
            else:
                args = tuple(RECORD_COMMANDS[command](tmp, folder, _bundle(tmp, data)))
            code, stderr = run_bounded(*args)
            assert_handled(code, stderr, args)
            assert (code == 0) == (verdict == 0), (
                f"{path}={raw[:30]!r}: validate exited {verdict} but errdex {command} exited {code}: {stderr[-500:]}")


#: The files besides records that commands read: a proof report for site build and a release manifest in the
#: records folder (read by site build and release), each the real shape with fields replaced, or anything at all.
REAL_PROOFS = {"records": [{"id": BASE["record"]["id"], "passed": True, "scenarios": [
    {"id": s["id"], "passed": True, "failures": []} for s in BASE["record"]["scenarios"]]}]}
REAL_MANIFEST = {"version": "2026-11-30T00:00:00Z", "counts": {"records": 1}, "records": {
    BASE["record"]["id"]: {"slug": BASE["record"]["slug"], "hash": "0" * 16, "status": "active", "fields": {}}}}


@pytest.mark.parametrize("kind", ["proofs", "manifest"])
def test_commands_survive_any_proofs_file_or_release_manifest(kind: str,
                                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    real = REAL_PROOFS if kind == "proofs" else REAL_MANIFEST

    @settings(FUZZ, max_examples=25)
    @given(data=st.binary(max_size=1024) | json_values.map(lambda v: json.dumps(v).encode()) | mutated(real))
    def check(data: bytes) -> None:
        tmp = tmp_path_factory.mktemp(kind)
        folder = _record_dir(tmp, json.dumps(BASE).encode())
        runs = []
        if kind == "proofs":
            (tmp / "proofs.json").write_bytes(data)
            runs.append(("site", "build", "--records", str(folder), "--out", str(tmp / "site"), "--no-search",
                         "--proofs", str(tmp / "proofs.json")))
        else:
            (folder / ".releases").mkdir()
            (folder / ".releases" / "2026-11-30T000000Z.json").write_bytes(data)
            runs.append(("site", "build", "--records", str(folder), "--out", str(tmp / "site"), "--no-search"))
            runs.append(("release", "--records", str(folder), "--check", "--version", "2026-12-30T00:00:00Z"))
        for args in runs:
            assert_handled(*run_bounded(*args), args)

    check()
