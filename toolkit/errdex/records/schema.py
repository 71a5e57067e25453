"""JSON Schema of the record format, generated from the pydantic models.

Run ``python -m errdex.records.schema --write`` to regenerate ``schema/`` after
changing a model; ``--check`` exits 1 when the committed files are stale.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema

from errdex.records.models import ENVELOPE_MODELS, RECORD_MODELS

__all__ = [
    "SCHEMA_BASE_ID",
    "SUPPORTED_VERSIONS",
    "envelope_schema",
    "record_schema",
    "schema_files",
]

SCHEMA_BASE_ID = "urn:errdex:schema:"
SUPPORTED_VERSIONS: tuple[int, ...] = tuple(sorted(RECORD_MODELS))
DRAFT = "https://json-schema.org/draft/2020-12/schema"


class _Generator(GenerateJsonSchema):
    schema_dialect = DRAFT


def _generate(model: Any, schema_id: str) -> dict[str, Any]:
    body = model.model_json_schema(schema_generator=_Generator)
    return {"$schema": DRAFT, "$id": schema_id, **body}


@functools.cache
def record_schema(version: int) -> dict[str, Any]:
    """The JSON Schema of a bare record of the given format version."""
    return _generate(RECORD_MODELS[version], f"{SCHEMA_BASE_ID}record-v{version}")


@functools.cache
def envelope_schema(version: int) -> dict[str, Any]:
    """The JSON Schema of a record envelope (``{"record", "datasetVersion"}``)."""
    return _generate(ENVELOPE_MODELS[version], f"{SCHEMA_BASE_ID}envelope-v{version}")


def schema_files() -> dict[str, str]:
    """File name to text of every schema file that belongs in ``schema/``."""
    files = {}
    for version in SUPPORTED_VERSIONS:
        for kind, schema in (("record", record_schema(version)), ("envelope", envelope_schema(version))):
            files[f"{kind}-v{version}.schema.json"] = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    return files


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m errdex.records.schema", description=__doc__)
    parser.add_argument("--dir", type=Path, default=Path("schema"))
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the schema files")
    mode.add_argument("--check", action="store_true", help="exit 1 when a schema file is stale")
    args = parser.parse_args(argv)
    stale = []
    for name, text in schema_files().items():
        target = args.dir / name
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current == text:
            continue
        stale.append(name)
        if args.write:
            args.dir.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(target)
    for name in stale:
        print(f"{'wrote' if args.write else 'stale'}: {args.dir / name}", file=sys.stderr)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    raise SystemExit(_main())
