"""The sshd scenario vocabulary: what its validators take, fill in and refuse, and its time estimates."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema_rs
import pydantic
import pytest

from errdex.records.models import ENVELOPE_MODELS
from errdex.records.scenarios.sshd import (
    DEFAULT_WAIT_MS,
    AuthStep,
    call_spec,
    check_scenario,
    expect_spec,
    record_need_ms,
    scenario_need_ms,
    server_spec,
    sshd_seconds,
)
from errdex.records.schema import envelope_schema
from tests.executor.sshd.helpers import CLOSED_PREAUTH, ROOT


def test_a_login_is_filled_with_its_defaults() -> None:
    call = call_spec({"operation": "login", "user": "$user", "auth": [{"method": "password", "password": "$password"},
                                                                        {"method": "publickey", "key": "unknown"}]})
    assert call.then == "close" and call.client == {}
    assert call.auth == (AuthStep("password", password="$password"), AuthStep("publickey", key="unknown"))
    assert call_spec({"operation": "connect"}).wait_ms == DEFAULT_WAIT_MS


@pytest.mark.parametrize(("call", "words"), [
    ({"operation": "dance"}, "'operation' is one of"),
    ({"operation": "idle"}, "'idle' needs 'waitMs'"),
    ({"operation": "connect", "user": "x"}, "unknown parameters for 'connect': user"),
    ({"operation": "login", "user": "two words"}, "needs 'user'"),
    ({"operation": "login", "user": "u", "auth": [{"method": "none", "password": "x"}]}, "takes only method"),
    ({"operation": "login", "user": "u", "client": {"kex": []}}, "'client.kex' is a non-empty list"),
    ({"operation": "login", "user": "u", "client": {"version": "hello"}}, "'client.version' is an identification"),
    ({"operation": "login", "user": "u", "then": "vanish"}, "'then' is one of"),
])
def test_calls_outside_the_vocabulary_are_refused(call: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        call_spec(call)


def test_server_keywords_are_checked_and_sorted() -> None:
    assert server_spec({"config": {"MaxAuthTries": "2", "AllowUsers": "$user"}}).as_dict() == {
        "AllowUsers": "$user", "MaxAuthTries": "2"}
    with pytest.raises(ValueError, match="'Port' is not allowed"):
        server_spec({"config": {"Port": "22"}})
    with pytest.raises(ValueError, match="LoginGraceTime must be from 1 s"):
        server_spec({"config": {"LoginGraceTime": "0"}})


def test_sshd_times_are_read_as_sshd_reads_them() -> None:
    assert (sshd_seconds("1"), sshd_seconds("1m30s"), sshd_seconds("2M")) == (1, 90, 120)
    with pytest.raises(ValueError):
        sshd_seconds("soon")


def test_expectations() -> None:
    assert expect_spec({"outcome": "logged", "captures": ["$user", None]}).captures == ("$user", None)
    with pytest.raises(ValueError, match="takes only outcome"):
        expect_spec({"outcome": "not-logged", "captures": []})
    with pytest.raises(ValueError, match="unknown scenario keys: faults"):
        check_scenario({"faults": [], "call": {"operation": "connect"}, "expect": {"outcome": "logged"}})


def test_the_estimates_add_waits_steps_and_grace_time() -> None:
    idle = {"server": {"config": {"LoginGraceTime": "1"}}, "call": {"operation": "idle", "waitMs": 1500}}
    login = {"call": {"operation": "login", "user": "u", "auth": [{"method": "none"}] * 3}}
    assert scenario_need_ms(idle) == 1000 + 1500 + 1000
    assert scenario_need_ms(login) == 1000 + 3 * 500
    assert scenario_need_ms({"call": {"operation": "connect"}}) == 1000 + DEFAULT_WAIT_MS
    assert record_need_ms([idle, login, "not a scenario"]) == 3500 + 2500


def _verdicts(envelope: dict[str, Any]) -> tuple[bool, bool]:
    version = envelope["record"]["schemaVersion"]
    by_schema = jsonschema_rs.validator_for(envelope_schema(version)).is_valid(envelope)
    try:
        ENVELOPE_MODELS[version].model_validate(envelope)
    except pydantic.ValidationError:
        return by_schema, False
    return by_schema, True


def test_schema_and_models_take_each_family_s_scenarios_only_from_version_4() -> None:
    sshd_record = copy.deepcopy(CLOSED_PREAUTH)
    assert _verdicts(sshd_record) == (True, True)
    sshd_record["record"]["scenarios"][0]["call"]["operation"] = "execute"  # a CreateOS call in an sshd record
    assert _verdicts(sshd_record) == (False, False)
    older = copy.deepcopy(CLOSED_PREAUTH)
    older["record"]["schemaVersion"] = 3
    assert _verdicts(older) == (False, False)
    createos = json.loads((ROOT / "tests" / "corpus" / "v4" / "seed.json").read_text(encoding="utf-8"))
    assert _verdicts(createos) == (True, True)
    createos["record"]["scenarios"] = copy.deepcopy(CLOSED_PREAUTH["record"]["scenarios"])
    assert _verdicts(createos) == (False, False)
