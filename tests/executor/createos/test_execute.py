"""execute() against the fake server: normal runs, replay, output limits, deadlines, cleanup."""

from __future__ import annotations

import base64
import threading
import traceback

import pytest

from errdex.executor.createos import (
    CreateosApiError,
    CreateosCleanupError,
    CreateosError,
    ExecuteResult,
    execute,
)
from errdex.executor.createos.output import OUTPUT_TAIL_CHARS
from tests.executor.createos.helpers import KEY, RUNNING, SANDBOX, b64, data, output, program, stream
from tests.processes import time_limit, wait_until

E16 = "CreateOS process creation could not be confirmed; destroy the lease before reusing it."
E18 = "CreateOS command cleanup failed; process termination is unconfirmed."


def test_a_successful_run_returns_exit_code_and_both_streams(setup) -> None:
    logs: list[tuple[str, str]] = []
    fake, client = setup(programs=[
        program(output("out 1\n"), output("err\n", "stderr"), output("out 2\n"), exit={"exit_code": 7}),
    ])
    result = execute(client, SANDBOX, "make", args=["test"], on_log=lambda stream, text: logs.append((stream, text)))
    assert result == ExecuteResult(
        exit_code=7, signal=None, timed_out=False, stdout="out 1\nout 2\n", stderr="err\n",
        process_id="proc-1", output_truncated=False,
    )
    assert logs == [("stdout", "out 1\n"), ("stderr", "err\n"), ("stdout", "out 2\n")]
    facts = fake.facts()
    calls = ("create-process", "close-stdin", "connect", "terminate")
    assert [facts["requests"][call] for call in calls] == [1, 1, 1, 0]
    assert facts["processesExited"] == 1 and facts["stdinClosed"] == 1
    created = fake.ledger.processes()[0]
    assert (created["cmd"], created["args"], created["cwd"]) == ("/bin/bash", ["-lc", "exec env 'make' 'test'"], None)


def test_a_lease_object_and_a_signal_exit(setup) -> None:
    class Lease:
        sandbox_id = SANDBOX

    _fake, client = setup(programs=[program(exit={"signal": "SIGKILL"})])
    result = execute(client, Lease(), "sleep", args=["9"])
    assert (result.exit_code, result.signal, result.timed_out) == (None, "SIGKILL", False)


def test_replay_after_a_reset_stream_skips_old_frames_and_joins_a_split_character(setup) -> None:
    first, second = "h\u00e9".encode()[:2], "h\u00e9".encode()[2:] + b"llo"  # the e-acute is split in two
    plan = [
        stream(data(1, first), data(2, second), then="reset", nth=1),
        {"on": "connect", "action": "replay", "overlap": 2},
    ]
    fake, client = setup(plan=plan, programs=[program(output(first), output(second), output(" world\n"))])
    logs: list[str] = []
    result = execute(client, SANDBOX, "greet", on_log=lambda stream, text: logs.append(text))
    assert result.stdout == "h\u00e9llo world\n"
    assert "".join(logs) == "h\u00e9llo world\n"  # nothing twice, no replacement character
    assert "\ufffd" not in result.stdout
    connects = fake.ledger.calls("connect")
    assert [entry["path"].rsplit("?", 1)[1] for entry in connects] == ["after=0", "after=2"]
    assert [entry["outcome"] for entry in connects] == ["streamed", "streamed"]
    assert connects[0]["ended"] == "reset"


def test_an_incomplete_character_at_the_end_becomes_one_replacement_character(setup) -> None:
    _fake, client = setup(programs=[program(output(b"ok \xe2\x82"), output(b"\xff", "stderr"))])
    logs: list[tuple[str, str]] = []
    result = execute(client, SANDBOX, "x", on_log=lambda stream, text: logs.append((stream, text)))
    assert (result.stdout, result.stderr) == ("ok \ufffd", "\ufffd")
    assert ("stdout", "\ufffd") in logs


