"""The site's search index: words, stems and compounds, shards, scores by field; the browser stems alike."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from errdex.site.build import site_dir
from errdex.site.search import DOCS_PER_SHARD, build_search_index, stem, terms, tokens
from tests.site.conftest import RECORDS


def _record(i: int, message: str, documentation: str = "", **extra: object) -> dict[str, object]:
    return {"id": f"{i:016x}", "slug": f"r-{i}", "repo": "a/b", "errorMessage": message, "errorClass": "Error",
            "documentation": documentation, "filePath": "src/x.ts", **extra}


def test_tokens() -> None:
    assert tokens("CreateOS request failed (HTTP 502) during x_y") == [
        "createos", "request", "failed", "http", "502", "during"]
    assert tokens("Sandbox's lease: timed-out") == ["sandbox", "lease", "timed", "out"]
    assert tokens("a b 7 ü") == ["7"]  # single letters are dropped, single digits kept
    assert tokens("Über_größe") == ["über", "größe"]


def test_inflections_share_a_stem_and_codes_stay_whole() -> None:
    assert stem("timed") == stem("timing") == stem("times") == stem("time")
    assert stem("cancelled") == stem("cancelling") == stem("cancel")
    assert stem("processes") == stem("processing") == stem("process")
    assert stem("timeouts") == stem("timeout")
    assert stem("ed25519") == "ed25519" and stem("502") == "502" and stem("größe") == "größe"


def test_terms_of_compounds_mixed_words_and_codes() -> None:
    assert stem("timeout") in list(terms("the request timed out"))  # "timed out" is also "timeout"
    assert {stem("timed"), "out"} <= set(terms("Timeout before authentication"))  # and the other way round
    assert {"createosapierror", "api", "error"} <= set(terms("CreateosApiError"))
    assert {"edx123", "edx", "123"} <= set(terms("EDX123"))
    assert {"http", "410"} <= set(terms("http-410"))


def _browser_stems(words: list[str]) -> list[str]:
    """The stems of ``assets/errdex.js`` (its stemmer, run in node)."""
    script = (site_dir() / "assets" / "errdex.js").read_text(encoding="utf-8")
    stemmer = script[script.index("// The stemmer of"):script.index("function shardFile")]
    program = stemmer + "\nconst input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n" \
                        "process.stdout.write(JSON.stringify(input.map(stem)));\n"
    done = subprocess.run(["node", "-e", program], input=json.dumps(words), capture_output=True, text=True,
                          check=True)
    return list(json.loads(done.stdout))


def test_the_browser_stems_every_word_of_the_dataset_as_the_index_does() -> None:
    words = set()
    for path in Path(RECORDS).rglob("*.json"):
        words.update(tokens(path.read_text(encoding="utf-8")))
    words.update(["timeouts", "setups", "cleanups", "shutdowns", "ies", "boxes", "running", "stopped", "a1b2"])
    ordered = sorted(words)
    assert len(ordered) > 1000
    assert _browser_stems(ordered) == [stem(word) for word in ordered]


def test_index_layout_and_scores() -> None:
    records = [_record(i, f"Message {i} about sandboxes", "common words here") for i in range(DOCS_PER_SHARD + 5)]
    records[3]["documentation"] = "the lease expired while waiting"
    files = build_search_index(records, lambda r: f"records/{r['slug']}.html", lambda r: "excerpt")
    meta = json.loads(files["meta.json"])
    assert meta["documents"] == len(records) and {"docs-0.json", "docs-1.json"} <= set(files)
    docs = json.loads(files["docs-0.json"])
    assert docs[3] == ["records/r-3.html", "Message 3 about sandboxes", "Error", "excerpt"]
    lease = json.loads(files["terms-6c-65.json"])  # "le": 0x6c, 0x65
    assert lease["t"]["leas"][0] == 3  # document 3 only, once in the documentation
    assert lease["w"]["leas"] == "lease"  # the word the stem stands for, for the typo hint
    sandboxes = json.loads(files["terms-73-61.json"])["t"]["sandbox"]
    assert sandboxes[0] == 0 and sandboxes[1] > lease["t"]["leas"][1]  # in the message: weighs more
    assert all(re.fullmatch(r"[a-z0-9-]+\.json", name) for name in files)
