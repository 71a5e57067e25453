"""Realistic generated records for benchmarks: valid, varied, shaped like the seed."""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path
from typing import Any

from errdex.records.canonical import canonical_text
from errdex.records.slug import derive_slug

SUBJECTS = ["Sandbox", "Worker", "Lease", "Upload", "Process", "Session", "Token", "Bucket", "Queue", "Cache",
            "Replica", "Snapshot", "Volume", "Tunnel", "Webhook", "Scheduler", "Index", "Cursor", "Shard", "Plugin"]
VERBS = ["could not be", "failed to be", "was not", "cannot be", "was never"]
PARTS = ["created", "confirmed", "resumed", "paused", "destroyed", "uploaded", "read", "written", "migrated",
         "verified", "scheduled", "drained", "restored", "rotated", "attached", "detached", "indexed", "flushed"]
REASONS = ["before the deadline", "after the retry budget ran out", "because the lease expired",
           "while the connection was closing", "since the upstream refused it", "during the rollout"]
CLASSES = ["Error", "TypeError", "RangeError", "TimeoutError", "ProviderError", "CleanupError", "ApiError"]
REPOS = [f"acme{n}/service{m}" for n in range(20) for m in range(5)]


def _escape(text: str) -> str:
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", text)


def make_record(index: int, rng: random.Random) -> dict[str, Any]:
    subject, verb, part, reason = rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(PARTS), rng.choice(REASONS)
    dynamic = rng.random() < 0.6
    head = f"{subject} {index} {verb} {part} {reason}"
    if dynamic:
        value = rng.randint(100, 599)
        message = f"{head} (status {value})."
        pattern = _escape(f"{head} (status ") + r"([0-9]+)" + _escape(").")
        throw = f"throw new {rng.choice(CLASSES)}(`{head} (status ${{status}}).`);"
    else:
        message = f"{head}."
        pattern = _escape(message)
        throw = f'throw new {rng.choice(CLASSES)}("{message}");'
    repo = rng.choice(REPOS)
    start = rng.randint(1, 400)
    before = rng.randint(2, 12)
    lines = [f"  const step{i} = await client.call({i}, options);" for i in range(before)]
    lines += ["  if (!response.ok) {", f"    {throw}", "  }"]
    lines += [f"  return finish(step{i});" for i in range(rng.randint(1, 8))]
    line_number = start + before + 1
    sha = hashlib.sha1(f"{repo}{index}".encode()).hexdigest()
    path = f"src/{subject.lower()}/{part}.ts"
    end = start + len(lines) - 1
    error_class = throw.split("new ", 1)[1].split("(", 1)[0]
    return {
        "record": {
            "id": hashlib.sha256(f"record-{index}".encode()).hexdigest()[:16],
            "repo": repo,
            "slug": derive_slug(message),
            "errorCode": None,
            "errorMessage": message,
            "messagePattern": pattern,
            "errorType": "exception",
            "errorClass": error_class,
            "httpStatus": rng.choice([None, 409, 500, 502]),
            "severity": rng.choice(["critical", "error", "warning", "info"]),
            "filePath": path,
            "lineNumber": line_number,
            "sourceCode": "\n".join(lines),
            "sourceCodeStart": start,
            "sourceCodeEnd": end,
            "githubUrl": f"https://github.com/{repo}/blob/{sha}/{path}#L{start}-L{end}",
            "documentation": f"{error_class} raised when the {subject.lower()} {verb} {part}. " * 3,
            "triggerScenarios": f"The {subject.lower()} is {part} {reason}.",
            "commonSituations": "Slow networks; restarts during deploys; expired credentials.",
            "solutions": [f"Retry the {subject.lower()} operation with a fresh lease.", "Raise the client timeout.",
                          f"Check the {subject.lower()} state before reuse."],
            "exampleFix": "// before\nawait run();\n// after\nawait runWithRetry();",
            "handlingStrategy": rng.choice(["try-catch", "retry", "validate-input"]),
            "validationCode": None,
            "typeGuard": f"function is{error_class}(e) {{ return e instanceof {error_class}; }}",
            "tryCatchPattern": "try {\n  await run();\n} catch (e) {\n  report(e);\n}",
            "preventionTips": [f"Monitor {subject.lower()} health.", "Keep timeouts generous."],
            "tags": sorted({subject.lower(), part, "generated"}),
            "backgroundTag": "resource-state",
            "analyzedSha": sha,
            "analyzedAt": "2026-09-18T08:03:59.046Z",
            "contentChangedAt": "2026-09-18T08:03:59.046Z",
            "schemaVersion": 2,
        },
        "datasetVersion": "2026-09-22T11:17:16.035Z",
    }


def generate(count: int, *, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [make_record(index, rng) for index in range(count)]


def write_dataset(root: Path, envelopes: list[dict[str, Any]]) -> list[Path]:
    paths = []
    for envelope in envelopes:
        record = envelope["record"]
        path = root / record["repo"] / f"{record['slug']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(canonical_text(envelope), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    print(json.dumps(generate(1)[0], indent=2))
