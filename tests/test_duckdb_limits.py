"""errdex._duckdb: every DuckDB connection errdex opens has bounded memory and spill, in a folder errdex removes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errdex._duckdb import connect, parse_size
from errdex.errors import ConfigError
from errdex.index import build_index
from tests.processes import ROOT, errdex_env, run, start, wait_until

#: A query that sorts far more than 32 MiB of memory holds: it spills.
SPILLING = "SELECT i, md5(i::VARCHAR) AS m FROM range(20000000) t(i) ORDER BY m"
#: Little memory, so that a test spills soon.
SMALL = {"ERRDEX_DUCKDB_MEMORY": "64MiB"}


@pytest.fixture(scope="module")
def index_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(db=tmp_path_factory.mktemp("index") / "x.duckdb").path


def _spilled(cache: Path) -> list[str]:
    """The files in the spill folders of the cache."""
    spill = cache / "spill"
    return sorted(str(p.relative_to(spill)) for p in spill.rglob("*") if p.is_file()) if spill.exists() else []


def test_a_query_past_its_spill_limit_stops_in_one_line_and_leaves_nothing(index_file: Path, tmp_path: Path) -> None:
    """DuckDB's own limit was 90% of the free disk (one ORDER BY wrote 3.1 GB in 20 s, beside the index)."""
    cache = tmp_path / "cache"
    for how in (["--spill-limit", "20MB"], []):
        env = {**SMALL, "ERRDEX_CACHE_DIR": str(cache)} | ({} if how else {"ERRDEX_DUCKDB_SPILL": "20MB"})
        done = run("query", SPILLING, "--db", str(index_file), "--limit", "1", *how, cwd=tmp_path, **env)
        assert done.returncode == 1 and done.stdout == "", done.stderr
        assert done.stderr.startswith("errdex: error: query stopped: it needs more than the 64 MiB of memory and "
                                      "19 MiB of disk to spill to") and done.stderr.count("\n") == 1, done.stderr
        assert _spilled(cache) == [] and os.listdir(cache / "spill") == []
    assert not [p for p in index_file.parent.iterdir() if p.name.endswith(".tmp")]  # nothing beside the index
    for given, env in ((["--spill-limit", "lots"], {}), ([], {"ERRDEX_DUCKDB_SPILL": "1 XB"}),
                       ([], {"ERRDEX_DUCKDB_MEMORY": "1KB"})):
        refused = run("query", "SELECT 1", "--db", str(index_file), *given, cwd=tmp_path, **env)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    fits = run("query", SPILLING.replace("20000000", "3000000"), "--db", str(index_file), "--limit", "1",
               "--spill-limit", "2GiB", cwd=tmp_path, ERRDEX_CACHE_DIR=str(cache), **SMALL)
    assert fits.returncode == 0 and fits.stdout.split()[-2:] == ["2420500", "0000023f507999464aa2b78875b7e5d6"], \
        fits.stderr  # ~150 MB sorted in 64 MiB (with --spill-limit 0 it stops): it spilled, within its limit


