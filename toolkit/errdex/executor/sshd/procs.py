"""The process table, read from /proc: who is whose child, whether a process is the one it was, what it runs.

A process is named by its pid and its start time (clock ticks after boot, field 22 of ``/proc/PID/stat``) on
one boot (``/proc/sys/kernel/random/boot_id``): a pid the kernel has given to another process since does not
pass for the one that was recorded.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

__all__ = ["alive", "argv_of", "boot_id", "children_of", "exe_of", "kill_all", "pids_of_uid", "same_process",
           "start_time", "wait_gone"]


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first), or None when there is no such pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # the process ended while we looked
        return None
    return stat[stat.rfind(")") + 2:].split()


def _pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def boot_id() -> str:
    """This boot's id (a new one after every boot); where the kernel gives none, the boot's time."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        btime = next((line for line in Path("/proc/stat").read_text().splitlines() if line.startswith("btime ")), "")
        return btime.replace(" ", ":")


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot), or None when there is none (or a zombie)."""
    fields = _stat_fields(pid)
    if not fields or fields[0] == "Z" or len(fields) < 20:
        return None
    return int(fields[19])


def same_process(pid: int, started: int, boot: str) -> bool:
    """Whether the process recorded as ``pid`` started at ``started`` on boot ``boot`` is still running."""
    return boot == boot_id() and start_time(pid) == started


def alive(pid: int) -> bool:
    """Whether ``pid`` names a process that is not a zombie."""
    fields = _stat_fields(pid)
    return bool(fields) and fields[0] != "Z"  # type: ignore[index]  # fields is a non-empty list here


def exe_of(pid: int) -> str | None:
    """The program file process ``pid`` runs (" (deleted)" taken off), or None when it cannot be read."""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None
    return exe.removesuffix(" (deleted)")


def argv_of(pid: int) -> list[str]:
    """The command line of ``pid`` (empty when it cannot be read)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="surrogateescape") for part in raw.split(b"\0")[:-1]]


def children_of(pid: int) -> list[int]:
    """Every living descendant of process ``pid`` (read from /proc), children before grandchildren."""
    parents: dict[int, list[int]] = {}
    for entry in _pids():
        fields = _stat_fields(entry)
        if fields and fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(entry)
    found: list[int] = []
    queue = [pid]
    while queue:
        kids = parents.get(queue.pop(0), [])
        found.extend(kids)
        queue.extend(kids)
    return found


def pids_of_uid(uid: int) -> list[int]:
    """The living processes whose real, effective, saved or file-system user id is ``uid``."""
    found = []
    for pid in _pids():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        line = next((row for row in status.splitlines() if row.startswith("Uid:")), "")
        if str(uid) in line.split()[1:] and alive(pid):
            found.append(pid)
    return found


def wait_gone(pids: list[int], timeout: float = 2.0) -> None:
    """Wait until the killed processes are gone (their parent or init reaps them)."""
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.005)  # a poll interval: the condition is the process table


def kill_all(pids: list[int]) -> None:
    """SIGKILL each of ``pids`` (one already gone is no error) and wait until they are gone."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    wait_gone(pids)
