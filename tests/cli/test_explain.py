"""``errdex explain`` on the command line: a pager only on a terminal, --short, --prove and --proofs,
did-you-mean, and the flags it refuses together."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LINE = "ERROR CreateOS request failed (HTTP 400) during process creation."
ONE = "createos-returned-invalid-json"
#: A pager that copies what it is given to the file it is told.
PAGER = "import shutil, sys; shutil.copyfileobj(sys.stdin.buffer, open(sys.argv[1], 'wb'))"


def _on_a_terminal(tmp_path: Path, *args: str, pager: bool = True) -> tuple[int, str, Path]:
    """Run ``errdex ARGS`` with its stdout on a pseudo-terminal and PAGER copying to a file: the exit code,
    what reached the terminal, and the file."""
    paged = tmp_path / "paged.txt"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'toolkit'}{os.pathsep}{ROOT}", "NO_COLOR": "1",
           "PAGER": f"{sys.executable} -c \"{PAGER}\" {paged}" if pager else ""}
    master, slave = os.openpty()
    process = subprocess.Popen([sys.executable, "-m", "errdex", *args], stdout=slave, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, env=env, cwd=tmp_path)
    os.close(slave)
    shown = b""
    while True:  # read the terminal until the program closes it (EIO on Linux once every writer is gone)
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            process.kill()
            raise AssertionError("errdex explain did not finish")
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    code = process.wait(timeout=60)
    assert process.stderr is not None
    assert process.stderr.read() == b""
    return code, shown.decode().replace("\r\n", "\n"), paged


def test_a_terminal_gets_the_pager(tmp_path: Path) -> None:
    code, shown, paged = _on_a_terminal(tmp_path, "explain", LINE)
    assert code == 0 and shown == ""
    assert paged.read_text().startswith("CreateOS request failed (HTTP 400) during process creation.\n")


def test_no_pager_and_an_empty_pager_write_to_the_terminal(tmp_path: Path) -> None:
    code, shown, paged = _on_a_terminal(tmp_path, "explain", LINE, "--no-pager")
    assert code == 0 and not paged.exists() and shown.startswith("CreateOS request failed (HTTP 400)")
    code, shown, paged = _on_a_terminal(tmp_path, "explain", ONE, pager=False)
    assert code == 0 and not paged.exists() and shown.startswith("CreateOS returned invalid JSON.\n")


def test_no_pager_when_stdout_is_not_a_terminal(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    paged = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"{sys.executable} -c \"{PAGER}\" {paged}")
    result = cli("explain", LINE)
    assert result.exit_code == 0 and result.stdout.startswith("CreateOS request failed (HTTP 400)")
    assert not paged.exists()


def test_short(cli: Any) -> None:
    result = cli("explain", LINE, "--short")
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and len(lines) < 15
    assert lines[0] == "CreateOS request failed (HTTP 400) during process creation."
    assert lines[-1] == "more: errdex explain createos-request-failed-http-404-during-sandbox-lifecycle"


def test_did_you_mean(cli: Any) -> None:
    near = cli("explain", "createos-returned-invalid-jsno")
    assert near.exit_code == 1 and near.stdout == ""
    assert "did you mean createos-returned-invalid-json?" in near.stderr
    assert cli("explain", "e1429068").stdout.startswith("CreateOS returned invalid JSON.\n")


def test_proof_status_from_a_report_file(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    record = cli("explain", ONE, "--format", "json").json()
    report = {"records": [{"id": record["id"], "slug": ONE, "passed": True, "problem": None,
                           "scenarios": [{"id": s["id"], "passed": True} for s in record["scenarios"]]}]}
    Path("proofs.json").write_text(json.dumps(report))
    shown = cli("explain", ONE, "--proofs", "proofs.json")
    count = len(record["scenarios"])
    assert shown.exit_code == 0
    assert f"Proof: proved in proofs.json: {count} of {count} scenario(s) passed" in shown.stdout
    plain = cli("explain", ONE).stdout
    assert "Proof: not proved in this run" in plain and "[passed]" not in plain
    broken = tmp_path / "broken.json"
    broken.write_text("[]")
    refused = cli("explain", ONE, "--proofs", str(broken))
    assert refused.exit_code == 1 and "not a proof report" in refused.stderr


def test_prove_runs_the_record_s_scenarios(cli: Any) -> None:
    shown = cli("explain", ONE, "--prove")
    assert shown.exit_code == 0, shown.stderr
    assert "Proof: proved in this run: " in shown.stdout and "[passed]" in shown.stdout


def test_incompatible_flags_are_refused(cli: Any, tmp_path: Path) -> None:
    both = cli("explain", ONE, "--prove", "--proofs", str(tmp_path / "p.json"))
    assert both.exit_code == 2 and "give one" in both.stderr
    as_json = cli("explain", ONE, "--format", "json", "--short")
    assert as_json.exit_code == 2 and "--format json" in as_json.stderr
    assert cli("explain", ONE, "--format", "json").json()["slug"] == ONE  # json stays the stored record


def _readme_block(after: str) -> list[str]:
    """The lines of the README's first fenced block after the text ``after``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rest = text[text.index(after):]
    start = rest.index("```\n") + 4
    return rest[start:rest.index("```", start)].splitlines()


def test_the_readme_shows_real_output(cli: Any) -> None:
    sshd = ("Dec 10 06:55:48 LabSZ sshd[24200]: Failed password for invalid user webmaster from 173.234.31.186 "
            "port 38926 ssh2")
    block = _readme_block("A real sshd line from Loghub's OpenSSH sample")
    assert cli("explain", sshd).stdout.splitlines()[: len(block)] == block and len(block) == 21
    assert cli("explain", LINE, "--short").stdout.splitlines() == _readme_block("`--short` prints only")
    near = cli("explain", "createos-returned-invalid-jsno").stderr.splitlines()
    assert near == _readme_block("a prefix several records share")
