"""The fake CreateOS server itself: routes, validation, fault plans, ledger facts, serve()."""

from __future__ import annotations

import http.client
import io
import json
import socket
import threading
import time
import types
from typing import Any

import pytest

import errdex.executor.createos as createos
from errdex.executor.createos import ACTIONS, CALLS, FakeCreateos, FaultPlan, execute, serve
from errdex.executor.createos.handler import Handler
from errdex.executor.createos.routes import ROUTES, route
from tests.executor.createos.helpers import KEY, RUNNING, SANDBOX, data, output, program, stream
from tests.processes import wait_until
from tests.site.test_serve import _trickle


def _request(fake: FakeCreateos, method: str, path: str, body: Any = None, key: str = KEY) -> tuple[int, bytes]:
    host, port = fake.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    payload = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    connection.request(method, path, body=payload, headers={"X-Api-Key": key})
    response = connection.getresponse()
    try:
        return response.status, response.read()
    finally:
        connection.close()


def test_public_api_is_sorted_and_complete() -> None:
    assert createos.__all__ == sorted(createos.__all__)
    public = {
        name for name, value in vars(createos).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(createos.__all__)


@pytest.mark.parametrize(
    ("method", "path", "call"),
    [
        ("GET", "/v1/sandboxes/s", "get-sandbox"),
        ("POST", "/v1/sandboxes", "create-sandbox"),
        ("DELETE", "/v1/sandboxes/s", "destroy-sandbox"),
        ("POST", "/v1/sandboxes/s/pause", "pause-sandbox"),
        ("POST", "/v1/sandboxes/s/resume", "resume-sandbox"),
        ("PUT", "/v1/sandboxes/s/files", "upload-file"),
        ("POST", "/v1/sandboxes/s/exec", "exec"),
        ("POST", "/v1/sandboxes/s/processes", "create-process"),
        ("POST", "/v1/sandboxes/s/processes/p/stdin/close", "close-stdin"),
        ("GET", "/v1/sandboxes/s/processes/p/connect", "connect"),
        ("DELETE", "/v1/sandboxes/s/processes/p", "terminate"),
        ("GET", "/v1/sandboxes/s/processes", None),
        ("PATCH", "/v1/sandboxes/s", None),
    ],
)
def test_routes(method: str, path: str, call: str | None) -> None:
    assert route(method, path)[0] == call


def test_every_call_has_a_route() -> None:
    assert set(CALLS) == {call for _, _, call in ROUTES}


@pytest.mark.parametrize(
    "body",
    [
        {"cmd": "/bin/bash", "args": ["-lc", "x"], "env": {"A": "b"}},
        {"cmd": "/bin/bash", "args": "not a list"},
        {"args": []},
        {"cmd": "/bin/bash", "cwd": 3},
        [1],
    ],
)
def test_create_process_accepts_only_cmd_args_and_cwd(make_fake, body) -> None:
    fake = make_fake()
    status, _ = _request(fake, "POST", f"/v1/sandboxes/{SANDBOX}/processes", body)
    assert status == 400
    assert fake.facts()["processesCreated"] == 0


def test_normal_answers(make_fake) -> None:
    fake = make_fake(programs=[program(output("hi"), exit={"exit_code": 2})])
    status, body = _request(fake, "POST", f"/v1/sandboxes/{SANDBOX}/processes", {"cmd": "/bin/bash", "args": []})
    assert (status, json.loads(body)) == (200, {"status": "success", "data": {"process_id": "proc-1"}})
    status, body = _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}/processes/proc-1/connect?after=0")
    frames = [json.loads(line) for line in body.decode().splitlines()]
    assert frames == [data(1, "hi"), {"type": "exit", "exit_code": 2}]
    assert _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}/processes/proc-1/connect?after=1")[1].count(b"\n") == 1
    assert _request(fake, "POST", f"/v1/sandboxes/{SANDBOX}/processes/proc-1/stdin/close")[0] == 200
    assert _request(fake, "POST", f"/v1/sandboxes/{SANDBOX}/processes/proc-1/stdin/close")[0] == 409
    assert _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}/processes/nope/connect?after=0")[0] == 404
    assert _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}/processes/proc-1/connect?after=x")[0] == 400
    assert _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}", key="wrong")[0] == 401
    assert _request(fake, "GET", "/v2/anything")[0] == 404
    assert fake.ledger.requests[-1]["call"] is None


