"""CreateosClient against the fake server: labels, envelopes, transport failures, deadlines, pacing."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from errdex.errors import UsageError
from errdex.executor.createos import (
    CreateosApiError,
    CreateosCancelledError,
    CreateosClient,
    CreateosConnectionError,
    CreateosError,
    CreateosTimeoutError,
)
from errdex.executor.createos.responses import operation_for
from tests.executor.createos.helpers import KEY, SANDBOX
from tests.processes import time_limit, wait_until

C2 = "CreateOS connection failed."


@pytest.mark.parametrize(
    ("path", "label"),
    [
        ("/sandboxes/s/files?path=%2Ftmp%2Fx", "file transfer"),
        ("/sandboxes/s/processes/p/stdin/close", "stdin close"),
        ("/sandboxes/s/processes/p/connect?after=0", "output connection"),
        ("/sandboxes/s/processes", "process creation"),
        ("/sandboxes/s/processes/p?grace_ms=1000", "process cleanup"),
        ("/sandboxes/s/exec", "workspace command"),
        ("/sandboxes/s", "sandbox lifecycle"),
        ("/sandboxes/s/pause", "sandbox lifecycle"),
        ("/sandboxes", "sandbox lifecycle"),
        # The first rule that applies wins, even for odd identifiers.
        ("/sandboxes/exec", "workspace command"),
        ("/sandboxes/processes", "process creation"),
        ("/sandboxes/s/processes/exec", "process cleanup"),
    ],
)
def test_operation_label_rules(path: str, label: str) -> None:
    assert operation_for(path) == label


CALL_LABELS = [
    ("get-sandbox", lambda c: c.get_sandbox(SANDBOX), "sandbox lifecycle"),
    ("create-sandbox", lambda c: c.create_sandbox(image="x"), "sandbox lifecycle"),
    ("destroy-sandbox", lambda c: c.destroy_sandbox(SANDBOX), "sandbox lifecycle"),
    ("upload-file", lambda c: c.upload_file(SANDBOX, "/tmp/a b", b"x"), "file transfer"),
    ("exec", lambda c: c.exec(SANDBOX, "/bin/true"), "workspace command"),
    ("create-process", lambda c: c.create_process(SANDBOX, cmd="/bin/true", args=[]), "process creation"),
    ("close-stdin", lambda c: c.close_stdin(SANDBOX, "proc-1"), "stdin close"),
    ("connect", lambda c: c.connect_process(SANDBOX, "proc-1", after=3), "output connection"),
    ("terminate", lambda c: c.terminate_process(SANDBOX, "proc-1"), "process cleanup"),
]


@pytest.mark.parametrize(("call", "action", "label"), CALL_LABELS, ids=[row[0] for row in CALL_LABELS])
def test_c1_names_the_operation_of_each_call_and_never_the_body(setup, call, action, label) -> None:
    fake, client = setup(plan=[{"on": call, "action": "respond", "status": 502, "bodyText": "secret detail"}])
    with pytest.raises(CreateosApiError) as caught:
        action(client)
    assert str(caught.value) == f"CreateOS request failed (HTTP 502) during {label}."
    assert (caught.value.status, caught.value.operation, caught.value.error_class) == (502, label, "CreateosApiError")
    assert fake.ledger.calls(call)[0]["outcome"] == "answered"


def test_pause_and_resume_labels(setup) -> None:
    _fake, client = setup(plan=[{"on": "pause-sandbox", "action": "respond", "status": 500, "body": {}}])
    with pytest.raises(CreateosApiError, match=r"during sandbox lifecycle\.$"):
        client.pause_sandbox(SANDBOX)


def test_the_api_key_is_sent(setup, make_client) -> None:
    fake, client = setup()
    assert client.get_sandbox(SANDBOX) == {"id": SANDBOX, "status": "running"}
    wrong = CreateosClient(fake.url, "another-key", pace_ms=0)
    with pytest.raises(CreateosApiError, match=r"\(HTTP 401\) during sandbox lifecycle\.$"):
        wrong.get_sandbox(SANDBOX)


@pytest.mark.parametrize(
    "rule",
    [
        {"action": "drop"},
        {"action": "reset"},
        {"action": "respond", "status": 302, "headers": {"Location": "http://example.invalid/"}, "body": {}},
        {"action": "respond", "status": 307, "headers": {"Location": "/v1/elsewhere"}, "body": {}},
    ],
    ids=["drop", "reset", "redirect-302", "redirect-307"],
)
def test_transport_failures_and_redirects_are_c2_without_cause(setup, rule) -> None:
    fake, client = setup(plan=[{"on": "get-sandbox", **rule}])
    with pytest.raises(CreateosConnectionError) as caught:
        client.get_sandbox(SANDBOX)
    error = caught.value
    assert (str(error), error.error_class) == (C2, "Error")
    assert error.__cause__ is None and error.__context__ is None
    assert len(fake.ledger.requests) == 1  # the redirect was not followed


def test_a_refused_port_is_c2(make_fake, make_client) -> None:
    fake = make_fake(listen=False)
    with pytest.raises(CreateosConnectionError) as caught:
        make_client(fake).get_sandbox(SANDBOX)
    assert fake.url not in str(caught.value) and caught.value.__context__ is None


def test_a_body_cut_short_is_c2(setup) -> None:
    _fake, client = setup(plan=[{"on": "get-sandbox", "action": "respond", "status": 200, "body": {},
                                "headers": {"Content-Length": "500"}}])
    with pytest.raises(CreateosConnectionError):
        client.get_sandbox(SANDBOX)


def test_a_redirect_without_location_is_an_api_error(setup) -> None:
    _fake, client = setup(plan=[{"on": "get-sandbox", "action": "respond", "status": 301, "body": {}}])
    with pytest.raises(CreateosApiError, match=r"\(HTTP 301\)"):
        client.get_sandbox(SANDBOX)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"bodyText": ""}, "CreateOS returned invalid JSON."),
        ({"bodyText": "[1]"}, "CreateOS returned invalid JSON."),
        ({"bodyText": '"text"'}, "CreateOS returned invalid JSON."),
        ({"bodyText": '{"status": "success", "data": NaN}'}, "CreateOS returned invalid JSON."),
        ({"bodyText": "[" * 100_000 + "]" * 100_000}, "CreateOS returned invalid JSON."),
        ({"bodyText": '{"status": "success", "data": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"},
         "CreateOS returned invalid JSON."),  # deeper than the parser recurses: refused, not a RecursionError
        ({"body": {"data": {"id": SANDBOX}}}, "CreateOS returned an unsuccessful response."),
        ({"body": {"status": "ok", "data": {}}}, "CreateOS returned an unsuccessful response."),
        ({"body": {"status": "success"}}, "CreateOS returned an invalid response."),
        ({"body": {"status": "success", "data": None}}, "CreateOS returned an invalid response."),
        ({"body": {"status": "success", "data": "x"}}, "CreateOS returned an invalid response."),
        ({"body": {"status": "success", "data": {"id": SANDBOX, "status": 3}}},
         "CreateOS sandbox identity or state is invalid."),
        ({"body": {"status": "success", "data": {"status": "running"}}},
         "CreateOS sandbox identity or state is invalid."),
    ],
)
def test_envelope_errors(setup, answer, message) -> None:
    _fake, client = setup(plan=[{"on": "get-sandbox", "action": "respond", "status": 200, **answer}])
    with pytest.raises(CreateosError) as caught:
        client.get_sandbox(SANDBOX)
    assert str(caught.value) == message and type(caught.value) is CreateosError


@pytest.mark.parametrize("identifier", ["", "a/b", "a b", "x" * 201, "é", "a\n", None, 7])
def test_invalid_identifiers_are_c6_before_any_request(setup, identifier) -> None:
    fake, client = setup()
    with pytest.raises(CreateosError, match=r"^CreateOS returned an invalid resource ID\.$"):
        client.get_sandbox(identifier)
    assert fake.ledger.requests == []


def test_an_invalid_id_in_an_answer_is_c6(setup) -> None:
    body = {"status": "success", "data": {"process_id": "proc 1"}}
    _fake, client = setup(plan=[
        {"on": "create-process", "action": "respond", "body": body, "nth": 1},
        {"on": "create-sandbox", "action": "respond", "body": {"status": "success", "data": {}}},
    ])
    for action in (lambda: client.create_process(SANDBOX, cmd="x", args=[]), lambda: client.create_sandbox()):
        with pytest.raises(CreateosError, match=r"^CreateOS returned an invalid resource ID\.$"):
            action()
    assert client.create_process(SANDBOX, cmd="x", args=[]) == "proc-1"


def test_sandbox_calls(setup) -> None:
    fake, client = setup(sandboxes={SANDBOX: "running"})
    created = client.create_sandbox(image="ubuntu")
    assert created["status"] == "running" and created["id"].startswith("sbx-new-")
    assert client.exec(created["id"], "/bin/echo", ["hi"]) == {"exit_code": 0, "stdout": "", "stderr": ""}
    client.destroy_sandbox(created["id"])
    client.destroy_sandbox(created["id"])  # already gone: 404 tolerated
    client.destroy_sandbox("never-existed")
    assert [entry["status"] for entry in fake.ledger.calls("destroy-sandbox")] == [200, 404, 404]
    client.upload_file(SANDBOX, "/tmp/dir with space/f?x=1&y", b"\x00\x01")
    assert fake.ledger.staged_files() == {"/tmp/dir with space/f?x=1&y": True}


def test_pause_and_resume_wait_for_the_state(setup) -> None:
    sandboxes = {
        "sbx-1": {"status": "running", "pause": ["pausing", "pausing", "paused"], "resume": ["resuming", "running"]},
        "sbx-2": "paused",
        "sbx-3": "error",
        "sbx-4": {"status": "creating"},
    }
    fake, client = setup(sandboxes=sandboxes)
    assert client.pause_sandbox("sbx-1")["status"] == "paused"
    assert client.pause_sandbox("sbx-1")["status"] == "paused"  # already there: nothing submitted
    assert client.resume_sandbox("sbx-1")["status"] == "running"
    assert client.resume_sandbox("sbx-2")["status"] == "running"  # immediate transition
    assert client.resume_sandbox("sbx-3")["status"] == "running"  # resume from error is allowed
    assert fake.facts()["requests"]["pause-sandbox"] == 1
    assert fake.facts()["requests"]["resume-sandbox"] == 3
    with pytest.raises(CreateosTimeoutError):  # a sandbox that never leaves "creating"
        client.resume_sandbox("sbx-4", deadline=time.monotonic() + 0.1)


def test_a_409_on_pause_is_reconciled_by_reading_again(setup) -> None:
    plan = [{"on": "pause-sandbox", "action": "respond", "status": 409, "body": {}, "handle": True}]
    fake, client = setup(plan=plan)
    assert client.pause_sandbox(SANDBOX)["status"] == "paused"
    assert fake.ledger.calls("pause-sandbox")[0]["status"] == 409


def test_the_c8_consequence_of_a_late_state(setup) -> None:
    _fake, client = setup(sandboxes={SANDBOX: {"status": "running", "pause": ["running", "paused"]}})
    with pytest.raises(CreateosError, match=r"^CreateOS sandbox did not reach paused\.$"):
        client.pause_sandbox(SANDBOX)


def test_a_stalled_answer_times_out_at_the_deadline(setup) -> None:
    fake, client = setup(plan=[{"on": "get-sandbox", "action": "stall", "ms": 3000}],
                         client_options={"timeout_ms": 150})
    started = time.monotonic()
    with pytest.raises(CreateosTimeoutError) as caught:
        client.get_sandbox(SANDBOX)
    assert time.monotonic() - started > 0.14  # not before the deadline (that it was not after: the ledger, below)
    assert caught.value.error_class == "TimeoutError"
    assert fake.ledger.calls("get-sandbox")[0]["outcome"] is None  # still stalled when the client gave up


def test_a_trickling_stream_still_ends_at_the_deadline(setup) -> None:
    # Heartbeats every 50 ms keep every read short; only the overall deadline ends the request.
    _fake, client = setup(programs=[{"output": [], "exit": None}])
    process_id = client.create_process(SANDBOX, cmd="x", args=[])
    started = time.monotonic()
    # the stream never ends by itself: without the deadline this would run until the guard stops it
    with (time_limit(60, what="a trickling stream past its deadline"), pytest.raises(CreateosTimeoutError),
          client.connect_process(SANDBOX, process_id, deadline=time.monotonic() + 0.3) as output):
        for _ in output.chunks():
            pass
    assert time.monotonic() - started > 0.29  # not before the deadline


def test_cancellation_abandons_a_request_in_flight(setup) -> None:
    fake, client = setup(plan=[{"on": "exec", "action": "stall", "ms": 600_000}])
    cancel = threading.Event()

    def cancel_once_in_flight() -> None:
        try:
            wait_until(lambda: fake.ledger.calls("exec"), what="the exec request to reach the server")
        finally:
            cancel.set()

    threading.Thread(target=cancel_once_in_flight, daemon=True).start()
    with time_limit(60, what="a cancelled request in flight"), pytest.raises(CreateosCancelledError) as caught:
        client.exec(SANDBOX, "sleep", ["9"], cancel=cancel)
    assert caught.value.error_class == "AbortError"
    assert fake.ledger.calls("exec")[0]["outcome"] is None  # abandoned while the server still held it


def test_requests_to_one_url_are_paced_across_clients(setup, make_client) -> None:
    fake, first = setup(client_options={"pace_ms": 80})
    second = make_client(fake, pace_ms=80)
    threads = [threading.Thread(target=client.get_sandbox, args=(SANDBOX,)) for client in (first, second) * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    starts = sorted(entry["at"] for entry in fake.ledger.requests)
    assert len(starts) == 4
    assert all(later - earlier >= 0.07 for earlier, later in itertools.pairwise(starts))


def test_a_pacing_wait_is_interrupted_by_cancellation_and_the_deadline(setup) -> None:
    # ten minutes between two requests: only an interrupted pacing wait ends these calls in time
    fake, client = setup(client_options={"pace_ms": 600_000})
    client.get_sandbox(SANDBOX)
    cancel = threading.Event()
    threading.Timer(0.05, cancel.set).start()
    with time_limit(60, what="an interrupted pacing wait"):
        with pytest.raises(CreateosCancelledError):
            client.get_sandbox(SANDBOX, cancel=cancel)
        with pytest.raises(CreateosTimeoutError):
            client.get_sandbox(SANDBOX, deadline=time.monotonic() + 0.05)
    assert len(fake.ledger.requests) == 1


def test_configuration_from_the_environment(monkeypatch, setup) -> None:
    fake, _ = setup()
    monkeypatch.setenv("CREATEOS_API_URL", fake.url + "/")
    monkeypatch.setenv("CREATEOS_API_KEY", KEY)
    client = CreateosClient(pace_ms=0)
    assert client.api_url == fake.url and client.timeout_ms == 300_000
    assert client.get_sandbox(SANDBOX)["status"] == "running"
    assert KEY not in repr(client)
    monkeypatch.delenv("CREATEOS_API_KEY")
    with pytest.raises(UsageError, match="CREATEOS_API_KEY"):
        CreateosClient()
    for url in ("ftp://host", "http://user:pw@host", "not a url"):
        with pytest.raises(UsageError):
            CreateosClient(url, KEY)
    with pytest.raises(UsageError) as caught:
        CreateosClient("http://host", KEY + "\r\nX-Injected: 1")
    assert KEY not in str(caught.value)


def test_a_base_path_in_the_url_is_kept(setup) -> None:
    fake, _ = setup()
    client = CreateosClient(fake.url + "/api", KEY, pace_ms=0)
    with pytest.raises(CreateosApiError, match=r"\(HTTP 404\)"):
        client.get_sandbox(SANDBOX)
    assert fake.ledger.requests[0]["path"] == f"/api/v1/sandboxes/{SANDBOX}"
