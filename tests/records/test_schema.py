"""The committed JSON Schema, the pydantic models and the corpus agree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pydantic
import pytest

from errdex.records.models import ENVELOPE_MODELS
from errdex.records.schema import envelope_schema, schema_files
from tests.conftest import ROOT

CORPUS = sorted((ROOT / "tests" / "corpus").glob("v*/*.json"))


def test_committed_schema_files_are_generated_from_the_models() -> None:
    for name, text in schema_files().items():
        assert (ROOT / "schema" / name).read_text(encoding="utf-8") == text, f"regenerate schema/{name}"


def _properties(node: Any) -> list[tuple[str, dict[str, Any]]]:
    found = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            found.append((name, sub))
        for value in node.values():
            found.extend(_properties(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_properties(value))
    return found


@pytest.mark.parametrize("name", sorted(schema_files()))
def test_schema_is_draft_2020_12_with_id_and_descriptions(name: str) -> None:
    schema = json.loads(schema_files()[name])
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].startswith("urn:errdex:schema:")
    jsonschema.Draft202012Validator.check_schema(schema)
    undocumented = [prop for prop, sub in _properties(schema) if not sub.get("description")]
    assert not undocumented


def test_corpus_is_not_empty() -> None:
    assert any(p.name.endswith(".invalid.json") for p in CORPUS)
    assert any(not p.name.endswith(".invalid.json") for p in CORPUS)


@pytest.mark.parametrize("path", CORPUS, ids=[f"{p.parent.name}/{p.name}" for p in CORPUS])
def test_schema_and_models_agree_on_the_corpus(path: Path) -> None:
    version = int(path.parent.name[1:])
    document = json.loads(path.read_text(encoding="utf-8"))
    schema = envelope_schema(version)
    by_jsonschema = jsonschema.Draft202012Validator(schema).is_valid(document)
    by_rust = jsonschema_rs.validator_for(schema).is_valid(document)
    try:
        ENVELOPE_MODELS[version].model_validate(document)
        by_pydantic = True
    except pydantic.ValidationError:
        by_pydantic = False
    expected = not path.name.endswith(".invalid.json")
    assert (by_jsonschema, by_rust, by_pydantic) == (expected, expected, expected)


def test_seed_round_trips_through_the_model(seed: dict[str, Any]) -> None:
    assert ENVELOPE_MODELS[2].model_validate(seed).model_dump(mode="json") == seed