def test_a_running_process_streams_heartbeats_until_terminated(make_fake) -> None:
    fake = make_fake(programs=[RUNNING], heartbeat_ms=20)
    _request(fake, "POST", f"/v1/sandboxes/{SANDBOX}/processes", {"cmd": "x", "args": []})
    delete = f"/v1/sandboxes/{SANDBOX}/processes/proc-1?grace_ms=1000"
    threading.Timer(0.15, lambda: _request(fake, "DELETE", delete)).start()
    status, body = _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}/processes/proc-1/connect?after=0")
    lines = body.decode().splitlines()
    assert status == 200 and len(lines) >= 3 and set(lines) == {'{"type": "heartbeat"}'}
    assert fake.ledger.calls("connect")[0]["ended"] == "terminated"
    assert fake.facts()["processesTerminated"] == 1 and fake.facts()["processesRunning"] == 0


def test_delayed_output_and_exit(make_fake, make_client) -> None:
    fake = make_fake(programs=[{"output": [{"stream": "stdout", "text": "a"},
                                           {"stream": "stdout", "text": "b", "atMs": 100}],
                                "exit": {"exit_code": 0}, "exitAtMs": 150}])
    started = time.monotonic()
    result = execute(make_client(fake), SANDBOX, "x")
    assert result.stdout == "ab" and time.monotonic() - started >= 0.15


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ({"on": "connect-sandbox", "action": "drop"}, "unknown call"),
        ({"on": "connect", "action": "explode"}, "unknown fault action"),
        ({"on": "exec", "action": "stream", "frames": []}, "applies only to 'connect'"),
        ({"on": "connect", "action": "terminate-response", "data": {}}, "applies only to 'terminate'"),
        ({"on": "exec", "action": "drop", "nth": 1, "times": 2}, "not both"),
        ({"on": "exec", "action": "drop", "nth": 0}, "whole number"),
        ({"on": "exec", "action": "drop", "status": 500}, "unknown parameters"),
        ({"on": "exec", "action": "stall"}, "needs 'ms'"),
        ({"on": "connect", "action": "stream", "frames": [], "then": "explode"}, "'then'"),
        ({"on": "exec", "action": "respond", "body": {}, "bodyText": ""}, "not both"),
        ({"on": "exec", "action": "respond", "status": 99}, "HTTP status"),
    ],
)
def test_invalid_plans_are_refused(rule, problem) -> None:
    with pytest.raises(ValueError, match=problem):
        FaultPlan([rule])


def test_plans_round_trip_as_plain_data() -> None:
    rules = [
        {"on": "connect", "action": "stream", "frames": [{"raw": "x"}], "then": "reset", "nth": 2},
        {"on": "exec", "action": "respond", "status": 500, "bodyText": "no", "times": 3},
        {"on": "terminate", "action": "terminate-response", "data": {"tree_exited": False}},
    ]
    assert FaultPlan(json.loads(json.dumps(rules))).to_data() == rules
    assert set(ACTIONS) == {"respond", "no-body", "drop", "drop-after-handling", "reset", "stall", "stream",
                            "replay", "terminate-response"}


def test_nth_and_times_select_occurrences(make_fake) -> None:
    plan = [
        {"on": "get-sandbox", "action": "respond", "status": 501, "nth": 2},
        {"on": "get-sandbox", "action": "respond", "status": 502, "times": 2},
    ]
    fake = make_fake(plan=plan)
    statuses = [_request(fake, "GET", f"/v1/sandboxes/{SANDBOX}")[0] for _ in range(5)]
    assert statuses == [502, 501, 502, 200, 200]
    assert [entry["rule"] for entry in fake.ledger.requests] == [1, 0, 1, None, None]


