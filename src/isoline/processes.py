"""Which processes are alive: identity by pid and start time, so a reused pid is not
mistaken for the process that owned it."""

from __future__ import annotations

import os

__all__ = ["is_alive", "start_time"]


def start_time(pid: int) -> str | None:
    """The start time (clock ticks after boot) of a live, non-zombie process.

    ``None`` if the process is gone or a zombie, or where ``/proc`` does not exist.
    """
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
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
