"""A release's version: an RFC 3339 time given, or ``$SOURCE_DATE_EPOCH``, or now."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from errdex.errors import UsageError
from errdex.records.timestamps import parse_rfc3339

__all__ = ["release_version"]


def release_version(given: str | None) -> str:
    """The version to stamp: ``given`` (checked to be an RFC 3339 time), else ``$SOURCE_DATE_EPOCH`` (the
    reproducible-builds convention), else the current time, to the second, in UTC."""
    if given is not None:
        if parse_rfc3339(given) is None:
            raise UsageError(f"--version {given!r} is not an RFC 3339 time, e.g. 2026-12-01T00:00:00Z")
        return given
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:  # a malformed value stops the release: falling back to now would make it silently not reproducible
        if not (epoch.isascii() and epoch.isdigit()):
            raise ValueError(epoch)
        moment = datetime.fromtimestamp(int(epoch), UTC)
    except (ValueError, OverflowError, OSError) as exc:
        raise UsageError(f"SOURCE_DATE_EPOCH={epoch!r} is not a time: give whole seconds since 1970-01-01 UTC, "
                         "up to the year 9999, e.g. 1764547200") from exc
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