def test_each_stream_keeps_only_its_last_4194304_characters(setup) -> None:
    chunk = 600_000
    items = [output(bytes([ord("a") + index]) * chunk) for index in range(8)]  # 4.8 million characters
    _fake, client = setup(programs=[program(*items, output("tiny", "stderr"))])
    received = []
    result = execute(client, SANDBOX, "spam", on_log=lambda stream, text: received.append(len(text)))
    full = "".join(chr(ord("a") + index) * chunk for index in range(8))
    assert len(result.stdout) == OUTPUT_TAIL_CHARS == 4_194_304
    assert result.stdout == full[-OUTPUT_TAIL_CHARS:]
    assert result.stderr == "tiny"
    assert result.output_truncated is True
    assert sum(received) == len(full) + 4  # the log callback sees everything


def test_output_at_the_limit_is_not_truncated(setup) -> None:
    _fake, client = setup(programs=[program(*[output("z" * 524_288)] * 8)])
    result = execute(client, SANDBOX, "spam")
    assert len(result.stdout) == OUTPUT_TAIL_CHARS and result.output_truncated is False


def test_a_deadline_keeps_partial_output_and_terminates_with_a_fresh_deadline(setup) -> None:
    # The DELETE is held past the command's deadline: only a fresh deadline lets it succeed. The deadline leaves
    # room for creating the process on a loaded machine (a slower creation is E16, another test's subject).
    plan = [{"on": "terminate", "action": "stall", "ms": 250, "handle": True}]
    fake, client = setup(plan=plan, programs=[program(output("partial "), output("more", at_ms=50), running=True)])
    logs: list[str] = []
    result = execute(client, SANDBOX, "serve", timeout_ms=800, on_log=lambda stream, text: logs.append(text))
    assert (result.exit_code, result.signal, result.timed_out) == (None, None, True)
    assert result.stdout == "partial more" == "".join(logs)
    assert result.process_id == "proc-1"
    terminate = fake.ledger.calls("terminate")
    assert [(entry["outcome"], entry["handled"]) for entry in terminate] == [("stalled", True)]
    assert terminate[0]["path"].endswith("/processes/proc-1?grace_ms=1000")
    assert fake.facts()["processesTerminated"] == 1 and fake.facts()["processesRunning"] == 0


def test_a_timeout_while_creating_the_process_is_unconfirmed_creation(setup) -> None:
    plan = [{"on": "create-process", "action": "stall", "ms": 400, "handle": True}]
    _fake, client = setup(plan=plan, programs=[RUNNING])
    with pytest.raises(CreateosCleanupError) as caught:
        execute(client, SANDBOX, "x", timeout_ms=100)
    assert str(caught.value) == E16
    assert caught.value.__cause__.error_class == "TimeoutError"


def test_stdin_is_staged_redirected_and_removed(setup) -> None:
    fake, client = setup()
    execute(client, SANDBOX, "cat", stdin="line 1\nline 2\n")
    (upload,) = fake.ledger.calls("upload-file")
    path = fake.ledger.events[0]["path"]
    assert path.startswith("/tmp/paperclip-stdin-") and len(path) == len("/tmp/paperclip-stdin-") + 36
    assert upload["method"] == "PUT" and upload["path"].endswith("?path=" + path.replace("/", "%2F"))
    assert fake.ledger.processes()[0]["script"] == f"exec env 'cat' < '{path}'"
    assert [event["event"] for event in fake.ledger.events] == [
        "file-written", "process-created", "stdin-closed", "file-removed",
    ]
    facts = fake.facts()
    assert (facts["stagedFilesWritten"], facts["stagedFilesRemoved"], facts["stagedFilesLeft"]) == (1, 1, 0)


def test_staged_stdin_is_removed_after_a_failure_and_its_removal_failure_is_ignored(setup) -> None:
    plan = [{"on": "exec", "action": "respond", "status": 500, "body": {}}]
    fake, client = setup(plan=plan, programs=[program(output("read\n"))])
    result = execute(client, SANDBOX, "cat", stdin=b"\x00binary")
    assert result.stdout == "read\n"
    assert fake.facts()["stagedFilesLeft"] == 1
    (removal,) = fake.ledger.calls("exec")
    assert removal["status"] == 500


def test_stdin_is_removed_even_when_creation_is_unconfirmed(setup) -> None:
    fake, client = setup(plan=[{"on": "create-process", "action": "respond", "status": 502, "body": {}}])
    with pytest.raises(CreateosCleanupError):
        execute(client, SANDBOX, "cat", stdin="x")
    assert fake.facts()["stagedFilesLeft"] == 0


