"""Two records that match a line equally well (one message written by two statements), for the tie-break tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, write_envelope

_SOURCE = ROOT / "records" / "paperclipai" / "paperclip" / "createos-returned-invalid-json.json"
MESSAGE = "Twin statement wrote this message for session 7."
#: id -> (file, line) of each twin; the first in id order is not the one the hints below name.
TWINS = {
    "00000000000a0001": ("src/main/java/org/acme/Alpha.java", 120),
    "00000000000a0002": ("src/main/java/org/acme/Beta.java", 368),
}
#: A log line and the id every matcher must rank first on it.
LINES = {
    f"2026-12-01 10:00:00,001 - WARN  [main:Beta@368] - {MESSAGE}": "00000000000a0002",
    f"2026-12-01 10:00:00,002 - WARN  at Beta.java:368: {MESSAGE}": "00000000000a0002",
    f"2026-12-01 10:00:00,003 - WARN  [main:Alpha@120] - {MESSAGE}": "00000000000a0001",
    # another line of Beta's class: the class still names the file (a record a release behind on its line)
    f"2026-12-01 10:00:00,004 - WARN  [main:Beta@3680] - {MESSAGE}": "00000000000a0002",
    f"2026-12-01 10:00:00,007 - WARN  [main:Gamma@368] - {MESSAGE}": "00000000000a0001",  # another class: no hint
    f"2026-12-01 10:00:00,005 - WARN  [main:XBeta@368] - {MESSAGE}": "00000000000a0001",  # another class
    f"2026-12-01 10:00:00,006 - WARN  {MESSAGE}": "00000000000a0001",  # no hint: record id decides
}


def write_twins(folder: Path) -> Path:
    """A records folder holding the two twins only (active, documented, one pattern)."""
    envelope = json.loads(_SOURCE.read_text(encoding="utf-8"))
    for number, (ident, (path, line)) in enumerate(TWINS.items(), start=1):
        twin: dict[str, Any] = copy.deepcopy(envelope)
        record = twin["record"]
        record.update(id=ident, slug=f"twin-statement-wrote-this-message-{number}", errorMessage=MESSAGE,
                      messagePattern=r"Twin statement wrote this message for session ([0-9]+)\.",
                      filePath=path, lineNumber=line, scenarios=[])
        write_envelope(folder, twin)
    return folder
