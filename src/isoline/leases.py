"""One owner per study: leases in the store's ``leases`` table, kept alive by a heartbeat.

A run that resumes or extends a study first takes its lease (:meth:`LeaseBook.acquire`):
a row naming the owner's host, pid and process start time, whose heartbeat a daemon
thread renews every :data:`LEASE_HEARTBEAT` seconds. A second run is refused before it
evaluates anything. A lease is *stale*, and may be taken over, when its process is gone
(same host: the pid is dead or now belongs to a process started at another time) or, for
a lease held on another host, when its heartbeat is older than the grace period. Every
write of a trial first checks that this run still holds the lease
(:meth:`LeaseBook.check_owner`), so a run that lost it stops without writing.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager

from isoline.processes import is_alive, start_time

__all__ = ["LEASE_GRACE", "LEASE_HEARTBEAT", "Lease", "LeaseBook", "LeaseError"]

#: seconds between two heartbeats of a held lease
LEASE_HEARTBEAT = 10.0
#: seconds after its last heartbeat when another host may take a lease over
LEASE_GRACE = 60.0


class LeaseError(RuntimeError):
    """Another owner holds the study, or this run lost its lease."""


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

    def acquire(self, study_id: int, name: str) -> Lease:
        """Take the lease of study ``study_id`` for this process.

        Raises:
            LeaseError: another owner (process, or another run in this process) holds a
                lease that is not stale; the message names its host, pid and heartbeat age.
        """
        held = self.held.get(study_id)
        if held is not None and held.active:
            raise LeaseError(f"study {name!r} is already being run through this store")
        token = uuid.uuid4().hex
        host, pid, start = socket.gethostname(), os.getpid(), start_time(os.getpid())
        with self.transaction():
            row = self.conn.execute(
                "SELECT token, host, pid, pid_start, heartbeat FROM leases WHERE study_id = ?",
                (study_id,),
            ).fetchone()
            if row is not None and not self.stale(*row[1:]):
                age = time.time() - row[4]
                raise LeaseError(
                    f"study {name!r} is being run by process {row[2]} on host {row[1]!r} "
                    f"(last heartbeat {age:.0f} s ago); one study can be run by one process at "
                    f"a time. If that process is gone for good, wait {self.grace:.0f} s "
                    "for its lease to go stale"
                )
            now = time.time()
            self.conn.execute(
                "INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?, ?, ?, ?)",
                (study_id, token, host, pid, start, now, now),
            )
        lease = Lease(self, study_id, name, token, heartbeat=self.path != ":memory:")
        self.held[study_id] = lease
        return lease

    def holder(self, study_id: int) -> str | None:
        """Who holds a live lease on the study (``"process P on host H"``), or None."""
        row = self.conn.execute(
            "SELECT host, pid, pid_start, heartbeat FROM leases WHERE study_id = ?", (study_id,)
        ).fetchone()
        if row is None or self.stale(*row):
            return None
        return f"process {row[1]} on host {row[0]!r}"

    def stale(self, host: str, pid: int, pid_start: str | None, heartbeat: float) -> bool:
        """Whether a lease row of that owner may be taken over."""
        if host == socket.gethostname():
            if pid == os.getpid():
                return False  # another run in this very process
            return not is_alive(pid, pid_start)
        return time.time() - heartbeat > self.grace

    def check_owner(self, study_id: int, name: str) -> None:
        """Inside a write transaction: refuse if another owner holds the study's lease."""
        row = self.conn.execute(
            "SELECT token, host, pid FROM leases WHERE study_id = ?", (study_id,)
        ).fetchone()
        if row is None:
            return
        mine = self.held.get(study_id)
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
