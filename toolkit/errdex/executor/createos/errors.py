"""The errors the CreateOS client raises.

Each error carries, in ``error_class``, the name of the JavaScript class the
upstream TypeScript client raises in the same situation, so that a proof can
compare class and message with an error record::

    ErrdexError
    └── CreateosError            error_class "Error" (C3-C8, E1-E15, E17)
        ├── CreateosConnectionError   "Error": C2, a transport failure
        ├── CreateosApiError          "CreateosApiError": C1, a non-2xx answer
        ├── CreateosCleanupError      "CreateosCleanupError": E16, E18
        ├── CreateosTimeoutError      "TimeoutError": a deadline passed
        └── CreateosCancelledError    "AbortError": the caller cancelled

The messages with fixed text (C1, C2, timeout, cancellation) are built by
their class; every other message is written where it is raised.
"""

from __future__ import annotations

from errdex.errors import ErrdexError

__all__ = [
    "CreateosApiError",
    "CreateosCancelledError",
    "CreateosCleanupError",
    "CreateosConnectionError",
    "CreateosError",
    "CreateosTimeoutError",
]


class CreateosError(ErrdexError):
    """An error of the CreateOS client; ``error_class`` names the upstream class."""

    error_class = "Error"


class CreateosConnectionError(CreateosError):
    """C2: the request failed at the transport level. The cause is dropped on purpose (it may hold the URL)."""

    def __init__(self) -> None:
        super().__init__("CreateOS connection failed.")


class CreateosApiError(CreateosError):
    """C1: CreateOS answered with a status outside 2xx. The body is never part of the message."""

    error_class = "CreateosApiError"

    def __init__(self, status: int, operation: str) -> None:
        super().__init__(f"CreateOS request failed (HTTP {status}) during {operation}.")
        self.status = status
        self.operation = operation


class CreateosCleanupError(CreateosError):
    """E16, E18: the sandbox may hold a process nobody controls any more."""

    error_class = "CreateosCleanupError"


class CreateosTimeoutError(CreateosError):
    """A deadline passed before the request or the wait completed."""

    error_class = "TimeoutError"

    def __init__(self) -> None:
        super().__init__("The operation was aborted due to timeout")


class CreateosCancelledError(CreateosError):
    """The caller's cancellation event was set; re-raised as the caller's reason."""

    error_class = "AbortError"

    def __init__(self) -> None:
        super().__init__("This operation was aborted")
