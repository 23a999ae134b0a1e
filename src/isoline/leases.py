"""One owner per study: leases in the store's ``leases`` table, kept alive by a heartbeat.

A run that resumes or extends a study first takes its lease (:meth:`LeaseBook.acquire`):
a row naming the owner's host, pid and process start time, whose heartbeat a daemon
thread renews every :data:`LEASE_HEARTBEAT` seconds. A second run is refused before it
evaluates anything. A lease is *stale*, and may be taken over, when its process is gone
(same host: the pid is dead or now belongs to a process started at another time) or, for
a lease held on another host, when its heartbeat is older than the grace period. Ages are
measured on the reader's clock: a heartbeat that is in the future (clock skew between
hosts, or a crafted store) counts from when this reader first saw that value, so it goes
stale once it has not changed for the grace period.

A lease that is not stale but whose holder cannot go on by itself (a same-host process
that is stopped, by SIGSTOP or Ctrl-Z; a process that stopped heartbeating, e.g. a pid
now used by another user's program) is reported with its pid and the command that clears
it: :meth:`LeaseBook.unlock` (``isoline unlock STORE STUDY``) removes a lease whose holder
is not alive and heartbeating, and with ``force`` any lease. Every write of a trial first
checks that this run still holds the lease (:meth:`LeaseBook.check_owner`), so a run that
lost it, to a takeover or an unlock, stops without writing.
"""

from __future__ import annotations

import os
import shlex
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from isoline.processes import is_alive, owner_name, run_state, start_time

__all__ = [
    "LEASE_GRACE",
    "LEASE_HEARTBEAT",
    "UNLOCK_WATCH",
    "Holder",
    "Lease",
    "LeaseBook",
    "LeaseError",
]

#: seconds between two heartbeats of a held lease
LEASE_HEARTBEAT = 10.0
#: seconds after its last heartbeat when another host may take a lease over
LEASE_GRACE = 60.0
#: seconds an unlock watches a heartbeat it cannot judge otherwise (another host's, or one
#: in the future) for a change, before it counts the holder as no longer heartbeating
UNLOCK_WATCH = 1.5 * LEASE_HEARTBEAT


class LeaseError(RuntimeError):
    """Another owner holds the study, or this run lost its lease."""


#: scheduler states of a process that stopped on a signal (SIGSTOP, Ctrl-Z) or a debugger
STOPPED_STATES = ("T", "t")


@dataclass(frozen=True)
class Holder:
    """What one reader knows of the owner of a lease row.

    Attributes:
        host, pid: where the lease was taken.
        local: the lease was taken on this host (its pid can be looked at).
        mine: taken by this very process (another run in it).
        alive: ``local`` and that process still runs (same pid and start time).
        state: ``local``: the process's scheduler state letter (``"T"``: stopped).
        user: ``local``: the process's ``(uid, user name)``, if known.
        age: seconds since the heartbeat last changed, on this reader's clock: the
            heartbeat's age, or, if longer, how long this reader has seen the same value.
        ahead: seconds the heartbeat lies in the future of this reader's clock (else 0).
    """

    host: str
    pid: int
    local: bool
    mine: bool
    alive: bool
    state: str | None
    user: tuple[int, str] | None
    age: float
    ahead: float

    @property
    def stopped(self) -> bool:
        """A live local process stopped by a signal or a debugger: it cannot heartbeat."""
        return self.alive and self.state in STOPPED_STATES

    @property
    def foreign(self) -> bool:
        """A live local process of another user."""
        return self.alive and self.user is not None and self.user[0] != os.getuid()

    def stale(self, grace: float) -> bool:
        """Whether the lease may be taken over without asking."""
        if self.local:
            return not self.mine and not self.alive
        return self.age > grace

    def beating(self, grace: float) -> bool:
        """Whether the holder looks alive and heartbeating (an unlock needs ``force``)."""
        if self.mine:
            return True
        if self.local and (not self.alive or self.stopped):
            return False
        return self.age <= grace

    def who(self) -> str:
        where = "this host" if self.local else f"host {self.host!r}"
        user = f" of user {self.user[1]!r}" if self.foreign and self.user else ""
        return f"process {self.pid}{user} on {where}"

    def heartbeat(self) -> str:
        if self.ahead > 0:
            return (
                f"its last heartbeat is {self.ahead:.0f} s in the future by this host's clock "
                "(clock skew between hosts, or a damaged store)"
            )
        return f"last heartbeat {self.age:.0f} s ago"


