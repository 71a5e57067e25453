"""The sshd scenario vocabulary: server keywords, client calls, expectations and time bounds, as data.

A record of the sshd family (``repo`` :data:`FAMILY_REPO`) proves itself against Debian's real
``/usr/sbin/sshd``. Each scenario is ``{"id", "summary", "covers", "server"?, "call", "expect"}``:

- ``server``: ``{"config": {KEYWORD: VALUE}}``, sshd_config lines on top of the executor's base configuration;
  only the keywords of :data:`SERVER_KEYWORDS` are allowed, each VALUE a one-line string without control
  characters (``$user`` is the test user); ``Banner`` only ``none`` (sshd runs as root: a path would have it read
  any file, ``/etc/shadow`` too, and send it to whoever connects).
- ``call``: one of :data:`OPERATIONS`: ``connect`` (open TCP, send text or nothing, read for ``waitMs``, then
  close or reset), ``login`` (speak SSH as a user, try the ``auth`` steps in order, then do ``then``), ``idle``
  (connect, send, then say nothing for ``waitMs``).
- ``expect``: ``{"outcome": "logged", "captures"?, "notLogged"?}`` or ``{"outcome": "not-logged"}``.

The validators read plain data and raise ``ValueError`` naming what is wrong (EDX203 reports the message); the
executor builds its calls from what they return. The time bounds are those EDX205 and ``errdex prove`` keep to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

__all__ = [
    "AUTH_METHODS",
    "CLIENT_KEYS",
    "CLOSE_MODES",
    "DEFAULT_WAIT_MS",
    "EXPECT_PLACEHOLDERS",
    "FAMILY_REPO",
    "KEY_KINDS",
    "MAX_FAMILY_TOTAL_MS",
    "MAX_RECORD_TOTAL_MS",
    "MAX_SCENARIO_TOTAL_MS",
    "MAX_WAIT_MS",
    "OPERATIONS",
    "OUTCOMES",
    "SCENARIO_KEYS",
    "SERVER_KEYWORDS",
    "THEN_ACTIONS",
    "USER_PLACEHOLDERS",
    "AuthStep",
    "CallSpec",
    "ExpectSpec",
    "Operation",
    "Outcome",
    "ServerSpec",
    "call_spec",
    "check_scenario",
    "expect_spec",
    "is_family",
    "record_need_ms",
    "scenario_need_ms",
    "scenario_times",
    "server_spec",
    "sshd_seconds",
]

#: The ``repo`` of the records this vocabulary is for.
FAMILY_REPO = "openssh/openssh-portable"

#: The sshd_config keywords a scenario's ``server.config`` may set (anything else is refused).
SERVER_KEYWORDS: tuple[str, ...] = (
    "MaxAuthTries", "LoginGraceTime", "AllowUsers", "DenyUsers", "AllowGroups", "DenyGroups", "PermitRootLogin",
    "PasswordAuthentication", "PubkeyAuthentication", "PermitEmptyPasswords", "KexAlgorithms", "Ciphers", "MACs",
    "HostKeyAlgorithms", "PubkeyAcceptedAlgorithms", "AuthenticationMethods", "MaxSessions", "LogLevel",
    "ClientAliveInterval", "ClientAliveCountMax", "Banner", "MaxStartups",
)

#: What a scenario's call does.
Operation = Literal["connect", "login", "idle"]
OPERATIONS: tuple[Operation, ...] = get_args(Operation)
#: How a raw connection ends: a FIN or a reset (RST, SO_LINGER 0).
CLOSE_MODES = ("close", "reset")
#: What a login does after its last step: close, reset, send SSH_MSG_DISCONNECT, or run ``true`` and disconnect.
THEN_ACTIONS = ("close", "reset", "disconnect", "exec")
#: The authentication methods a login step may try.
AUTH_METHODS = ("password", "publickey", "none")
#: Which key a publickey step offers: the test user's authorized key, or one sshd does not know.
KEY_KINDS = ("authorized", "unknown")
#: What a login's ``client`` may restrict (lists of algorithm names) or set (``version``, a string).
CLIENT_KEYS = ("kex", "ciphers", "hostKeys", "macs", "version")
#: Users a login names besides a literal name: the executor's test account, a name that does not exist, root.
USER_PLACEHOLDERS = ("$user", "$invalid", "root")
#: Placeholders an expectation's captures may use.
EXPECT_PLACEHOLDERS = ("$user", "$invalid", "$port", "$host", "$password")
#: The outcomes an expectation may ask for.
Outcome = Literal["logged", "not-logged"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
#: The keys of a scenario.
SCENARIO_KEYS = frozenset({"id", "summary", "covers", "server", "call", "expect"})

#: How long a connect reads what sshd says when the call names no ``waitMs``.
DEFAULT_WAIT_MS = 300
#: The longest one ``waitMs`` or ``LoginGraceTime`` may be.
MAX_WAIT_MS = 5_000
#: The largest :func:`scenario_need_ms` a scenario may have.
MAX_SCENARIO_TOTAL_MS = 10_000
#: The largest :func:`record_need_ms` a record may have.
MAX_RECORD_TOTAL_MS = 30_000
#: What the whole family's proof must stay under.
MAX_FAMILY_TOTAL_MS = 60_000

#: The estimate's allowance for starting sshd, connecting and waiting for the connection's last line.
_BASE_MS = 1_000
#: The estimate's allowance for one authentication step.
_STEP_MS = 500

_CALL_KEYS: Mapping[str, frozenset[str]] = {
    "connect": frozenset({"operation", "send", "waitMs", "close"}),
    "login": frozenset({"operation", "user", "auth", "client", "then"}),
    "idle": frozenset({"operation", "send", "waitMs"}),
}
_TIME = re.compile(r"(\d+)([sSmMhHdDwW]?)")
#: What a config value may not hold: a line break or any other control character (sshd would read a carriage
#: return as a space and the rest of the value as more words).
_CONTROL = re.compile("[\x00-\x1f\x7f]")
#: Keywords whose value names a file for sshd to read: only their ``none`` is allowed.
_NO_FILES = frozenset({"Banner"})
_UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def is_family(record: Mapping[str, Any]) -> bool:
    """Whether the record belongs to the sshd family."""
    return record.get("repo") == FAMILY_REPO


# -- server --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerSpec:
    """A valid server block: the extra sshd_config lines, keyword -> value (placeholders not yet replaced)."""

    config: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, str]:
        return dict(self.config)


def sshd_seconds(value: str) -> int:
    """An sshd time value (``30``, ``1m``, ``1m30s``) in seconds; ``ValueError`` when it is not one."""
    text = value.strip()
    if not text or _TIME.sub("", text):
        raise ValueError(f"{value!r} is not an sshd time (seconds, or a number with s, m, h, d or w)")
    return sum(int(number) * _UNIT_S[unit.lower()] for number, unit in _TIME.findall(text))


def server_spec(data: Any) -> ServerSpec:
    """Validate a scenario's ``server`` block (None: the base configuration); ``ValueError`` names what is wrong."""
    if data is None:
        return ServerSpec()
    if not isinstance(data, Mapping) or set(data) - {"config"}:
        raise ValueError("'server' is an object with 'config' only")
    config = data.get("config", {})
    if not isinstance(config, Mapping):
        raise ValueError("'server.config' is an object of sshd_config keywords to strings")
    for keyword, value in config.items():
        if keyword not in SERVER_KEYWORDS:
            raise ValueError(f"sshd_config keyword {keyword!r} is not allowed (one of {', '.join(SERVER_KEYWORDS)})")
        if not isinstance(value, str) or not value.strip() or _CONTROL.search(value):
            raise ValueError(f"the value of {keyword!r} must be a non-empty one-line string without control "
                             "characters")
        if keyword in _NO_FILES and value.strip().lower() != "none":
            raise ValueError(f"{keyword!r} may only be 'none': its value names a file that sshd, as root, would "
                             "read and send to whoever connects")
    if "LoginGraceTime" in config and not 0 < sshd_seconds(config["LoginGraceTime"]) * 1000 <= MAX_WAIT_MS:
        raise ValueError(f"LoginGraceTime must be from 1 s to {MAX_WAIT_MS // 1000} s (0 would never time out)")
    return ServerSpec(tuple(sorted((str(k), str(v)) for k, v in config.items())))