HOSTILE_ARGS = ["it's", "$(touch /tmp/pwned)", "`id`", "a\nb", "; rm -rf /", "\"quoted\"", "$HOME", "*", "'", ""]


def test_hostile_values_are_quoted_exactly(setup) -> None:
    fake, client = setup()
    execute(
        client, SANDBOX, "/usr/bin/printf", args=HOSTILE_ARGS,
        cwd="/w/it's $(x)\n`y`;", env={"A": "'; echo $(id) `x`\n", "B_2": ""},
    )
    script = fake.ledger.processes()[0]["script"]
    q = "'\"'\"'"
    assert script == (
        f"cd -- '/w/it{q}s $(x)\n`y`;' || exit\n"
        f"exec env A='{q}; echo $(id) `x`\n' B_2='' '/usr/bin/printf' 'it{q}s' '$(touch /tmp/pwned)' '`id`' "
        f"'a\nb' '; rm -rf /' '\"quoted\"' '$HOME' '*' '{q}' ''"
    )
    assert fake.ledger.processes()[0]["cwd"] == "/w/it's $(x)\n`y`;"


def test_e16_leaves_one_process_running_and_sends_no_delete(setup) -> None:
    fake, client = setup(plan=[{"on": "create-process", "action": "drop-after-handling"}], programs=[RUNNING])
    with pytest.raises(CreateosCleanupError) as caught:
        execute(client, SANDBOX, "long-job", stdin="x")
    assert str(caught.value) == E16
    assert caught.value.__cause__.error_class == "Error"  # the connection failure it replaced
    facts = fake.facts()
    assert facts["processesCreated"] == 1 and facts["processesRunning"] == 1
    assert facts["requests"]["terminate"] == 0 and facts["requests"]["close-stdin"] == 0
    assert facts["stagedFilesLeft"] == 0  # the staged stdin is still removed
    assert fake.ledger.processes()[0]["running"] is True


@pytest.mark.parametrize(
    "rule",
    [
        {"action": "respond", "status": 502, "body": {"status": "error"}},
        {"action": "respond", "status": 200, "bodyText": "not json"},
        {"action": "respond", "status": 200, "body": {"status": "success", "data": {"process_id": "../x"}}},
        {"action": "respond", "status": 200, "body": {"status": "success", "data": {}}},
        {"action": "drop"},
        {"action": "reset"},
    ],
    ids=["5xx", "unreadable", "invalid-id", "no-id", "drop", "reset"],
)
def test_every_unconfirmed_creation_is_e16(setup, rule) -> None:
    fake, client = setup(plan=[{"on": "create-process", **rule}])
    with pytest.raises(CreateosCleanupError) as caught:
        execute(client, SANDBOX, "x")
    assert str(caught.value) == E16
    assert fake.facts()["requests"]["terminate"] == 0


def test_a_refused_connection_during_creation_is_e16(make_fake, make_client) -> None:
    fake = make_fake(listen=False)
    with pytest.raises(CreateosCleanupError) as caught:
        execute(make_client(fake), SANDBOX, "x")
    assert str(caught.value) == E16


@pytest.mark.parametrize("status", [400, 404, 409, 422, 429])
def test_a_refusal_below_500_is_not_e16(setup, status) -> None:
    _fake, client = setup(plan=[{"on": "create-process", "action": "respond", "status": status, "body": {}}])
    with pytest.raises(CreateosApiError) as caught:
        execute(client, SANDBOX, "x")
    assert str(caught.value) == f"CreateOS request failed (HTTP {status}) during process creation."


def test_stdin_close_409_is_tolerated(setup) -> None:
    _fake, client = setup(plan=[{"on": "close-stdin", "action": "respond", "status": 409, "body": {}}])
    assert execute(client, SANDBOX, "x").exit_code == 0


def test_three_reconnects_are_allowed_and_the_counter_is_shared(setup) -> None:
    plan = [stream({"type": "heartbeat"}, times=2), {"on": "connect", "action": "respond", "status": 429, "times": 1}]
    fake, client = setup(plan=plan, programs=[program(output("done"))])
    assert execute(client, SANDBOX, "x").stdout == "done"
    assert len(fake.ledger.calls("connect")) == 4

    plan = [stream({"type": "heartbeat"}, times=2), {"on": "connect", "action": "respond", "status": 500, "times": 2}]
    fake, client = setup(plan=plan, programs=[program(output("done"))])
    with pytest.raises(CreateosError, match=r"^CreateOS process output connection failed\.$"):
        execute(client, SANDBOX, "x")