def test_respond_and_no_body_can_also_act(make_fake) -> None:
    plan = [
        {"on": "create-process", "action": "respond", "status": 500, "body": {}, "handle": True},
        {"on": "terminate", "action": "no-body", "status": 204, "handle": True},
    ]
    fake = make_fake(plan=plan, programs=[RUNNING])
    assert _request(fake, "POST", f"/v1/sandboxes/{SANDBOX}/processes", {"cmd": "x", "args": []})[0] == 500
    assert _request(fake, "DELETE", f"/v1/sandboxes/{SANDBOX}/processes/proc-1")[0] == 204
    assert fake.facts()["processesCreated"] == 1 and fake.facts()["processesTerminated"] == 1


def test_raw_bytes_frames(make_fake, make_client) -> None:
    fake = make_fake(plan=[stream({"rawBytes64": "eyJ0eXBlIjogImV4aXQiLCAiZXhpdF9jb2RlIjogNX0K"})])
    assert execute(make_client(fake), SANDBOX, "x").exit_code == 5  # {"type": "exit", "exit_code": 5}


def test_an_empty_205_stream_is_e6(make_fake, make_client) -> None:
    fake = make_fake(plan=[{"on": "connect", "action": "no-body", "status": 205}])
    with pytest.raises(createos.CreateosError, match=r"^CreateOS returned an empty process stream\.$"):
        execute(make_client(fake), SANDBOX, "x")


def test_stalls_end_promptly_when_the_server_stops() -> None:
    fake = FakeCreateos(plan=[{"on": "get-sandbox", "action": "stall", "ms": 60_000, "handle": True}]).start()
    outcome: list[Any] = []

    def call() -> None:
        try:
            outcome.append(_request(fake, "GET", f"/v1/sandboxes/{SANDBOX}"))
        except (OSError, http.client.HTTPException) as error:
            outcome.append(type(error))

    caller = threading.Thread(target=call)
    caller.start()
    wait_until(lambda: len(fake.ledger.requests) == 1, what="the server to take the request it stalls")
    fake.stop()
    caller.join(timeout=5)  # the stall lasts 60 s: a caller still there after 5 s was not released by stop()
    assert not caller.is_alive()
    assert outcome and outcome[0] in (http.client.RemoteDisconnected, ConnectionResetError)
    assert fake.ledger.requests[0]["handled"] is False


def test_a_server_that_does_not_listen_refuses_connections() -> None:
    with FakeCreateos(listen=False) as fake:
        host, port = fake.url.removeprefix("http://").split(":")
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((host, int(port)), timeout=2)


def test_facts_keys(make_fake) -> None:
    facts = make_fake().facts()
    assert set(facts) == {
        "requests", "outcomes", "processesCreated", "processesTerminated", "processesExited",
        "processesRunning", "stdinClosed", "stagedFilesWritten", "stagedFilesRemoved", "stagedFilesLeft",
    }
    assert set(facts["requests"]) == set(CALLS)
    assert json.loads(json.dumps(facts)) == facts


def test_unknown_sandbox_status_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown sandbox status"):
        FakeCreateos(sandboxes={"s": {"status": "running", "pause": ["frozen"]}})


def test_serve_prints_its_url_and_runs_until_stopped() -> None:
    out, stop = io.StringIO(), threading.Event()
    plan = [{"on": "get-sandbox", "action": "respond", "status": 418, "body": {}}]
    runner = threading.Thread(target=serve,
                              kwargs={"plan": plan, "sandboxes": {"sbx-9": "paused"}, "out": out, "stop": stop})
    runner.start()
    wait_until(out.getvalue, what="serve() to print its url", timeout=5)
    url = out.getvalue().strip()
    assert url.startswith("http://127.0.0.1:")
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    connection.request("GET", "/v1/sandboxes/sbx-9")
    assert connection.getresponse().status == 418
    connection.close()
    stop.set()
    runner.join(timeout=5)
    assert not runner.is_alive()


def test_every_action_has_a_handler() -> None:
    assert all(callable(getattr(Handler, "_fault_" + action.replace("-", "_"), None)) for action in ACTIONS)


@pytest.mark.parametrize(
    "bad", [{"output": [{"stream": "stdout"}]}, {"exit": 0}, {"output": "x"}, {"outputs": []}]
)
def test_malformed_programs_are_refused(bad) -> None:
    with pytest.raises(ValueError, match="program"):
        FakeCreateos(programs=[bad])