# -- call ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthStep:
    """One authentication attempt of a login: the method and its password or key kind."""

    method: str
    password: str | None = None
    key: str | None = None


@dataclass(frozen=True)
class CallSpec:
    """A valid call, defaults filled."""

    operation: str
    send: str | None = None
    wait_ms: int = DEFAULT_WAIT_MS
    close: str = "close"
    user: str | None = None
    auth: tuple[AuthStep, ...] = ()
    client: Mapping[str, Any] = field(default_factory=dict)
    then: str = "close"


def _wait_ms(data: Mapping[str, Any], default: int | None) -> int:
    value = data.get("waitMs", default)
    if value is None:
        raise ValueError("'idle' needs 'waitMs', a number of milliseconds")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_WAIT_MS:
        raise ValueError(f"'waitMs' must be a whole number of milliseconds from 0 to {MAX_WAIT_MS}")
    return value


def _auth_step(number: int, step: Any) -> AuthStep:
    if not isinstance(step, Mapping) or step.get("method") not in AUTH_METHODS:
        raise ValueError(f"auth step {number} must be an object whose 'method' is one of {', '.join(AUTH_METHODS)}")
    method = step["method"]
    allowed = {"password": {"method", "password"}, "publickey": {"method", "key"}, "none": {"method"}}[method]
    if set(step) - allowed:
        raise ValueError(f"auth step {number} ({method}) takes only {', '.join(sorted(allowed))}")
    if method == "password" and not isinstance(step.get("password"), str):
        raise ValueError(f"auth step {number} (password) needs 'password', a string ('$password': the test user's)")
    if method == "publickey" and step.get("key") not in KEY_KINDS:
        raise ValueError(f"auth step {number} (publickey) needs 'key', one of {', '.join(KEY_KINDS)}")
    return AuthStep(method, step.get("password"), step.get("key"))


