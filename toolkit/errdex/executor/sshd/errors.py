"""The errors of the sshd executor::

    ErrdexError
    └── SshdError                 the executor could not do what a scenario asks
        ├── SshdUnavailable       sshd cannot run here (no binary, not root)
        ├── SshdStartError        sshd was started and did not come up
        └── SshdUserError         the test user could not be created or removed
"""

from __future__ import annotations

from errdex.errors import ErrdexError

__all__ = ["SshdError", "SshdStartError", "SshdUnavailable", "SshdUserError"]


class SshdError(ErrdexError):
    """The sshd executor could not do what it was asked."""


class SshdUnavailable(SshdError):
    """sshd cannot be run on this machine: the binary is missing or errdex does not run as root."""


class SshdStartError(SshdError):
    """sshd was started and exited, or did not say it listens, in time."""


class SshdUserError(SshdError):
    """useradd, chpasswd or userdel failed."""
