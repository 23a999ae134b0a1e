"""Evaluating objectives safely, one point or a batch through an executor.

Any object with the ``concurrent.futures`` ``submit`` protocol works as an executor: a
``ProcessPoolExecutor``, a ``ThreadPoolExecutor`` or a Dask ``Client(...).get_executor()``.
:func:`make_executor` also builds them from names (``"process"``, ``"thread"``, ``"dask"``)
or a Dask scheduler address. A batch is submitted at once and each outcome is handed back
as soon as it arrives; a worker that dies costs only the evaluation it was running, which
is recorded as failed (a :class:`ProcessPool` evaluates again the others its death broke).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing as mp
import os
import pickle
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np

from isoline.outcomes import Outcome, as_real, evaluate
from isoline.processes import is_alive, start_time

__all__ = [
    "DaskExecutor",
    "Outcome",
    "ProcessPool",
    "as_real",
    "check_picklable",
    "dask_client",
    "evaluate",
    "evaluate_batch",
    "make_executor",
    "shutdown_executor",
]


#: a row of a batch lost with its process pool: the row, the error, when it was submitted
Lost = tuple[int, Exception, float]


def evaluate_batch(
    f: Callable[..., Any],
    X: np.ndarray | Sequence[Any],
    executor: Any = None,
    numbers: Sequence[int] | None = None,
    on_start: Callable[[list[int]], None] | None = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Iterator[tuple[int, Outcome]]:
    """Yield ``(row, outcome)`` for each row of ``X`` ``(q, d)`` as soon as it finishes.

    ``numbers`` ``(q,)``: the rows' trial numbers, passed on to :func:`evaluate`.
    ``on_start([row])`` is called just before a row's evaluation starts in this process
    (without an executor): if this process then dies, the evaluation may be what killed
    it. With an executor it is not called: a worker that dies fails only its evaluation.

    With ``executor=None`` the rows are evaluated in order in this process. Otherwise
    they are submitted together; a future that fails (e.g. its worker died: Dask's
    ``KilledWorker``, a process pool's ``BrokenProcessPool``) yields a ``failed`` outcome
    carrying the error, and the others are unaffected. A worker of a
    ``ProcessPoolExecutor`` that dies breaks the pool under every evaluation in flight;
    a :class:`ProcessPool` replaces itself and, when more than one was lost, evaluates
    each again alone, so that only the evaluation that kills its worker fails (the others
    cost a second start, and one that killed its worker by chance may succeed). Outcomes
    are yielded as they arrive, so the caller can store each one before the slower ones
    finish.

    ``timeout`` (seconds, needs a :class:`ProcessPool`): an evaluation still running that
    long after it started in its worker yields a ``failed`` outcome ("timed out after
    ..."); once the batch's other evaluations are done, the pool's workers are killed and
    replaced, so the hung one is not left behind. ``deadline`` (a ``time.time()``): past
    it no new evaluation starts without an executor, and with a :class:`ProcessPool` the
    evaluations still running are abandoned (nothing is yielded for them; the workers are
    killed); other executors finish the batch.

    Raises:
        TypeError: ``executor`` runs in other processes of this machine (a
            ``ProcessPoolExecutor``) and ``f`` cannot be pickled.
        ValueError: ``timeout`` without a :class:`ProcessPool`.
    """
    if timeout is not None and not isinstance(executor, ProcessPool):
        raise ValueError(
            "an evaluation timeout needs a ProcessPool, whose workers can be stopped; got "
            f"{type(executor).__name__}"
        )
    if executor is None:
        for i, x in enumerate(X):
            if deadline is not None and time.time() >= deadline:
                return
            if on_start is not None:
                on_start([i])
            yield i, evaluate(f, x, _number(numbers, i))
        return
    if isinstance(executor, (cf.ProcessPoolExecutor, ProcessPool)):
        check_picklable(f)
    # rows lost together when one worker died (row, error, start): a ProcessPool runs them again
    lost: list[Lost] | None = [] if isinstance(executor, ProcessPool) and len(X) > 1 else None
    if isinstance(executor, ProcessPool) and (timeout is not None or deadline is not None):
        yield from _evaluate_watched(f, X, executor, numbers, timeout, deadline, lost)
    else:
        yield from _evaluate_submitted(f, X, executor, numbers, lost)
    if lost is not None and len(lost) == 1:  # it alone was running: it killed its worker
        yield lost[0][0], _lost_outcome(*lost[0][1:])
        return
    for i, _, _ in lost or []:  # each alone, so that only the one that kills its worker fails
        again = None if numbers is None else [numbers[i]]
        for _, outcome in evaluate_batch(f, X[i : i + 1], executor, again, None, timeout, deadline):
            yield i, outcome


def _evaluate_submitted(
    f: Callable[..., Any],
    X: np.ndarray | Sequence[Any],
    executor: Any,
    numbers: Sequence[int] | None,
    lost: list[Lost] | None,
) -> Iterator[tuple[int, Outcome]]:
    """:func:`evaluate_batch` through an executor, with no timeout or deadline."""
    submitted = time.time()
    futures = {executor.submit(evaluate, f, x, _number(numbers, i)): i for i, x in enumerate(X)}
    for fut in cf.as_completed(futures):
        i = futures[fut]
        try:
            yield i, fut.result()
        except Exception as e:  # noqa: BLE001 - a lost worker is a failed evaluation
            if not _keep_lost(e, lost, i, submitted):
                yield i, _lost_outcome(e, submitted)


def _keep_lost(error: Exception, lost: list[Lost] | None, i: int, started: float) -> bool:
    """Whether row ``i``, failed with ``error``, joins ``lost`` (a process pool broken by a
    worker that died takes every evaluation in flight)."""
    if lost is None or not isinstance(error, BrokenProcessPool):
        return False
    lost.append((i, error, started))
    return True


def _lost_outcome(error: Exception, started: float) -> Outcome:
    msg = f"evaluation lost: {type(error).__name__}: {error}"
    return Outcome(None, "failed", msg, None, started, time.time())


#: seconds between two looks at the evaluations a timeout or deadline watches
WATCH_POLL = 0.02


def _evaluate_watched(
    f: Callable[..., Any],
    X: np.ndarray | Sequence[Any],
    pool: ProcessPool,
    numbers: Sequence[int] | None,
    timeout: float | None,
    deadline: float | None,
    lost: list[Lost] | None = None,
) -> Iterator[tuple[int, Outcome]]:
    """:func:`evaluate_batch` on a :class:`ProcessPool` with a timeout or deadline."""
    keys = [uuid.uuid4().hex for _ in range(len(X))]
    futures = {
        pool.submit(_timed_evaluate, keys[i], f, x, _number(numbers, i)): i for i, x in enumerate(X)
    }
    pending = set(futures)
    stuck = False
    try:
        while pending:
            done, _ = cf.wait(pending, timeout=WATCH_POLL, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                pending.discard(fut)
                i = futures[fut]
                try:
                    yield i, fut.result()
                except Exception as e:  # noqa: BLE001 - a lost worker is a failed evaluation
                    if not _keep_lost(e, lost, i, time.time()):
                        yield i, _lost_outcome(e, time.time())
            now = time.time()
            starts = pool.started()
            for fut in list(pending):
                started = starts.get(keys[futures[fut]])
                if timeout is not None and started is not None and now - started >= timeout:
                    pending.discard(fut)
                    stuck = True
                    msg = f"timed out after {timeout:g} s (the worker running it was stopped)"
                    yield futures[fut], Outcome(None, "failed", msg, None, started, now)
            if pending and deadline is not None and now >= deadline:
                stuck = True  # abandoned: their trials stay pending for a resume
                return
    finally:
        if stuck or pending:
            pool.replace_workers()
        else:
            starts = pool.started()
            for key in keys:
                starts.pop(key, None)


def _timed_evaluate(key: str, f: Callable[..., Any], x: Any, number: int | None) -> Outcome:
    """In a :class:`ProcessPool` worker: tell the pool that evaluation ``key`` starts, then
    :func:`evaluate` it."""
    if _STARTED is not None:
        _STARTED.put((key, time.time()))
    return evaluate(f, x, number)


def _number(numbers: Sequence[int] | None, i: int) -> int | None:
    return None if numbers is None else int(numbers[i])


def check_picklable(f: Callable[..., Any], why: str = "") -> None:
    """TypeError (prefixed by ``why``) if ``f`` cannot be sent to a worker process."""
    try:
        pickle.dumps(f)
    except Exception as e:  # noqa: BLE001 - pickle raises several types
        raise TypeError(
            f"{why}f must be picklable to run in worker processes (define it at module "
            f"level, not as a lambda or nested function), or use executor='thread' or Dask: {e}"
        ) from None


class ProcessPool(cf.Executor):
    """A process pool that replaces itself when a worker dies and never outlives its owner.

    A worker that dies breaks a ``ProcessPoolExecutor``: the evaluations in flight fail
    with ``BrokenProcessPool`` (recorded as failed by :func:`evaluate_batch`) and every
    later ``submit`` raises. This pool starts a fresh ``ProcessPoolExecutor`` on the next
    ``submit`` instead, so the run goes on.

    Every worker watches the process that created the pool and a stop event: when that
    process dies (even by SIGKILL) or :meth:`shutdown` is called with ``kill=True``, the
    workers exit within :data:`WATCH_INTERVAL` seconds instead of finishing evaluations
    nobody will read.

    Workers come from a ``forkserver`` (``spawn`` where there is none) that has imported
    isoline once: unlike ``fork`` they do not inherit the parent's torch/OpenMP threads
    (a forked child using OpenMP can hang), and unlike ``spawn`` each worker does not
    re-import torch (seconds per worker). As with ``spawn``, ``f`` must be picklable and a
    script's entry point must sit under ``if __name__ == "__main__":``.

    Args:
        workers: number of worker processes.
        initializer: called with no argument in each worker when it starts.
        start_method: ``"forkserver"`` (default where available) or ``"spawn"``.
    """

    def __init__(
        self,
        workers: int,
        initializer: Callable[[], None] | None = None,
        start_method: str | None = None,
    ) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
        self.workers = workers
        self.restarts = 0
        self._initializer = initializer
        self._ctx = _worker_context(start_method)
        # a flag the workers poll: setting it never blocks, where an Event's set() waits
        # for ever on a worker that was killed inside wait()
        self._stop = self._ctx.RawValue("b", 0)
        self._starts_queue = self._ctx.Queue()
        self._starts: dict[str, float] = {}
        self._owner = (os.getpid(), start_time(os.getpid()))
        self._pool = self._new()

    def _new(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(
            self.workers,
            mp_context=self._ctx,
            initializer=_start_worker,
            initargs=(self._owner, self._stop, self._initializer, self._starts_queue),
        )

    def started(self) -> dict[str, float]:
        """``{key: time.time()}`` of the evaluations submitted through
        :func:`evaluate_batch` with a timeout or deadline that have started in a worker."""
        while True:
            try:
                key, when = self._starts_queue.get_nowait()
            except queue.Empty:
                return self._starts
            self._starts[key] = when

    def replace_workers(self) -> None:
        """Kill every worker (SIGKILL: a hung evaluation may not listen to anything else),
        wait for them to end, and start a fresh pool for the next ``submit``."""
        old = self._pool
        for proc in list(getattr(old, "_processes", {}).values()):
            with contextlib.suppress(OSError, ValueError):
                proc.kill()
        old.shutdown(wait=True, cancel_futures=True)
        self._starts.clear()
        self._pool = self._new()
        self.restarts += 1

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        try:
            return self._pool.submit(fn, *args, **kwargs)
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new()
            self.restarts += 1
            return self._pool.submit(fn, *args, **kwargs)

    def shutdown(
        self, wait: bool = True, *, cancel_futures: bool = False, kill: bool = False
    ) -> None:
        """Stop the pool; with ``kill`` the workers exit at once, abandoning their work."""
        if kill:
            self._stop.value = 1
            cancel_futures = True
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


#: seconds between two checks of a worker's watchdog
WATCH_INTERVAL = 0.2


#: in a :class:`ProcessPool` worker: the queue its evaluations' start times go to
_STARTED: Any = None


def _start_worker(
    owner: tuple[int, str | None],
    stop: Any,
    initializer: Callable[[], None] | None,
    starts: Any = None,
) -> None:
    global _STARTED
    _STARTED = starts
    threading.Thread(
        target=_watch, args=(owner, stop), name="isoline-watchdog", daemon=True
    ).start()
    if initializer is not None:
        initializer()


def _watch(owner: tuple[int, str | None], stop: Any) -> None:
    pid, start = owner
    while not stop.value and is_alive(pid, start):
        time.sleep(WATCH_INTERVAL)
    os._exit(0)


def _worker_context(start_method: str | None = None) -> mp.context.BaseContext:
    if start_method is None:
        start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    ctx = mp.get_context(start_method)
    if start_method == "forkserver":
        ctx.set_forkserver_preload(["isoline.parallel"])
    return ctx


def shutdown_executor(executor: Any, kill: bool) -> None:
    """Shut down an executor :func:`make_executor` created; ``kill`` abandons running work.

    Process pools are stopped at once with ``kill``; thread pools cannot stop a running
    call and are left to finish it in the background.
    """
    if executor is None:
        return
    if isinstance(executor, ProcessPool):
        executor.shutdown(wait=not kill, kill=kill)
    else:
        executor.shutdown(wait=not kill, cancel_futures=kill)


class DaskExecutor(cf.Executor):
    """``concurrent.futures`` view of a Dask client that owns the client (and cluster).

    ``shutdown`` cancels what is left when asked, then closes the client and, for a
    :func:`make_executor` ``"dask"`` local cluster, the cluster.
    """

    def __init__(self, client: Any, cluster: Any = None) -> None:
        self.client = client
        self.cluster = cluster
        self._executor = client.get_executor()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._executor.shutdown(wait=wait and not cancel_futures)
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


_NO_DASK = 'a Dask executor needs the "distributed" extra: pip install "isoline[distributed]"'
#: seconds :func:`dask_client` waits for a scheduler before raising ConnectionError
DASK_CONNECT_TIMEOUT = 10.0
#: URL schemes of Dask scheduler addresses accepted as ``executor`` strings
DASK_SCHEMES = ("tcp://", "tls://", "ws://", "wss://", "inproc://", "ucx://")


def make_executor(executor: Any, workers: int) -> tuple[Any, bool]:
    """Resolve ``executor`` into an object with ``submit`` (or ``None``).

    Accepted values:

    * ``None``: evaluate in this process, one point after the other;
    * ``"process"``: a :class:`ProcessPool` of ``workers`` processes;
    * ``"thread"``: a ``ThreadPoolExecutor`` of ``workers`` threads;
    * ``"dask"``: a Dask ``LocalCluster`` of ``workers`` single-threaded processes;
    * a Dask scheduler address such as ``"tcp://10.0.0.5:8786"``: that cluster;
    * any object with a ``concurrent.futures`` ``submit`` method, e.g.
      ``dask.distributed.Client(address).get_executor()`` (never shut down here).

    Returns ``(executor, owned)``; ``owned`` executors are shut down by the caller.

    Raises:
        ValueError: an unknown string. TypeError: an object without ``submit``.
        ConnectionError: the Dask scheduler address cannot be reached.
    """
    if executor is None:
        return None, False
    if isinstance(executor, str):
        if executor == "process":
            return ProcessPool(workers), True
        if executor == "thread":
            return cf.ThreadPoolExecutor(max_workers=workers), True
        if executor == "dask":
            return _local_dask(workers), True
        if executor.startswith(DASK_SCHEMES):
            return DaskExecutor(dask_client(executor)), True
        raise ValueError(
            "executor must be None, 'process', 'thread', 'dask', a Dask scheduler address "
            f"('tcp://host:8786') or an object with submit(); got {executor!r}"
        )
    if not callable(getattr(executor, "submit", None)):
        raise TypeError(
            f"executor must follow the concurrent.futures protocol (have a submit method); "
            f"got {type(executor).__name__}"
        )
    return executor, False


def _local_dask(workers: int) -> DaskExecutor:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as e:
        raise ImportError(_NO_DASK) from e

    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
    )
    return DaskExecutor(Client(cluster), cluster)


def dask_client(address: str, timeout: float | None = None) -> Any:
    """Connect to the Dask scheduler at ``address``, with a clear error if it is unreachable.

    ``timeout`` in seconds defaults to :data:`DASK_CONNECT_TIMEOUT`.
    """
    timeout = DASK_CONNECT_TIMEOUT if timeout is None else timeout
    try:
        from dask.distributed import Client
    except ImportError as e:
        raise ImportError(_NO_DASK) from e
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError) as e:
        raise ConnectionError(f"cannot reach the Dask scheduler at {address!r}: {e}") from None