def _client(data: Any) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping) or set(data) - set(CLIENT_KEYS):
        raise ValueError(f"'client' is an object with {', '.join(CLIENT_KEYS)}")
    for key, value in data.items():
        if key == "version":
            if not isinstance(value, str) or not value.startswith("SSH-") or "\n" in value:
                raise ValueError("'client.version' is an identification string such as 'SSH-2.0-errdex'")
        elif not (isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)):
            raise ValueError(f"'client.{key}' is a non-empty list of algorithm names")
    return {key: (list(value) if isinstance(value, list) else value) for key, value in data.items()}


def call_spec(data: Any) -> CallSpec:
    """Validate a scenario's ``call``; ``ValueError`` names what is wrong."""
    if not isinstance(data, Mapping) or data.get("operation") not in OPERATIONS:
        raise ValueError(f"'call' must be an object whose 'operation' is one of {', '.join(OPERATIONS)}")
    operation = data["operation"]
    unknown = set(data) - _CALL_KEYS[operation]
    if unknown:
        raise ValueError(f"unknown parameters for {operation!r}: {', '.join(sorted(unknown))}")
    send = data.get("send")
    if send is not None and not isinstance(send, str):
        raise ValueError("'send' is a string (UTF-8 text written as is)")
    if operation == "connect":
        if data.get("close", "close") not in CLOSE_MODES:
            raise ValueError(f"'close' is one of {', '.join(CLOSE_MODES)}")
        return CallSpec("connect", send, _wait_ms(data, DEFAULT_WAIT_MS), data.get("close", "close"))
    if operation == "idle":
        return CallSpec("idle", send, _wait_ms(data, None))
    user = data.get("user")
    if not isinstance(user, str) or not user or any(c.isspace() for c in user):
        raise ValueError(f"'login' needs 'user': a name without spaces or one of {', '.join(USER_PLACEHOLDERS)}")
    auth = data.get("auth", [])
    if not isinstance(auth, list):
        raise ValueError("'auth' is a list of steps")
    if data.get("then", "close") not in THEN_ACTIONS:
        raise ValueError(f"'then' is one of {', '.join(THEN_ACTIONS)}")
    steps = tuple(_auth_step(number, step) for number, step in enumerate(auth, 1))
    return CallSpec("login", user=user, auth=steps, client=_client(data.get("client")), then=data.get("then", "close"))