class Lease:
    """Ownership of one study by one run; renewed by a daemon thread until released."""

    def __init__(
        self, book: LeaseBook, study_id: int, name: str, token: str, heartbeat: bool
    ) -> None:
        self.book = book
        self.study_id = study_id
        self.name = name
        self.token = token
        self.active = True
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if heartbeat:
            self._thread = threading.Thread(
                target=self._beat, name=f"isoline-lease-{name}", daemon=True
            )
            self._thread.start()

    def _beat(self) -> None:
        conn = sqlite3.connect(self.book.path, timeout=self.book.timeout, isolation_level=None)
        try:
            while not self._stop.wait(LEASE_HEARTBEAT):
                try:
                    conn.execute(
                        "UPDATE leases SET heartbeat = ? WHERE study_id = ? AND token = ?",
                        (time.time(), self.study_id, self.token),
                    )
                except sqlite3.Error:
                    continue  # busy or closed: the next beat tries again
        finally:
            conn.close()

    def release(self) -> None:
        """Give the study up (idempotent)."""
        if not self.active:
            return
        self.active = False
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.book.forget(self)


class LeaseBook:
    """The leases of one store connection.

    Args:
        conn: the store's connection (autocommit mode).
        path: the store file, for the heartbeat threads' own connections
            (``":memory:"``: no heartbeat thread).
        timeout: SQLite busy timeout of those connections, seconds.
        grace: seconds without a heartbeat after which a lease held on another host is stale.
        transaction: opens a write transaction on ``conn`` (raises if the store is read-only).
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: str,
        timeout: float,
        grace: float,
        transaction: Callable[[], AbstractContextManager[None]],
    ) -> None:
        self.conn = conn
        self.path = path
        self.timeout = timeout
        self.grace = grace
        self.transaction = transaction
        self.held: dict[int, Lease] = {}
        #: study id -> (token, heartbeat, monotonic time this reader first saw that pair)
        self._seen: dict[int, tuple[str, float, float]] = {}

    def acquire(self, study_id: int, name: str) -> Lease:
        """Take the lease of study ``study_id`` for this process.

        Raises:
            LeaseError: another owner (process, or another run in this process) holds a
                lease that is not stale; the message names its host, pid and heartbeat
                age, and how to clear the lease if its holder cannot go on.
        """
        held = self.held.get(study_id)
        if held is not None and held.active:
            raise LeaseError(f"study {name!r} is already being run through this store")
        token = uuid.uuid4().hex
        host, pid, start = socket.gethostname(), os.getpid(), start_time(os.getpid())
        with self.transaction():
            h = self.inspect(study_id)
            if h is not None and not h.stale(self.grace):
                what, advice = self.explain(h, name)
                raise LeaseError(f"{what}; one study can be run by one process at a time. {advice}")
            now = time.time()
            self.conn.execute(
                "INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?, ?, ?, ?)",
                (study_id, token, host, pid, start, now, now),
            )
        lease = Lease(self, study_id, name, token, heartbeat=self.path != ":memory:")
        self.held[study_id] = lease
        return lease

    def inspect(self, study_id: int) -> Holder | None:
        """The holder of the study's lease row as this reader sees it, or None (no row)."""
        row = self.conn.execute(
            "SELECT token, host, pid, pid_start, heartbeat FROM leases WHERE study_id = ?",
            (study_id,),
        ).fetchone()
        if row is None:
            self._seen.pop(study_id, None)
            return None
        token, host, pid, pid_start, heartbeat = row
        now, tick = time.time(), time.monotonic()
        seen = self._seen.get(study_id)
        if seen is None or seen[:2] != (token, heartbeat):
            seen = (token, heartbeat, tick)
            self._seen[study_id] = seen
        local = host == socket.gethostname()
        mine = local and pid == os.getpid()
        alive = local and (mine or is_alive(pid, pid_start))
        return Holder(
            host=host,
            pid=pid,
            local=local,
            mine=mine,
            alive=alive,
            state=run_state(pid) if alive else None,
            user=owner_name(pid) if alive else None,
            age=max(now - heartbeat, tick - seen[2]),
            ahead=max(heartbeat - now, 0.0),
        )

    def unlock_command(self, name: str, force: bool = False) -> str:
        """The shell command that clears the lease of study ``name`` in this store."""
        tail = " --force" if force else ""
        return f"isoline unlock {shlex.quote(self.path)} {shlex.quote(name)}{tail}"

    def explain(self, h: Holder, name: str) -> tuple[str, str]:
        """``(who holds the study, what the user can do)`` for a lease that is not stale."""
        what = f"study {name!r} is being run by {h.who()}"
        if h.mine:
            return f"{what} (another run in this process)", "Let that run finish first."
        if h.stopped:
            return (
                f"{what}, which is stopped (state {h.state}: SIGSTOP, Ctrl-Z or a debugger; "
                f"{h.heartbeat()})",
                f"Let it go on with `kill -CONT {h.pid}`, end it with `kill {h.pid}`, or "
                f"clear its lease with `{self.unlock_command(name)}` (if it is continued "
                "later, it stops at its next write).",
            )
        if not h.beating(self.grace):
            return (
                f"{what}, whose heartbeat stopped ({h.heartbeat()}; a live process that "
                "does not heartbeat, e.g. its pid now belongs to another program)",
                f"Clear its lease with `{self.unlock_command(name)}`.",
            )
        force = self.unlock_command(name, force=True)
        if h.local:
            stop = f"ask user {h.user[1]!r} to stop it" if h.foreign and h.user else "stop it"
            return (
                f"{what} ({h.heartbeat()})",
                f"To run the study here, {stop} (`kill {h.pid}`) or take the study from it "
                f"with `{force}` (it then stops at its next write).",
            )
        if h.ahead > 0:
            wait = (
                f"it counts as stale once it has not changed for {self.grace:.0f} s on this "
                "host's clock"
            )
        else:
            wait = f"its lease goes stale in {max(self.grace - h.age, 0.0):.0f} s"
        return (
            f"{what} ({h.heartbeat()})",
            f"If that run is gone for good, {wait}; `{self.unlock_command(name)}` clears it "
            f"once it no longer heartbeats, `{force}` at once.",
        )

    def holder(self, study_id: int) -> str | None:
        """Who holds a live lease on the study (``"process P on host H"``), or None."""
        h = self.inspect(study_id)
        if h is None or h.stale(self.grace):
            return None
        return h.who()

    def unlock(
        self, study_id: int, name: str, force: bool = False, watch: float = UNLOCK_WATCH
    ) -> str:
        """Remove the study's lease; returns whose it was (``""``: there was none).

        Without ``force`` the lease is removed only if its holder is not alive and
        heartbeating (:meth:`Holder.beating`). Where the holder's process cannot be looked
        at (another host) or its heartbeat lies in the future, the heartbeat is watched for
        ``watch`` seconds first: it beats if it changes meanwhile. A holder whose lease is
        removed stops at its next write (:meth:`check_owner`).

        Raises:
            LeaseError: the holder is alive and heartbeating (and not ``force``), or it is
                a run in this very process.
        """
        h = self.inspect(study_id)
        silent = False
        if h is not None and not force and not h.stale(self.grace):
            if (not h.local or h.ahead > 0) and not h.mine:
                deadline = time.monotonic() + watch + 1.0
                while h is not None and h.age < watch and time.monotonic() < deadline:
                    time.sleep(min(0.25, watch))
                    h = self.inspect(study_id)
                silent = h is not None and h.age >= watch
        if h is None:
            return ""
        if h.mine or not (force or silent or not h.beating(self.grace)):
            what, advice = self.explain(h, name)
            raise LeaseError(f"{what}; its lease is kept. {advice}")
        with self.transaction():
            self.conn.execute("DELETE FROM leases WHERE study_id = ?", (study_id,))
        self._seen.pop(study_id, None)
        return f"{h.who()} ({h.heartbeat()})"

    def check_owner(self, study_id: int, name: str) -> None:
        """Inside a write transaction: refuse if another owner holds the study's lease, or
        if this run's lease was removed (:meth:`unlock`)."""
        row = self.conn.execute(
            "SELECT token, host, pid FROM leases WHERE study_id = ?", (study_id,)
        ).fetchone()
        mine = self.held.get(study_id)
        if row is None:
            if mine is not None and mine.active:
                raise LeaseError(
                    f"the lease of study {name!r} was removed (isoline unlock); this run "
                    "lost it and stops without writing"
                )
            return
        if mine is None or mine.token != row[0]:
            raise LeaseError(
                f"study {name!r} is now owned by process {row[2]} on host {row[1]!r}; "
                "this run lost its lease and stops without writing"
            )

    def renew(self, study_id: int) -> None:
        """Inside a write transaction: renew this run's heartbeat of the study, if held."""
        lease = self.held.get(study_id)
        if lease is not None:
            self.conn.execute(
                "UPDATE leases SET heartbeat = ? WHERE study_id = ? AND token = ?",
                (time.time(), study_id, lease.token),
            )

    def forget(self, lease: Lease) -> None:
        """Delete a released lease's row (a read-only or closed store: it goes stale)."""
        self.held.pop(lease.study_id, None)
        try:
            with self.transaction():
                self.conn.execute(
                    "DELETE FROM leases WHERE study_id = ? AND token = ?",
                    (lease.study_id, lease.token),
                )
        except (sqlite3.Error, RuntimeError):
            pass

    def release_all(self) -> None:
        """Release every lease this book holds."""
        for lease in list(self.held.values()):
            lease.release()
