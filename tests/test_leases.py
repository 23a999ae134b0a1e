"""Leases at the edges: a heartbeat in the future, a stopped or foreign holder, a holder
that no longer heartbeats, and ``isoline unlock``."""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline import leases
from isoline.cli import main
from isoline.processes import run_state, start_time
from isoline.store import Store, StoreError


def sphere(x: np.ndarray) -> float:
    return float(np.sum((np.asarray(x) - 0.3) ** 2))


BOX = iso.Box([0.0, 0.0], [1.0, 1.0])


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "s.db")
    iso.minimize(sphere, BOX, "random", budget=2, storage=path, study="s")
    return path


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def put_lease(db: str, host: str, pid: int, heartbeat: float, pid_start: str | None = None) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM leases")
        conn.execute(
            "INSERT INTO leases VALUES (1, 'tok', ?, ?, ?, ?, ?)",
            (host, pid, pid_start, heartbeat, heartbeat),
        )


def lease_count(db: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0])


def test_a_heartbeat_in_the_future_goes_stale_on_the_readers_clock(db: str) -> None:
    put_lease(db, "elsewhere", 1, time.time() + 3600)
    with Store(db, lease_grace=0.3) as store:
        rec = store.get_study("s")
        with pytest.raises(StoreError, match="in the future") as err:
            store.acquire(rec)
        assert "isoline unlock" in str(err.value)
        time.sleep(0.5)  # the same value, unchanged for longer than the grace period
        lease = store.acquire(rec)
        lease.release()


def test_a_future_heartbeat_that_changes_is_not_stale(db: str) -> None:
    put_lease(db, "elsewhere", 1, time.time() + 3600)
    with Store(db, lease_grace=0.3) as store:
        rec = store.get_study("s")
        for k in range(3):
            with pytest.raises(StoreError, match="in the future"):
                store.acquire(rec)
            with sqlite3.connect(db) as conn:  # the holder beats (on its skewed clock)
                conn.execute("UPDATE leases SET heartbeat = ?", (time.time() + 3601 + k,))
            time.sleep(0.2)


def test_a_stopped_holder_is_named_with_the_commands_that_clear_it(
    db: str, sleeper: subprocess.Popen, capsys
) -> None:
    pid = sleeper.pid
    put_lease(db, socket.gethostname(), pid, time.time(), start_time(pid))
    sleeper.send_signal(signal.SIGSTOP)
    for _ in range(100):
        if run_state(pid) == "T":
            break
        time.sleep(0.05)
    calls: list[object] = []
    with pytest.raises(StoreError, match=f"process {pid} on this host, which is stopped") as err:
        iso.minimize(lambda x: calls.append(x) or 0.0, BOX, "random", budget=4, storage=db,
                     study="s")  # fmt: skip
    assert calls == []
    message = str(err.value)
    assert f"kill -CONT {pid}" in message and f"isoline unlock {db} s`" in message
    assert "wait" not in message
    assert main(["delete", db, "s"]) == 2
    assert "isoline unlock" in capsys.readouterr().err
    assert main(["unlock", db, "s"]) == 0  # stopped: not heartbeating, no --force needed
    assert f"held by process {pid} on this host" in capsys.readouterr().out
    assert lease_count(db) == 0
    assert main(["delete", db, "s"]) == 0


def test_a_live_heartbeating_holder_is_unlocked_only_with_force(
    db: str, sleeper: subprocess.Popen, capsys
) -> None:
    pid = sleeper.pid
    put_lease(db, socket.gethostname(), pid, time.time(), start_time(pid))
    assert main(["unlock", db, "s"]) == 2
    err = capsys.readouterr().err
    assert f"process {pid} on this host" in err and "--force" in err
    assert lease_count(db) == 1
    assert main(["delete", db, "s"]) == 2
    capsys.readouterr()
    assert main(["unlock", db, "s", "--force"]) == 0
    assert lease_count(db) == 0
    assert main(["unlock", db, "s"]) == 0
    assert "has no lease" in capsys.readouterr().out
    assert main(["delete", db, "s"]) == 0


def test_a_live_holder_that_stopped_heartbeating_is_reported_and_unlocked(
    db: str, monkeypatch
) -> None:
    # pid 1 runs but never took this lease (no start time recorded: a pid now used by
    # another program), and belongs to someone else as far as the lease book is told
    monkeypatch.setattr(leases, "owner_name", lambda pid: (12345, "someone"))
    put_lease(db, socket.gethostname(), 1, time.time() - 3600)
    with Store(db) as store:
        rec = store.get_study("s")
        with pytest.raises(StoreError, match="process 1 of user 'someone' on this host") as err:
            store.acquire(rec)
        assert "heartbeat stopped" in str(err.value) and "wait" not in str(err.value)
        assert (
            store.unlock("s") == "process 1 of user 'someone' on this host (last heartbeat "
            "3600 s ago)"
        )
        store.acquire(rec).release()


def test_unlock_watches_a_heartbeat_it_cannot_judge(db: str) -> None:
    put_lease(db, "elsewhere", 1, time.time())
    stop = threading.Event()

    def beat() -> None:
        with sqlite3.connect(db, isolation_level=None) as conn:
            while not stop.wait(0.05):
                conn.execute("UPDATE leases SET heartbeat = ?", (time.time(),))

    thread = threading.Thread(target=beat)
    thread.start()
    try:
        with Store(db) as store, pytest.raises(StoreError, match="--force"):
            store.unlock("s", watch=0.5)
    finally:
        stop.set()
        thread.join()
    assert lease_count(db) == 1
    with Store(db) as store:
        assert store.unlock("s", watch=0.3).startswith("process 1 on host 'elsewhere'")
    assert lease_count(db) == 0


def test_a_run_whose_lease_was_removed_stops_without_writing(db: str) -> None:
    with Store(db) as store:
        rec = store.get_study("s")
        lease = store.acquire(rec)
        with sqlite3.connect(db) as conn:  # what `isoline unlock --force` does from elsewhere
            conn.execute("DELETE FROM leases")
        with pytest.raises(StoreError, match="was removed"):
            store.add_batch(rec, 2, np.zeros((1, 2)), np.zeros((1, 2)))
        lease.release()
        assert len(store.trials(rec)) == 2


def test_unlock_refuses_a_run_of_this_process_and_unknown_studies(db: str) -> None:
    with Store(db) as store:
        lease = store.acquire(store.get_study("s"))
        with pytest.raises(StoreError, match="another run in this process"):
            store.unlock("s", force=True)
        lease.release()
        with pytest.raises(StoreError, match="no study 'nope'"):
            store.unlock("nope")
