"""Terminal output: control characters from log lines, records and file names are shown as escapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from errdex.terminal import safe, safe_value
from tests.conftest import write_envelope

HOSTILE = "\x1b]0;owned\x07\x1b[2J\r\x9b\u202eevil\u2066\u200f\u061c\x7f"
ESCAPED = "\\x1b]0;owned\\x07\\x1b[2J\\x0d\\x9b\\u202eevil\\u2066\\u200f\\u061c\\x7f"
RAW = ["\x1b", "\x07", "\r", "\x9b", "\u202e", "\u2066", "\u200f", "\u061c", "\x7f"]


def _clean(text: str) -> bool:
    return not any(char in text for char in RAW)


def test_safe_escapes_every_control_but_tabs_and_line_feeds() -> None:
    assert safe(HOSTILE) == ESCAPED
    assert safe("a\tb\nc") == "a\tb\nc" and safe("a\tb\nc", newlines=False) == "a\tb\\x0ac"
    assert safe("plain é ü 日本") == "plain é ü 日本"
    assert safe_value({"k": [HOSTILE, 1, None], "n": 2}) == {"k": [ESCAPED, 1, None], "n": 2}


def test_match_text_escapes_the_log_line_and_json_stays_exact(cli) -> None:
    line = "\x1b]0;T\x07\x1b[2J x CreateOS returned invalid JSON.\u202e\r"
    text = cli("match", "-", "--each", input=line + "\n")
    assert text.exit_code == 0 and _clean(text.stdout)
    assert "<stdin>:1: \\x1b]0;T\\x07\\x1b[2J x CreateOS returned invalid JSON.\\u202e" in text.stdout
    found = json.loads(cli("match", "-", "--format", "jsonl", input=line + "\n").stdout)
    assert found["text"] == line.rstrip("\r")
    summary = cli("match", "-", "--summary", input="\x1b[2J fatal error\n")
    assert _clean(summary.stdout) and "\\x1b[2J fatal error" in summary.stdout


def test_explain_and_match_escape_record_fields(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    record = seed["record"]
    record["documentation"] = "Means trouble" + HOSTILE + ". More."
    record["solutions"] = ["Fix it" + HOSTILE]
    folder = tmp_path / "records"
    write_envelope(folder, seed)
    shown = cli("explain", record["slug"], "--records", str(folder))
    assert shown.exit_code == 0 and _clean(shown.stdout) and ESCAPED in shown.stdout
    matched = cli("match", "-", "--records", str(folder), input=record["errorMessage"] + "\n")
    assert matched.exit_code == 0 and _clean(matched.stdout) and "fix: Fix it" + ESCAPED in matched.stdout
    exact = json.loads(cli("explain", record["slug"], "--records", str(folder), "--format", "json").stdout)
    assert exact["documentation"] == record["documentation"]


def test_validate_and_error_messages_escape_file_names(cli, tmp_path: Path) -> None:
    bad = tmp_path / "x\x1b[2J\u202e.json"
    bad.write_text("{ not json")
    for fmt in ("text", "github"):
        result = cli("validate", str(bad), "--format", fmt)
        assert result.exit_code == 1 and _clean(result.stdout) and _clean(result.stderr), fmt
        assert "x\\x1b[2J\\u202e.json" in result.stdout
    assert cli("validate", str(bad), "--format", "json").json()[0]["path"] == str(bad)  # JSON stays exact
    missing = cli("match", str(tmp_path / "gone\x1b]0;T\x07.log"))
    assert missing.exit_code == 1 and _clean(missing.stderr) and "gone\\x1b]0;T\\x07.log" in missing.stderr
    usage = cli("explain", "nothing\x1b[2J at all")
    assert usage.exit_code == 1 and _clean(usage.stderr) and "nothing\\x1b[2J at all" in usage.stderr


def test_query_diff_fmt_and_migrate_text_escape_record_fields_and_file_names(cli, tmp_path: Path,
                                                                            seed: dict[str, Any]) -> None:
    old = tmp_path / "old"
    write_envelope(old, seed)
    record = seed["record"]
    record["documentation"] = "Means trouble" + HOSTILE
    new = tmp_path / "new"
    write_envelope(new, seed)
    table = cli("query", "--records", str(new), "SELECT documentation FROM records")
    assert table.exit_code == 0 and _clean(table.stdout)
    assert "Means trouble" + ESCAPED[:40] in table.stdout  # cut to its width
    rows = cli("query", "--records", str(new), "--format", "json", "SELECT documentation FROM records").json()
    assert rows == [{"documentation": record["documentation"]}]  # JSON stays exact
    changed = cli("diff", str(old), str(new))
    assert changed.exit_code == 1 and _clean(changed.stdout) and "documentation:" in changed.stdout
    hostile = tmp_path / "x\x1b[2J\u202e"
    path = write_envelope(hostile, seed, folder="acme/api")
    path.write_text(path.read_text() + "\n\n")  # not canonical
    formatted = cli("fmt", str(hostile))
    assert formatted.exit_code == 0 and _clean(formatted.stdout) and "x\\x1b[2J\\u202e" in formatted.stdout
    migrated = cli("migrate", "--to", "3", "--check", str(hostile))
    assert migrated.exit_code == 1 and _clean(migrated.stdout) and "x\\x1b[2J\\u202e" in migrated.stdout


def test_a_file_name_with_a_line_feed_stays_on_its_one_line(cli, tmp_path: Path, seed: dict[str, Any]) -> None:
    """One item, one line: a line feed in a file name is shown as an escape wherever the name is printed."""
    folder = tmp_path / "records"
    write_envelope(folder, seed)
    log = tmp_path / "two\nlines.log"
    log.write_text(seed["record"]["errorMessage"] + "\nfatal error: disk on fire\n")
    summary = cli("match", str(log), "--records", str(folder), "--summary")
    assert summary.exit_code == 0, summary.stderr
    shown = [line for line in summary.stdout.splitlines() if "lines.log" in line]
    assert len(shown) == 2 and all(f"{tmp_path}/two" in line for line in shown), summary.stdout
    assert not any(line.startswith("lines.log") for line in summary.stdout.splitlines())
    missing = cli("match", str(tmp_path / "gone\nx.log"))
    assert missing.exit_code == 1 and missing.stderr.count("\n") == 1 and "gone\\x0ax.log" in missing.stderr
    hostile = tmp_path / "a\nb"
    path = write_envelope(hostile, seed, folder="acme/api")
    path.write_text(path.read_text() + "\n\n")  # not canonical
    formatted = cli("fmt", str(hostile), "--check")
    assert formatted.exit_code == 1 and formatted.stdout.count("\n") == 1 and "a\\x0ab" in formatted.stdout
    assert all(line.count("\n") == 0 for line in formatted.stderr.splitlines())
    assert formatted.stderr.count("\n") == 1, formatted.stderr
