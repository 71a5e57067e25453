"""The schema reference page's data: every field of the committed schema files, merged over versions."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from errdex.errors import DataError
from errdex.site.schemaref import SchemaField, SchemaReference, schema_reference
from tests.conftest import ROOT

SCHEMA = ROOT / "schema"


def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def reference() -> SchemaReference:
    return schema_reference(SCHEMA)


@pytest.fixture(scope="module")
def by_path(reference: SchemaReference) -> dict[str, SchemaField]:
    return {field.path: field for field in reference.fields}


def _write(folder: Path, name: str, schema: dict[str, Any]) -> None:
    (folder / name).write_text(json.dumps(schema), encoding="utf-8")


def test_every_top_level_property_of_the_newest_record_is_listed_in_order(reference: SchemaReference) -> None:
    properties = list(_schema("record-v4.schema.json")["properties"])
    top_level = [field for field in reference.fields if "." not in field.path and "[]" not in field.path]
    assert [field.path for field in top_level] == properties
    added = {"analyzedVersion", "build"}  # version 4's optional fields: a release for no commit, the build
    assert all(3 in field.versions for field in top_level if field.path not in added)
    assert [f.versions for f in top_level if f.path in added] == [(4,), (4,)]


def test_versions_say_which_record_formats_have_the_field(by_path: dict[str, SchemaField]) -> None:
    v2 = set(_schema("record-v2.schema.json")["properties"])
    v3 = set(_schema("record-v3.schema.json")["properties"])
    v4 = set(_schema("record-v4.schema.json")["properties"])
    assert v4 - v3 == {"analyzedVersion", "build"} and v3 <= v4  # a release for no commit, what builds the file
    assert by_path["scenarios"].versions == (3, 4)
    assert by_path["solutions"].versions == (2, 3, 4)
    for name in v2 & v3:
        assert by_path[name].versions == (2, 3, 4), name
    for name in v3 - v2:
        assert by_path[name].versions == (3, 4), name
    assert all(field.versions == (3, 4) for path, field in by_path.items() if path.startswith("scenarios["))


def test_required_flags_match_the_schema(by_path: dict[str, SchemaField]) -> None:
    schema = _schema("record-v3.schema.json")
    required = set(schema["required"])
    for name in schema["properties"]:
        assert by_path[name].required == (name in required), name
    call = schema["$defs"]["ScenarioCall"]
    for name in call["properties"]:
        assert by_path[f"scenarios[].call.{name}"].required == (name in call["required"]), name
    assert by_path["scenarios[].call.operation"].required
    assert not by_path["scenarios[].call.sandbox"].required
    assert not by_path["scenarios[].server.listen"].required  # ScenarioServer has no "required" at all


def test_nested_scenario_fields_have_array_paths(by_path: dict[str, SchemaField]) -> None:
    defs = _schema("record-v3.schema.json")["$defs"]
    for name in defs["Scenario"]["properties"]:
        assert f"scenarios[].{name}" in by_path
    for name in defs["ScenarioExpect"]["properties"]:
        assert f"scenarios[].expect.{name}" in by_path
    for name in defs["ScenarioFault"]["properties"]:
        assert f"scenarios[].server.faults[].{name}" in by_path
    paths = list(by_path)
    assert paths.index("scenarios") < paths.index("scenarios[].id") < paths.index("scenarios[].call.operation")


def test_descriptions_come_from_the_schema(by_path: dict[str, SchemaField]) -> None:
    schema = _schema("record-v4.schema.json")
    for name, sub in schema["properties"].items():
        assert by_path[name].description, name
        assert by_path[name].description == sub["description"]
    # A property's own description wins over the description of the $defs entry it points to.
    assert by_path["scenarios[].server"].description == "What the server does."


def test_types_are_readable(by_path: dict[str, SchemaField]) -> None:
    assert by_path["id"].type == "string"
    assert by_path["lineNumber"].type == "integer"
    assert by_path["errorCode"].type == "string or null"
    assert by_path["httpStatus"].type == "integer or null"
    assert by_path["solutions"].type == "array of string"
    assert by_path["severity"].type == 'one of: "critical", "error", "warning", "info"'
    assert by_path["scenarios"].type == "array of object"
    assert by_path["scenarios[].call"].type == "object"
    assert by_path["scenarios[].expect.outcome"].type == 'one of: "raises", "returns"'
    assert by_path["scenarios[].expect.groups"].type == "array of string or null"
    assert by_path["scenarios[].expect.matchesRecord"].type == "boolean"
    # The const differs between versions: the newest comes first, the older one is noted.
    assert by_path["schemaVersion"].type == "one of: 4 (version 3: one of: 3; version 2: one of: 2)"


def test_anchors_are_unique_html_ids(reference: SchemaReference) -> None:
    anchors = [field.anchor for field in (*reference.fields, *reference.envelope_fields)]
    assert len(anchors) == len(set(anchors))
    assert all(re.fullmatch(r"field-[a-z0-9]+(-[a-z0-9]+)*", anchor) for anchor in anchors)
    by_path = {field.path: field for field in reference.fields}
    assert by_path["errorCode"].anchor == "field-errorcode"
    assert by_path["scenarios[].call.operation"].anchor == "field-scenarios-call-operation"


def test_envelope_fields_leave_the_record_to_fields(reference: SchemaReference) -> None:
    assert [field.path for field in reference.envelope_fields] == ["record", "datasetVersion"]
    record, dataset_version = reference.envelope_fields
    assert record.type == "object" and record.description == "The error record." and record.required
    assert dataset_version.versions == (2, 3, 4) and dataset_version.type == "string"


def test_documents_describe_each_file(reference: SchemaReference) -> None:
    files = sorted(path.name for path in SCHEMA.glob("*.schema.json"))
    assert sorted(document.file for document in reference.documents) == files
    by_file = {document.file: document for document in reference.documents}
    record = by_file["record-v3.schema.json"]
    assert (record.name, record.version) == ("record", 3)
    assert record.schema_id == "urn:errdex:schema:record-v3"
    assert record.title == "errdex error record, version 3"
    assert record.description.startswith("One error message")
    assert (by_file["envelope-v2.schema.json"].name, by_file["envelope-v2.schema.json"].version) == ("envelope", 2)


def test_the_default_folder_is_the_projects_schema_folder(reference: SchemaReference) -> None:
    assert schema_reference() == reference


def test_invalid_json_raises_data_error_naming_the_file(tmp_path: Path) -> None:
    _write(tmp_path, "record-v1.schema.json", {"type": "object", "properties": {"a": {"type": "string"}}})
    (tmp_path / "record-v2.schema.json").write_text('{"type": "object", "properties": {', encoding="utf-8")
    with pytest.raises(DataError, match=r"record-v2\.schema\.json") as caught:
        schema_reference(tmp_path)
    assert "\n" not in str(caught.value)


def test_a_badly_named_file_raises_data_error(tmp_path: Path) -> None:
    _write(tmp_path, "record.schema.json", {"type": "object"})
    with pytest.raises(DataError, match=r"record\.schema\.json"):
        schema_reference(tmp_path)


def test_recursive_references_terminate(tmp_path: Path) -> None:
    node = {
        "type": "object",
        "description": "A tree node.",
        "properties": {
            "name": {"type": "string", "description": "Name."},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "description": "Sub-nodes."},
            "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}], "description": "Up."},
            "loop": {"$ref": "#/$defs/Loop"},
        },
        "required": ["name"],
    }
    schema = {
        "$id": "urn:test:record-v1",
        "title": "tree",
        "$defs": {"Node": node, "Loop": {"$ref": "#/$defs/Loop"}},
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}, "self": {"$ref": "#"}},
    }
    _write(tmp_path, "record-v1.schema.json", schema)
    result: list[SchemaReference] = []
    worker = threading.Thread(target=lambda: result.append(schema_reference(tmp_path)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert result, "schema_reference did not finish on a recursive schema"
    paths = [field.path for field in result[0].fields]
    assert paths == ["root", "root.name", "root.children", "root.parent", "root.loop", "self"]
    by_path = {field.path: field for field in result[0].fields}
    assert by_path["root.children"].type == "array of object"
    assert by_path["root.parent"].type == "object or null"
    assert by_path["root.name"].required and not by_path["root.parent"].required


def test_fields_only_in_older_versions_come_last(tmp_path: Path) -> None:
    _write(tmp_path, "record-v1.schema.json", {"type": "object", "required": ["old"], "properties": {
        "a": {"type": "string", "description": "A, old wording."},
        "old": {"type": "integer", "description": "Gone in v2."},
    }})
    _write(tmp_path, "record-v2.schema.json", {"type": "object", "properties": {
        "b": {"type": "boolean", "description": "New."},
        "a": {"type": "string", "description": "A."},
    }})
    fields = schema_reference(tmp_path).fields
    assert [(field.path, field.versions) for field in fields] == [("b", (2,)), ("a", (1, 2)), ("old", (1,))]
    assert fields[1].description == "A."
    assert fields[2].required
    assert schema_reference(tmp_path).envelope_fields == ()
