"""A draft record as ``errdex harvest`` writes it (format version 4, status draft, prose empty), for tests."""

from __future__ import annotations

import copy
import json
from typing import Any

from errdex.records.slug import derive_slug
from tests.conftest import ROOT

_DRAFT = json.loads((ROOT / "tests/corpus/v4/draft-empty-prose.json").read_text(encoding="utf-8"))


def draft_envelope(number: int = 1) -> dict[str, Any]:
    """A draft of its own (id, message, slug, excerpt): the message ``Lease N expired before renew (... ms late)``
    raised at line 41 of ``src/lease.ts``."""
    envelope = copy.deepcopy(_DRAFT)
    record = envelope["record"]
    message = f"Lease {number} expired before renew (${{late}} ms late)"
    sha = record["analyzedSha"]
    record.update(
        id=f"{0xd0000000 + number:016x}", errorMessage=message, slug=derive_slug(message),
        messagePattern=f"Lease {number} expired before renew \\((-?[0-9]+) ms late\\)",
        errorClass="LeaseError", filePath="src/lease.ts", lineNumber=41, sourceCodeStart=39, sourceCodeEnd=43,
        sourceCode="  renew(lease: Lease): void {\n    if (lease.expiresAt < now()) {\n"
                   f"      throw new LeaseError(`Lease {number} expired before renew (${{late}} ms late)`);\n"
                   "    }\n  }",
        githubUrl=f"https://github.com/{record['repo']}/blob/{sha}/src/lease.ts#L39-L43",
        triggerScenarios="raised in renew() when lease.expiresAt < now()",
    )
    return envelope