def _raw(fake: FakeCreateos, data: bytes, timeout: float = 5) -> bytes:
    """Send raw bytes on a fresh connection; everything the server sends until it closes."""
    host, port = fake.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as connection:
        connection.sendall(data)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"GET /x%00 HTTP/1.1\r\n\r\n", b"404"),
    (b"GET /x\x00\xff HTTP/1.1\r\n\r\n", b"404"),
    (b"POST /v1/sandboxes HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", b"413"),
    (b"POST /v1/sandboxes HTTP/1.1\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n", b"413"),
    (b"POST /v1/sandboxes HTTP/1.1\r\nContent-Length: -5\r\n\r\n", b"400"),
    (b"POST /v1/sandboxes HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n", b"400"),
    (b"GET / HTTP/1.1 extra\r\n\r\n", b"400"),
    (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", b"414"),
    # two lengths, or a length and chunking: which bytes are the body is ambiguous, so neither is guessed
    (b"POST /v1/sandboxes HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\n{}", b"400"),
    (b"POST /v1/sandboxes HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n{}", b"400"),
    # nested deeper than the parser recurses: invalid JSON, not a 500
    (b"POST /v1/sandboxes HTTP/1.1\r\nX-Api-Key: " + KEY.encode() + b"\r\nContent-Length: 100000\r\n\r\n"
     + b"[" * 100_000, b"400"),
])
def test_bad_requests_get_an_answer_and_no_traceback(make_fake, capfd, request_bytes: bytes, status: bytes) -> None:
    fake = make_fake()
    answer = _raw(fake, request_bytes)
    assert answer.split(b" ", 2)[1] == status, answer[:200]
    assert _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}")[0] == 200  # still serving
    assert capfd.readouterr().err == ""


def test_a_body_over_the_limit_is_refused_unread(make_fake) -> None:
    fake = make_fake(max_body_bytes=1000)
    status, body = _request(fake, "PUT", f"/v1/sandboxes/{SANDBOX}/files?path=/tmp/a", b"x" * 1001)
    assert status == 413 and b"larger than 1000 bytes" in body
    assert fake.facts()["stagedFilesWritten"] == 0
    assert _request(fake, "PUT", f"/v1/sandboxes/{SANDBOX}/files?path=/tmp/a", b"x" * 1000)[0] == 200


def test_a_connection_that_sends_too_little_is_closed_after_the_timeout(make_fake) -> None:
    fake = make_fake(request_timeout_s=0.3)
    # promises two bytes of body and sends one: the server gives up instead of waiting forever. A server that
    # kept the connection open would make _raw's own read time out (5 s, far beyond the server's 0.3 s) and fail.
    answer = _raw(fake, b"POST /v1/sandboxes HTTP/1.1\r\nContent-Length: 2\r\n\r\n{", timeout=5)
    assert answer == b""
    assert _raw(fake, b"", timeout=5) == b""  # idle: closed too


def test_idle_connections_are_bounded_and_time_out(make_fake) -> None:
    fake = make_fake(request_timeout_s=0.5, max_connections=8)
    host, port = fake.url.removeprefix("http://").split(":")
    before = threading.active_count()
    idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(40)]
    try:
        for connection in idle[8:]:  # beyond the bound: refused at once, no thread held
            assert connection.recv(200).startswith(b"HTTP/1.1 503 ")
        assert threading.active_count() - before <= 8
        for connection in idle[:8]:  # the served ones are closed once their time is up
            assert connection.recv(200) == b""
    finally:
        for connection in idle:
            connection.close()
    assert _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}")[0] == 200


def test_a_request_trickled_in_a_byte_at_a_time_is_dropped_at_the_timeout(make_fake) -> None:
    fake = make_fake(request_timeout_s=0.5)
    host, port = fake.url.removeprefix("http://").split(":")
    closed = _trickle((host, int(port)), b"GET /v1/sandboxes/x HTTP/1.1\r\nX-Slow: " + b"a" * 200, every=0.1, within=5)
    assert closed is not None and closed < 2.5, closed
    assert _request(fake, "GET", f"/v1/sandboxes/{SANDBOX}")[0] == 200
