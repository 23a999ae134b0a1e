"""Evaluation timeouts and the run-level ``max_time``: a hung evaluation is recorded as
failed and its worker replaced; a run out of time stops with everything finished stored."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline.processes import is_alive
from isoline.store import Store

BOX = iso.Box([-1.0, -1.0], [1.0, 1.0])


def sphere(x: np.ndarray) -> float:
    return float(np.sum(np.asarray(x) ** 2))


class HangOnce:
    """The first call (the one that creates ``marker``) writes its pid there and never
    returns; every other call returns ``sphere(x)`` after ``seconds``."""

    def __init__(self, marker: Path, seconds: float = 0.0) -> None:
        self.marker, self.seconds = str(marker), seconds

    def __call__(self, x: np.ndarray) -> float:
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            time.sleep(self.seconds)
            return sphere(x)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        while True:
            time.sleep(3600)


class Slow:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __call__(self, x: np.ndarray) -> float:
        time.sleep(self.seconds)
        return sphere(x)


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (waiting a while for it to be reaped)."""
    for _ in range(200):
        if not is_alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("executor, batch_size", [(None, 1), ("process", 2)])
def test_a_hung_evaluation_times_out_as_failed_and_the_run_goes_on(
    tmp_path: Path, executor: str | None, batch_size: int
) -> None:
    marker = tmp_path / "hung"
    db = str(tmp_path / "t.db")
    res = iso.minimize(HangOnce(marker), BOX, "random", budget=4, batch_size=batch_size,
                       executor=executor, timeout=1, storage=db, study="s")  # fmt: skip
    assert res.n_evals == 4 and res.status.count("failed") == 1
    failed = res.status.index("failed")
    assert res.errors[failed].startswith("timed out after 1 s")
    assert "budget" in res.stop_reason
    assert gone(int(marker.read_text()))  # the hung worker was killed, not left behind
    with Store(db, readonly=True) as store:
        trials = store.trials(store.get_study("s"))
    assert [t.status for t in trials].count("ok") == 3


def test_timeout_needs_a_worker_it_can_stop() -> None:
    with pytest.raises(ValueError, match="executor=None .* or executor='process'"):
        iso.minimize(sphere, BOX, "random", budget=2, executor="thread", timeout=1)
    with pytest.raises(TypeError, match="with timeout= each evaluation runs in a worker"):
        iso.minimize(lambda x: 0.0, BOX, "random", budget=2, timeout=1)
    for bad in (0, -1.0, float("nan"), "1"):
        with pytest.raises((TypeError, ValueError), match="timeout"):
            iso.minimize(sphere, BOX, "random", budget=2, timeout=bad)
        with pytest.raises((TypeError, ValueError), match="max_time"):
            iso.minimize(sphere, BOX, "random", budget=2, max_time=bad)


def test_max_time_stops_cleanly_and_the_study_resumes_exactly(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    part = iso.minimize(Slow(0.3), BOX, "random", budget=8, seed=3, max_time=0.5,
                        storage=db, study="s")  # fmt: skip
    assert 1 <= part.n_evals < 8 and "max_time reached" in part.stop_reason
    assert all(s == "ok" for s in part.status)
    assert iso.load(db, "s").stop_reason == part.stop_reason  # as the run returned it
    rest = iso.minimize(sphere, BOX, "random", budget=8, seed=3, storage=db, study="s")
    assert iso.load(db, "s").stop_reason == rest.stop_reason != part.stop_reason
    whole = iso.minimize(sphere, BOX, "random", budget=8, seed=3)
    assert rest.n_evals == 8 and np.array_equal(rest.x_iters, whole.x_iters)
    np.testing.assert_array_equal(rest.func_vals, whole.func_vals)


def test_max_time_stops_running_workers_and_leaves_their_trials_to_resume(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "hung"
    db = str(tmp_path / "t.db")
    part = iso.minimize(HangOnce(marker, 0.1), BOX, "random", budget=6, batch_size=2,
                        executor="process", max_time=3, storage=db, study="s")  # fmt: skip
    assert "left pending" in part.stop_reason
    if marker.exists():  # (unless the workers took longer than max_time to start)
        assert gone(int(marker.read_text()))
    with Store(db, readonly=True) as store:
        trials = store.trials(store.get_study("s"))
    assert any(t.status == "pending" for t in trials)
    assert all(t.status in ("ok", "pending") for t in trials)
    rest = iso.minimize(Slow(0.1), BOX, "random", budget=6, batch_size=2,
                        executor="process", storage=db, study="s")  # fmt: skip
    assert rest.n_evals == 6 and all(s == "ok" for s in rest.status)


def test_a_loaded_study_forgets_a_stop_reason_that_later_trials_outdate(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    first = iso.minimize(sphere, BOX, "random", budget=3, seed=0, storage=db, study="s")
    assert iso.load(db, "s").stop_reason == first.stop_reason != ""

    def ctrl_c(result: iso.Result) -> None:  # once a new evaluation is stored
        if result.n_evals > 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        iso.minimize(sphere, BOX, "random", budget=6, seed=0, storage=db, study="s",
                     callback=ctrl_c)  # fmt: skip
    loaded = iso.load(db, "s")
    assert loaded.n_evals == 4 and loaded.stop_reason == ""


def test_a_pool_whose_worker_was_killed_still_shuts_down() -> None:
    """SIGKILL of a worker (a timed-out evaluation, a crash, Ctrl-C's replacement) must
    not leave the pool's stop signal unusable: ``shutdown(kill=True)`` returns and the
    other worker ends. A multiprocessing Event hung here, inside ``set()``."""
    import threading

    from isoline.parallel import ProcessPool

    pool = ProcessPool(2)
    pids = {pool.submit(os.getpid).result() for _ in range(20)}
    killed, *others = sorted(pids)
    os.kill(killed, 9)
    assert gone(killed)
    stopper = threading.Thread(target=pool.shutdown, kwargs={"wait": False, "kill": True},
                               daemon=True)  # fmt: skip
    stopper.start()
    stopper.join(60)  # a guard against a hang, not a time bound
    assert not stopper.is_alive(), "shutdown(kill=True) hung after a worker was killed"
    assert all(gone(pid) for pid in others)
