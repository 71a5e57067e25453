"""The site's search index: words as the browser splits them, shards, scores by field."""

from __future__ import annotations

import json

from errdex.site.search import DOCS_PER_SHARD, build_search_index, tokens


def _record(i: int, message: str, documentation: str = "", **extra: object) -> dict[str, object]:
    return {"id": f"{i:016x}", "slug": f"r-{i}", "repo": "a/b", "errorMessage": message, "errorClass": "Error",
            "documentation": documentation, "filePath": "src/x.ts", **extra}


def test_tokens() -> None:
    assert tokens("CreateOS request failed (HTTP 502) during x_y") == [
        "createos", "request", "failed", "http", "502", "during"]
    assert tokens("Sandbox's lease: timed-out") == ["sandbox", "lease", "timed", "out"]
    assert tokens("a b 7 ü") == ["7"]  # single letters are dropped, single digits kept
    assert tokens("Über_größe") == ["über", "größe"]


def test_index_layout_and_scores() -> None:
    records = [_record(i, f"Message {i} about sandboxes", "common words here") for i in range(DOCS_PER_SHARD + 5)]
    records[3]["documentation"] = "the lease expired while waiting"
    files = build_search_index(records, lambda r: f"records/{r['slug']}.html", lambda r: "excerpt")
    meta = json.loads(files["meta.json"])
    assert meta["documents"] == len(records) and {"docs-0.json", "docs-1.json"} <= set(files)
    docs = json.loads(files["docs-0.json"])
    assert docs[3] == ["records/r-3.html", "Message 3 about sandboxes", "Error", "excerpt"]
    lease = json.loads(files["terms-6c-65.json"])  # "le": 0x6c, 0x65
    assert lease["lease"] == [3, 2]  # document 3, once in the documentation (weight 2)
    sandboxes = json.loads(files["terms-73-61.json"])["sandboxes"]
    assert sandboxes[:2] == [0, 8]  # once in the message (weight 8)
    assert all(name.endswith(".json") for name in files)
