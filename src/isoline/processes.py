"""Which processes are alive: identity by pid and start time, so a reused pid is not
mistaken for the process that owned it."""

from __future__ import annotations

import os

__all__ = ["is_alive", "owner_name", "run_state", "start_time"]


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def run_state(pid: int) -> str | None:
    """The scheduler state letter of process ``pid`` (``"R"``, ``"S"``, ``"T"`` for stopped
    by a signal, ``"t"`` stopped by a debugger, ...), or None if unknown or gone."""
    fields = _stat_fields(pid)
    return None if not fields else fields[0]


def owner_name(pid: int) -> tuple[int, str] | None:
    """``(uid, user name)`` of the owner of process ``pid``, or None if unknown."""
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None
    try:
        import pwd

        return uid, pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return uid, str(uid)


def start_time(pid: int) -> str | None:
    """The start time (clock ticks after boot) of a live, non-zombie process.

    ``None`` if the process is gone or a zombie, or where ``/proc`` does not exist.
    """
    fields = _stat_fields(pid)
    if not fields:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def is_alive(pid: int, start: str | None = None) -> bool:
    """Whether process ``pid`` runs (and, if ``start`` is given, is the one started then)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if not os.path.isdir("/proc"):
        return True
    now = start_time(pid)
    return now is not None and (start is None or now == start)