# -- expect --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpectSpec:
    """A valid expectation: the outcome, the captures (None: not compared) and the records that must stay silent."""

    outcome: str
    captures: tuple[str | None, ...] | None = None
    not_logged: tuple[str, ...] = ()


def expect_spec(data: Any) -> ExpectSpec:
    """Validate a scenario's ``expect``; ``ValueError`` names what is wrong."""
    if not isinstance(data, Mapping) or data.get("outcome") not in OUTCOMES:
        raise ValueError(f"'expect' must be an object whose 'outcome' is one of {', '.join(OUTCOMES)}")
    outcome = data["outcome"]
    allowed = {"outcome", "captures", "notLogged"} if outcome == "logged" else {"outcome"}
    if set(data) - allowed:
        raise ValueError(f"an expectation of {outcome!r} takes only {', '.join(sorted(allowed))}")
    captures = data.get("captures")
    if captures is not None and not (
        isinstance(captures, list) and all(c is None or isinstance(c, str) for c in captures)
    ):
        raise ValueError("'captures' is a list of strings or nulls")
    not_logged = data.get("notLogged", [])
    if not (isinstance(not_logged, list) and all(isinstance(r, str) and r for r in not_logged)):
        raise ValueError("'notLogged' is a list of record ids")
    return ExpectSpec(outcome, None if captures is None else tuple(captures), tuple(not_logged))


def check_scenario(scenario: Any) -> tuple[ServerSpec, CallSpec, ExpectSpec]:
    """Validate the executor's parts of one scenario (server, call, expect), in that order."""
    if not isinstance(scenario, Mapping):
        raise ValueError("a scenario is an object")
    unknown = set(scenario) - SCENARIO_KEYS
    if unknown:
        raise ValueError(f"unknown scenario keys: {', '.join(sorted(unknown))}")
    return server_spec(scenario.get("server")), call_spec(scenario.get("call")), expect_spec(scenario.get("expect"))


# -- time bounds ---------------------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)


def scenario_times(scenario: Mapping[str, Any]) -> Iterable[tuple[str, float]]:
    """Each time the scenario names: (its place below the scenario, milliseconds); reads plain data, so it can
    judge a scenario that is not valid yet (a LoginGraceTime that is no sshd time is left to the validator)."""
    call = scenario.get("call")
    if isinstance(call, Mapping) and (ms := _number(call.get("waitMs"))) is not None:
        yield "call/waitMs", ms
    server = scenario.get("server")
    config = server.get("config") if isinstance(server, Mapping) else None
    grace = config.get("LoginGraceTime") if isinstance(config, Mapping) else None
    if isinstance(grace, str):
        try:
            yield "server/config/LoginGraceTime", sshd_seconds(grace) * 1000.0
        except ValueError:
            pass


def scenario_need_ms(scenario: Mapping[str, Any]) -> float:
    """A generous upper estimate of the scenario's run in milliseconds: the start-up and wait allowance, its
    authentication steps, its waits (a connect's default read included) and its grace time."""
    times = dict(scenario_times(scenario))
    call = scenario.get("call")
    steps = 0
    wait = times.get("call/waitMs", 0.0)
    if isinstance(call, Mapping):
        auth = call.get("auth")
        steps = len(auth) if isinstance(auth, list) else 0
        if call.get("operation") == "connect" and "call/waitMs" not in times:
            wait = float(DEFAULT_WAIT_MS)
    return _BASE_MS + steps * _STEP_MS + wait + times.get("server/config/LoginGraceTime", 0.0)


def record_need_ms(scenarios: object) -> float:
    """What a record's scenarios need together (each counted at most the bound a proof lets it run)."""
    items: Iterable[object] = scenarios if isinstance(scenarios, list) else []
    return sum(min(scenario_need_ms(s), MAX_SCENARIO_TOTAL_MS) for s in items if isinstance(s, Mapping))
