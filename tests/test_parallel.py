"""Parallel evaluation: process pools, Dask clusters, dying workers, bad executors."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline import parallel
from isoline.store import Store

BOX = iso.Box([-1.0, -1.0], [1.0, 1.0])


def sphere(x: np.ndarray) -> float:
    return float(np.sum(np.asarray(x) ** 2))


class Pairs:
    """``sphere`` once the other evaluation of its pair has started too (picklable, for
    worker processes): each call leaves a file in ``folder`` and waits until the files
    number a multiple of two, so the two evaluations of a batch of two overlap in time
    on any machine, and evaluated one after the other they could never finish."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder)

    def __call__(self, x: np.ndarray) -> float:
        import uuid

        Path(self.folder, uuid.uuid4().hex).touch()
        mine = len(os.listdir(self.folder))
        for _ in range(6000):  # a guard against a hang, not a time bound: 5 min at most
            if len(os.listdir(self.folder)) >= mine + mine % 2:
                break
            time.sleep(0.05)
        return sphere(x)


class KillOnce:
    """Kills the process running it, once: the first call to create ``marker`` waits until
    the study in ``store`` has an evaluation stored as ok (another worker's), writes the
    kill time into the marker and dies with SIGKILL. Every other call returns
    ``sphere(x)`` after ``seconds``. Waiting on the store, not on a clock, keeps the order
    of events the same on a loaded machine."""

    def __init__(self, marker: Path, store: Path | str, seconds: float = 0.0) -> None:
        self.marker, self.store, self.seconds = str(marker), str(store), seconds

    def __call__(self, x: np.ndarray) -> float:
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            time.sleep(self.seconds)
            return sphere(x)
        for _ in range(6000):  # a guard against a hang, not a time bound: 5 min at most
            if self._one_stored():
                break
            time.sleep(0.05)
        os.write(fd, repr(time.time()).encode())
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)
        return 0.0  # never reached

    def _one_stored(self) -> bool:
        import sqlite3

        try:
            with sqlite3.connect(f"file:{self.store}?mode=ro", uri=True) as conn:
                return (
                    conn.execute("SELECT 1 FROM trials WHERE status = 'ok'").fetchone() is not None
                )
        except sqlite3.Error:  # not created yet
            return False


def _kill_time(marker: Path) -> float:
    return float(marker.read_text())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- bad input ---------------------------------------------------------------------------
def test_executor_without_submit_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="submit"):
        iso.minimize(sphere, BOX, "random", budget=4, batch_size=2, executor=object())


def test_unknown_executor_name_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="'process', 'thread', 'dask'"):
        iso.minimize(sphere, BOX, "random", budget=4, batch_size=2, executor="gpu")


def test_batch_size_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        iso.minimize(sphere, BOX, "random", budget=4, batch_size=0)


def test_unreachable_dask_address_is_a_connection_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "DASK_CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(ConnectionError, match="cannot reach the Dask scheduler"):
        iso.minimize(sphere, BOX, "random", budget=4, batch_size=2, executor=address)


def test_unpicklable_objective_with_processes_is_a_clear_error(tmp_path: Path) -> None:
    """Refused before the study is made, so no batch waits in the store for a resume."""
    db = str(tmp_path / "r.db")
    with pytest.raises(TypeError, match="picklable"):
        iso.minimize(lambda x: 0.0, BOX, "random", budget=4, batch_size=2, executor="process",
                     storage=db, study="s")  # fmt: skip
    with pytest.raises(ValueError, match="timeout= needs evaluations it can stop"):
        iso.minimize(sphere, BOX, "random", budget=4, executor="thread", timeout=1,
                     storage=db, study="t")  # fmt: skip
    with Store(db, readonly=True) as store:
        assert store.studies() == []