def test_a_reset_stream_reconnects_from_the_cursor(setup) -> None:
    plan = [stream(data(1, "a"), then="reset", times=3)]
    fake, client = setup(plan=plan, programs=[program(output("a"), output("b"))])
    assert execute(client, SANDBOX, "x").stdout == "ab"
    paths = [entry["path"] for entry in fake.ledger.calls("connect")]
    assert [path.rsplit("=", 1)[1] for path in paths] == ["0", "1", "1", "1"]


def test_a_200_stream_with_no_bytes_counts_as_a_reconnect(setup) -> None:
    plan = [{"on": "connect", "action": "respond", "status": 200, "times": 4}]
    _fake, client = setup(plan=plan)
    with pytest.raises(CreateosError, match=r"^CreateOS process stream ended without an exit status\.$"):
        execute(client, SANDBOX, "x")


def test_a_connect_refusal_below_500_propagates(setup) -> None:
    fake, client = setup(plan=[{"on": "connect", "action": "respond", "status": 404, "body": {}}])
    with pytest.raises(CreateosApiError, match=r"\(HTTP 404\) during output connection\.$"):
        execute(client, SANDBOX, "x")
    assert fake.facts()["requests"]["terminate"] == 1


def test_an_eviction_error_frame_is_e4(setup) -> None:
    _fake, client = setup(plan=[stream(data(1, "a"), {"type": "error", "error": "output_offset_expired"})])
    with pytest.raises(CreateosError, match=r"^CreateOS process output was evicted before it could be read\.$"):
        execute(client, SANDBOX, "x")


@pytest.mark.parametrize(
    "frames",
    [
        [{"raw": "y" * 1_048_577}],  # an unfinished line already too long
        [data(1, "a"), data(1, "a"), {"type": "data", "seq": 1.5, "stream": "stdout", "data_base64": ""}],
        [{"type": "data", "seq": "1", "stream": "stdout", "data_base64": ""}],
        [{"type": "data", "seq": True, "stream": "stdout", "data_base64": ""}],
        [{"type": "data", "seq": 1, "stream": "stdout", "data_base64": "aGk"}],
        [{"type": "data", "seq": 1, "stream": "stdout", "data_base64": "aGl="}],
        [{"type": "data", "seq": 1, "stream": "stdout", "data_base64": "aG k="}],
        [{"type": "data", "seq": 1, "stream": ["stdout"], "data_base64": ""}],
        [{"type": "data", "seq": 1, "stream": "stdout"}],
        [{"type": "exit", "exit_code": 1.5}],
        [{"type": "exit", "signal": "KILL"}],
        [{"raw": "[1, 2]\n"}],
        [{"raw": "{\"type\": \"exit\", \"exit_code\": NaN}\n"}],
    ],
    ids=["unfinished-too-large", "fractional-seq", "string-seq", "boolean-seq", "unpadded", "non-canonical",
         "space", "list-stream", "no-payload", "fractional-code", "bad-signal", "array", "nan"],
)
def test_protocol_errors_are_fatal(setup, frames) -> None:
    fake, client = setup(plan=[stream(*frames)])
    with pytest.raises(CreateosError) as caught:
        execute(client, SANDBOX, "x")
    assert type(caught.value) is CreateosError
    assert fake.facts()["requests"]["connect"] == 1 and fake.facts()["requests"]["terminate"] == 1


def test_frames_accepted_at_the_edges(setup) -> None:
    frames = [
        {"raw": "\n  \n"},
        {"type": "heartbeat"},
        {"type": "data", "seq": 1.0, "stream": "stdout", "data_base64": ""},
        data(2, "x" * 786_000),  # a line just under the 1,048,576-character limit
        {"type": "exit", "exit_code": 0, "signal": "bogus"},
    ]
    _fake, client = setup(plan=[stream(*frames)])
    result = execute(client, SANDBOX, "x")
    assert (result.exit_code, result.signal, len(result.stdout)) == (0, None, 786_000)


