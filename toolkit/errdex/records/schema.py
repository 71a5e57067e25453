"""JSON Schema of the record format, generated from the pydantic models.

Run ``errdex schema --write schema`` to regenerate ``schema/`` after changing a
model; ``errdex schema --check schema`` exits 1 when the committed files are stale.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema

from errdex._files import write_atomic
from errdex.records.models import ENVELOPE_MODELS, RECORD_MODELS

__all__ = [
    "SCHEMA_BASE_ID",
    "SUPPORTED_VERSIONS",
    "envelope_schema",
    "record_schema",
    "schema_files",
    "sync_schema_files",
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


def sync_schema_files(folder: Path, *, write: bool) -> list[str]:
    """Names of the schema files in ``folder`` that differ from the models (rewritten when ``write``)."""
    stale = []
    for name, text in schema_files().items():
        target = folder / name
        try:
            current = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            current = None
        if current == text:
            continue
        stale.append(name)
        if write:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(target, text.encode("utf-8"))
    return stale
