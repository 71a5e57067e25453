"""An executor that proves sshd records against Debian's real ``/usr/sbin/sshd`` on 127.0.0.1.

:class:`SshdServer` runs sshd in the foreground with a folder it owns; :class:`TestUser` is the account a run
logs in as; :mod:`~errdex.executor.sshd.client` opens raw TCP connections and speaks SSH; :class:`SshdSession`
runs one scenario of the vocabulary (:mod:`errdex.records.scenarios.sshd`) and hands back the log lines sshd
wrote for that connection. :class:`Lease` records what a run makes before it makes it, and
:func:`remove_leftovers` removes what a killed run left.
"""

from errdex.executor.sshd.client import ClientResult, Credential, connect, login, negotiate
from errdex.executor.sshd.errors import SshdError, SshdStartError, SshdUnavailable, SshdUserError
from errdex.executor.sshd.lease import STATE_DIR, Lease, Leftovers, remove_leftovers
from errdex.executor.sshd.run import RunResult, SshdSession, substitute
from errdex.executor.sshd.server import SSHD, SshdServer, children_of, require_sshd
from errdex.executor.sshd.users import TestUser, invalid_name

__all__ = [
    "SSHD",
    "STATE_DIR",
    "ClientResult",
    "Credential",
    "Lease",
    "Leftovers",
    "RunResult",
    "SshdError",
    "SshdServer",
    "SshdSession",
    "SshdStartError",
    "SshdUnavailable",
    "SshdUserError",
    "TestUser",
    "children_of",
    "connect",
    "invalid_name",
    "login",
    "negotiate",
    "remove_leftovers",
    "require_sshd",
    "substitute",
]