def test_the_last_line_may_end_without_a_newline(setup) -> None:
    _fake, client = setup(plan=[stream({"raw": '{"type": "exit", "exit_code": 4}'})])
    assert execute(client, SANDBOX, "x").exit_code == 4


def test_e18_replaces_an_error_and_404_on_delete_is_tolerated(setup) -> None:
    plan = [stream(data(2, "gap")), {"on": "terminate", "action": "respond", "status": 500, "body": {}}]
    _fake, client = setup(plan=plan)
    with pytest.raises(CreateosCleanupError) as caught:
        execute(client, SANDBOX, "x")
    assert str(caught.value) == E18 and caught.value.__cause__.status == 500

    plan = [{"on": "terminate", "action": "respond", "status": 404, "body": {}}]
    _fake, client = setup(plan=plan, programs=[RUNNING])
    assert execute(client, SANDBOX, "x", timeout_ms=600).timed_out is True  # room to create the process


def test_e18_when_the_delete_is_lost(setup) -> None:
    _fake, client = setup(plan=[{"on": "terminate", "action": "drop"}], programs=[RUNNING])
    with pytest.raises(CreateosCleanupError, match="termination is unconfirmed"):
        execute(client, SANDBOX, "x", timeout_ms=600)  # room to create the process before the deadline


def test_cancellation_before_the_process_is_known_is_e16(setup) -> None:
    cancel = threading.Event()
    cancel.set()
    fake, client = setup()
    with pytest.raises(CreateosCleanupError):
        execute(client, SANDBOX, "x", cancel=cancel)
    assert fake.ledger.requests == []


def test_cancellation_during_a_reconnect_wait_is_e17(setup) -> None:
    cancel = threading.Event()
    plan = [stream({"type": "heartbeat"}, times=1)]
    # a ten-minute wait before reconnecting: only a cancellation that interrupts it ends the call in time
    fake, client = setup(plan=plan, programs=[RUNNING], client_options={"reconnect_delay_ms": 600_000})

    def cancel_once_the_stream_ended() -> None:
        try:
            wait_until(lambda: any(call["ended"] for call in fake.ledger.calls("connect")),
                       what="the output stream to end, so that the client waits to reconnect")
        finally:
            cancel.set()

    threading.Thread(target=cancel_once_the_stream_ended, daemon=True).start()
    with (time_limit(60, what="a cancelled reconnect wait"),
          pytest.raises(CreateosError, match=r"^CreateOS command was cancelled\.$")):
        execute(client, SANDBOX, "x", cancel=cancel)
    assert fake.facts()["processesTerminated"] == 1


def test_the_api_key_never_appears_in_errors_or_reprs(setup, make_fake, make_client) -> None:
    failures = [
        [{"on": "create-process", "action": "respond", "status": 403, "bodyText": f"bad key {KEY}"}],
        [{"on": "create-process", "action": "respond", "status": 200, "body": {"status": "error", "echo": KEY}}],
        [stream({"raw": f"{KEY}\n"})],
        [{"on": "create-process", "action": "drop"}],
        [{"on": "terminate", "action": "respond", "status": 500, "bodyText": KEY}, stream({"type": "boom"})],
    ]
    errors: list[BaseException] = []
    for plan in failures:
        _fake, client = setup(plan=plan)
        with pytest.raises(CreateosError) as caught:
            execute(client, SANDBOX, "x", env={"TOKEN": "not the key"})
        errors.append(caught.value)
    refused = make_fake(listen=False)
    with pytest.raises(CreateosError) as caught:
        make_client(refused).get_sandbox(SANDBOX)
    errors.append(caught.value)
    for error in errors:
        rendered = "".join(traceback.format_exception(error))
        assert KEY not in rendered and KEY not in repr(error)
    assert refused.url not in "".join(traceback.format_exception(errors[-1]))
    assert KEY not in repr(client) and KEY not in repr(vars(client))


def test_base64_payloads_are_decoded_as_bytes(setup) -> None:
    payload = bytes(range(32, 127)) + "\u2603".encode()
    _fake, client = setup(plan=[stream({"type": "data", "seq": 1, "stream": "stderr", "data_base64": b64(payload)},
                                      {"type": "exit", "exit_code": 0})])
    assert execute(client, SANDBOX, "x").stderr == payload.decode()
    assert base64.b64decode(b64(payload)) == payload
