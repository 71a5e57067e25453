"""A reference executor for CreateOS sandboxes, and a fake CreateOS server to prove it against.

The executor re-implements, in Python, how the upstream CreateOS provider of
paperclipai/paperclip talks to the CreateOS API and which errors it raises
(see ``createos-protocol.md``): :class:`CreateosClient` for single calls,
:func:`execute` for one command run as a managed process. :class:`FakeCreateos`
serves the API on 127.0.0.1 with faults planned as plain data, and records in
its :class:`Ledger` what happened.
"""

from errdex.executor.createos.client import CreateosClient, ProcessOutput
from errdex.executor.createos.errors import (
    CreateosApiError,
    CreateosCancelledError,
    CreateosCleanupError,
    CreateosConnectionError,
    CreateosError,
    CreateosTimeoutError,
)
from errdex.executor.createos.execute import ExecuteResult, SandboxLease, execute
from errdex.executor.createos.faults import ACTIONS, CALLS, FaultPlan, FaultRule
from errdex.executor.createos.ledger import Ledger
from errdex.executor.createos.script import build_script, shell_quote
from errdex.executor.createos.server import FakeCreateos, serve

__all__ = [
    "ACTIONS",
    "CALLS",
    "CreateosApiError",
    "CreateosCancelledError",
    "CreateosCleanupError",
    "CreateosClient",
    "CreateosConnectionError",
    "CreateosError",
    "CreateosTimeoutError",
    "ExecuteResult",
    "FakeCreateos",
    "FaultPlan",
    "FaultRule",
    "Ledger",
    "ProcessOutput",
    "SandboxLease",
    "build_script",
    "execute",
    "serve",
    "shell_quote",
]