# -- process pool ------------------------------------------------------------------------
def test_process_pool_runs_a_batch_concurrently_and_matches_serial(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    (tmp_path / "calls").mkdir()
    res = iso.minimize(Pairs(tmp_path / "calls"), BOX, "random", budget=4, batch_size=2, executor="process",
                       seed=4, storage=db, study="s")  # fmt: skip
    serial = iso.minimize(sphere, BOX, "random", budget=4, batch_size=2, seed=4)
    np.testing.assert_array_equal(res.x_iters, serial.x_iters)
    np.testing.assert_allclose(res.func_vals, serial.func_vals)
    assert res.status == ["ok"] * 4
    with Store(db) as store:
        trials = store.trials(store.get_study("s"))
    for b in (0, 1):  # the two evaluations of each batch overlap in time
        batch = trials[2 * b : 2 * b + 2]
        assert max(t.started for t in batch) < min(t.finished for t in batch)


def test_process_worker_death_is_recorded_and_the_pool_recovers(tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    db = tmp_path / "runs.db"
    f = KillOnce(marker, db)
    res = iso.minimize(f, BOX, "random", budget=4, batch_size=2, executor="process",
                       storage=str(db), study="s", seed=1)  # fmt: skip
    assert marker.exists()
    assert res.n_evals == 4
    first, second = res.status[:2], res.status[2:]
    assert "failed" in first
    assert second == ["ok"] * 2, "the pool did not recover after the worker died"
    lost = [e for e in res.errors[:2] if e]
    assert lost and all("BrokenProcessPool" in e for e in lost)
    # evaluations that finished before the death are stored with their values
    with Store(db) as store:
        trials = store.trials(store.get_study("s"))
    killed_at = _kill_time(marker)
    for t in trials:
        if t.finished is not None and t.finished < killed_at and t.status == "ok":
            assert t.y == pytest.approx(sphere(t.x))
    assert sum(t.status == "ok" for t in trials[:2]) == 1


class CrashBeside:
    """Kills its worker for ``x[0] > 0.5`` once the other evaluation of the batch has
    started, which then waits for that death (and would never return if not evaluated
    again); evaluated again alone, after the death, it returns ``sphere(x)``."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder)

    def _wait(self, name: str) -> None:
        for _ in range(6000):  # a guard against a hang, not a time bound: 5 min at most
            if Path(self.folder, name).exists():
                return
            time.sleep(0.05)

    def __call__(self, x: np.ndarray) -> float:
        died = Path(self.folder, "died")
        if x[0] > 0.5:
            self._wait("other started")
            died.touch()
            os._exit(3)
        if died.exists():
            return sphere(x)
        Path(self.folder, "other started").touch()
        self._wait("died")
        time.sleep(3600)
        return 0.0  # never reached


@pytest.mark.parametrize("timeout", [None, 300.0])
def test_a_dying_worker_fails_only_its_own_evaluation(tmp_path: Path, timeout) -> None:
    """The pool breaks under both evaluations of the batch; the one that did not kill its
    worker is evaluated again and succeeds."""
    X = np.array([[0.9, 0.0], [0.1, 0.0]])
    res = iso.minimize(CrashBeside(tmp_path), BOX, "random", budget=2, batch_size=2, x0=X,
                       executor="process", timeout=timeout, seed=0)  # fmt: skip
    assert res.status == ["failed", "ok"]
    assert "BrokenProcessPool" in res.errors[0] and res.func_vals[1] == pytest.approx(0.01)


# -- Dask --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


def test_dask_executor_matches_serial(cluster) -> None:
    from dask.distributed import Client

    with Client(cluster) as client:
        res = iso.minimize(sphere, BOX, "random", budget=8, batch_size=4, seed=3,
                           executor=client.get_executor())  # fmt: skip
    serial = iso.minimize(sphere, BOX, "random", budget=8, batch_size=4, seed=3)
    np.testing.assert_array_equal(res.x_iters, serial.x_iters)
    np.testing.assert_allclose(res.func_vals, serial.func_vals)


def test_dask_worker_killed_mid_batch_keeps_finished_results_and_resumes(
    cluster, tmp_path: Path
) -> None:
    """A worker dies while the others run: what finished is stored, the dead worker's
    evaluation is recorded as failed (no retries allowed here), and the study resumes."""
    from dask.distributed import Client

    cluster.scheduler.allowed_failures = 0  # report a death at once instead of retrying
    marker = tmp_path / "killed"
    db = str(tmp_path / "runs.db")
    f = KillOnce(marker, db, seconds=0.2)
    kw = dict(method="random", batch_size=4, seed=7, storage=db, study="s")
    with Client(cluster) as client:
        res = iso.minimize(f, BOX, budget=8, executor=client.get_executor(), **kw)
        assert marker.exists()
        assert res.n_evals == 8
        failed = [e for e, s in zip(res.errors, res.status) if s == "failed"]
        assert 1 <= len(failed) <= 2  # the killed task (and at most one queued behind it)
        assert all("KilledWorker" in e for e in failed)
        killed_at = _kill_time(marker)
        with Store(db) as store:
            before = store.trials(store.get_study("s"))
        finished_first = [t for t in before if t.finished is not None and t.finished < killed_at]
        assert finished_first and all(t.status == "ok" for t in finished_first)
        assert all(t.y == pytest.approx(sphere(t.x)) for t in before if t.status == "ok")

        # resume the same study with a larger budget: nothing is re-run or lost
        more = iso.minimize(f, BOX, budget=12, executor=client.get_executor(), **kw)
    assert more.n_evals == 12
    np.testing.assert_array_equal(more.x_iters[:8], res.x_iters)
    np.testing.assert_array_equal(more.status[:8], res.status)
    np.testing.assert_allclose(more.func_vals[:8], res.func_vals, equal_nan=True)
    assert more.status[8:] == ["ok"] * 4


@pytest.mark.slow
def test_dask_name_starts_and_stops_a_local_cluster() -> None:
    pytest.importorskip("dask.distributed")
    res = iso.minimize(sphere, BOX, "random", budget=4, batch_size=2, seed=0, executor="dask")
    assert res.status == ["ok"] * 4


def test_dask_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if not installed
    with pytest.raises(ImportError, match=r'pip install "isoline\[distributed\]"'):
        parallel.make_executor("dask", 2)
    with pytest.raises(ImportError, match="distributed"):
        parallel.make_executor("tcp://127.0.0.1:1", 2)