def test_the_spill_of_a_killed_query_is_removed_by_the_next_run(index_file: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    killed = start("query", SPILLING, "--db", str(index_file), "--spill-limit", "4GiB", cwd=tmp_path,
                   ERRDEX_CACHE_DIR=str(cache), **SMALL)
    try:
        wait_until(lambda: any(name.startswith(f"{killed.pid}-") for name in _spilled(cache)),
                   what="the query to spill", timeout=60)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.communicate()
    assert _spilled(cache)  # what a SIGKILL leaves
    again = run("query", "SELECT 1 AS one", cwd=tmp_path, ERRDEX_CACHE_DIR=str(cache))
    assert again.returncode == 0, again.stderr
    assert _spilled(cache) == [] and os.listdir(cache / "spill") == []


def test_every_connection_is_bounded_and_old_spill_beside_the_cached_index_goes(tmp_path: Path) -> None:
    cache = Path(os.environ["ERRDEX_CACHE_DIR"])
    old = cache / "index" / "records-0123456789abcdef.duckdb.tmp"  # where DuckDB spilled before errdex chose
    old.mkdir(parents=True)
    (old / "duckdb_temp_storage-0.tmp").write_bytes(b"x" * 1000)
    hour_ago = time.time() - 7200
    os.utime(old, (hour_ago, hour_ago))
    recent = cache / "index" / "records-fedcba9876543210.duckdb.tmp"
    recent.mkdir()
    con = connect(config={"threads": 1})
    try:
        memory, spill, folder = con.execute("SELECT current_setting('memory_limit'), "
                                            "current_setting('max_temp_directory_size'), "
                                            "current_setting('temp_directory')").fetchone() or ()
    finally:
        con.close()
    assert (memory, spill) == ("512.0 MiB", "1.0 GiB")
    assert Path(folder).parent == cache / "spill" and Path(folder).name.startswith(f"{os.getpid()}-")
    assert not old.exists() and recent.exists()  # one that may still be in use is left


def test_sizes() -> None:
    assert [parse_size(s, what="x") for s in ("0", "512MiB", "2GB", "1.5 kib", "10b")] == [
        0, 512 << 20, 2 * 10**9, 1536, 10]
    for bad in ("", "-1GB", "1 XB", "GB", "1e9"):
        with pytest.raises(ConfigError, match=r"x: .* is not a size"):
            parse_size(bad, what="x")


def test_export_and_index_within_the_limits_or_one_line(tmp_path: Path) -> None:
    """Building an index and exporting Parquet get the same limits; past them, one line naming the file and the
    setting to raise (DuckDB's own text is ten lines of advice on settings errdex chooses)."""
    done = run("export", "--to", "parquet", "--output", "x.parquet", cwd=tmp_path, ERRDEX_DUCKDB_MEMORY="32MiB")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr == ("errdex: error: cannot write Parquet to x.parquet: it needs more than the 32 MiB of "
                           "memory that DuckDB may use here (raise $ERRDEX_DUCKDB_MEMORY)\n")
    assert os.listdir(tmp_path) == []
    assert run("export", "--to", "parquet", "--output", "x.parquet", cwd=tmp_path).returncode == 0
    built = run("index", "--db", "x.duckdb", cwd=tmp_path, ERRDEX_DUCKDB_SPILL="nonsense")
    assert built.returncode == 2 and built.stderr == ("errdex: error: ERRDEX_DUCKDB_SPILL: 'nonsense' is not a size "
                                                      "(a number and a unit: 512MiB, 2GB, 0)\n")
    assert sorted(os.listdir(tmp_path)) == ["x.parquet"]


def test_without_a_cache_the_spill_goes_to_a_private_temporary_folder_cleaned_the_same_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    import sys
    import tempfile

    from errdex._duckdb import spill_folder

    (tmp_path / "file").write_text("")
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(tmp_path / "file" / "cache"))  # under a file: no cache
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    root = tmp_path / f"errdex-spill-{os.getuid()}"
    (root / f"{gone.stdout.strip()}-0").mkdir(parents=True)  # what a process killed while it spilled left
    (root / f"{gone.stdout.strip()}-0" / "duckdb_temp_storage-0.tmp").write_bytes(b"x")
    mine = spill_folder()
    assert mine.parent == root and mine.name.startswith(f"{os.getpid()}-")
    assert os.listdir(root) == [] and root.stat().st_mode & 0o777 == 0o700
    assert "cannot be used" in capsys.readouterr().err


_CAPPED_AT_CONNECT = """
import os, resource, sys
import duckdb
from errdex.cli import main

real = duckdb.connect

def connect(*args, **kwargs):  # the system's limit on the process (ulimit -v) reached as DuckDB starts
    used = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (used + (2 << 20), resource.RLIM_INFINITY))
    return real(*args, **kwargs)

duckdb.connect = connect
main(sys.argv[1:])
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the process's size from /proc")
def test_too_little_memory_for_duckdb_to_start_is_one_line_naming_the_limit(tmp_path: Path) -> None:
    """ulimit -v that left DuckDB too little to start: exit 70, 'internal error: OutOfMemoryException'."""
    done = subprocess.run([sys.executable, "-c", _CAPPED_AT_CONNECT, "export", "--to", "parquet",
                           "--records", str(ROOT / "records"), "--output", str(tmp_path / "out.parquet")],
                          env=errdex_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "out of memory" in done.stderr and "MiB of address space this process may use (ulimit -v)" in done.stderr
    assert list(tmp_path.iterdir()) == []
