"""Caches heal themselves: a damaged entry is rebuilt, an unusable cache folder is bypassed with one warning."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from errdex.cache import sha256

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "examples" / "worker.log"


def _commands(cli) -> list[tuple[str, ...]]:
    return [("match", str(LOG), "--format", "jsonl"), ("explain", "createos-returned-invalid-json", "--format", "json"),
            ("validate", "-q"), ("query", "SELECT count(*) AS n FROM records", "--format", "json")]


def _run_all(cli) -> list[str]:
    outputs = []
    for args in _commands(cli):
        result = cli(*args)
        assert result.exit_code == 0, (args, result.stderr)
        outputs.append(result.stdout)
    return outputs


@pytest.mark.parametrize("damage", ["garble", "truncate", "empty", "other-json"])
def test_every_damaged_cache_file_is_rebuilt(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    expected = _run_all(cli)
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert {p.parent.name for p in files} >= {"records", "hyperscan", "index"}
    for path in files:
        data = path.read_bytes()
        if damage == "garble":  # the same size, so a size check cannot tell
            path.write_bytes(bytes(b ^ 0x5A for b in data))
        elif damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "empty":
            path.write_bytes(b"")
        elif path.suffix == ".json":  # valid JSON of the right version whose entries have the wrong shapes
            stored = json.loads(data)
            for name in ("entries", "verdicts"):
                if isinstance(stored.get(name), dict):
                    stored[name] = {key: ["wrong"] for key in stored[name]}
            path.write_text(json.dumps(stored))
        else:
            path.write_bytes(b"\x00" * len(data))
    assert _run_all(cli) == expected
    assert _run_all(cli) == expected  # and again, from the rebuilt cache


def test_a_records_cache_garbled_in_place_heals_itself(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report: every later match failed with "run the command again", forever."""
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "cache"))
    first = cli("match", str(LOG))
    [bodies] = (tmp_path / "cache" / "records").glob("*.records")
    bodies.write_bytes(b"#" * bodies.stat().st_size)
    for _ in range(2):
        again = cli("match", str(LOG))
        assert (again.exit_code, again.stdout) == (0, first.stdout)
    assert bodies.read_bytes().startswith(b"{")  # rebuilt


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_unusable_cache_folder_is_bypassed_with_one_warning(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               where: str) -> None:
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "normal"))
    expected = _run_all(cli)
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(blocker if where == "a file" else blocker / "cache"))
    warnings = []
    for args, output in zip(_commands(cli), expected, strict=True):
        result = cli(*args)
        assert (result.exit_code, result.stdout) == (0, output), (args, result.stderr)
        warnings += [line for line in result.stderr.splitlines() if "cache" in line]
    [warning] = warnings  # once per process
    assert warning.startswith("errdex: warning: the cache folder ") and warning.endswith("; working without a cache")
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("size", [0, 1, 1000, 1 << 16, (1 << 16) + 1, 1 << 20])
def test_sha256_gives_hashlibs_digest_at_every_size(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert sha256(data).digest() == hashlib.sha256(data).digest()
