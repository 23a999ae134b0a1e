"""The entry points :func:`optimize` and :func:`minimize`: arguments, the store, the
executor and clean stops around a run (:mod:`isoline.run_loop`).

A run owns its study through a store lease, replays the stored history into a fresh
:class:`~isoline.optimizer.Optimizer` (:mod:`isoline.resume`), then asks, stores and
evaluates batch after batch, committing each result as it arrives.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from isoline.auto import AUTO
from isoline.methods.registry import option_defaults, resolve_name, take_design
from isoline.objective import UNSET, Objective, Unset
from isoline.optimizer import Optimizer, Result
from isoline.parallel import ProcessPool, check_picklable, make_executor, shutdown_executor
from isoline.progress import get_logger
from isoline.results import STOP_ATTR
from isoline.resume import (
    REPLAY_TOLERANCE,
    Settings,
    fingerprint,
    jsonable,
    stored_choice,
    stored_defaults,
)
from isoline.run_loop import ObjectiveError, Run
from isoline.space import SearchSpace
from isoline.store import Store, StoreError
from isoline.store_records import space_dim
from isoline.validation import MAX_STORED_INT, check_int, check_positive, check_study_name

__all__ = ["REPLAY_TOLERANCE", "ObjectiveError", "minimize", "optimize"]


def optimize(
    f: Callable[[Any], Any],
    space: SearchSpace,
    *,
    direction: Objective | str | Unset = UNSET,
    directions: str | Sequence[str] | Mapping[str, str] | None = None,
    objectives: Sequence[str] | None = None,
    constraints: Sequence[str] | None = None,
    objective: Objective | None = None,
    method: str = AUTO,
    budget: int = 50,
    seed: int = 0,
    batch_size: int = 1,
    executor: Any = None,
    storage: str | os.PathLike[str] | Store | None = None,
    study: str | None = None,
    progress: bool = False,
    callback: Callable[[Result], bool | None] | None = None,
    raise_on_error: bool = False,
    n_init: int | None = None,
    init: str | None = None,
    max_attempts: int = 3,
    max_initial_failures: int | None = 5,
    x0: Any = None,
    y0: Any = None,
    timeout: float | None = None,
    max_time: float | None = None,
    **options: Any,
) -> Result:
    """Minimize or maximize ``f`` over ``space`` with ``budget`` evaluations.

    Args:
        f: objective taking one point ``(d,)`` in user units (a read-only array) and
            returning a real number (int, float, a NumPy real scalar or 0-d array), or
            ``(number, dict)`` whose dict is stored with the evaluation. An exception,
            NaN, inf or a value of another type (str, bool, complex, ...) is recorded as a
            failed evaluation with its reason, and the run goes on.
        space: the search space: a :class:`~isoline.space.Box` (``f`` takes ``(d,)``
            arrays) or a typed :class:`~isoline.params.Space` (``f`` takes configuration
            dicts).
        direction: ``"minimize"`` (default) or ``"maximize"`` (any letter case). Methods
            minimize internally; the study stores each value as ``f`` returned it and
            records the direction, and the :class:`Result` (``fun``, ``best_so_far``) is
            in this direction. A study is resumed only in its own direction.
        directions: one direction per objective, for several objectives, or a mapping
            ``{objective name: direction}`` that names them too
            (:class:`~isoline.objective.Objective`); giving both ``direction`` and
            ``directions`` is a ValueError.
        objectives: names of the objectives: ``f`` returns a mapping they are read from
            (without names, a sequence of ``len(directions)`` numbers). A missing or
            non-numeric output is a failed evaluation. ``Result.values`` holds every
            row of outputs.
        constraints: names of mapping keys holding black-box constraints, feasible when
            ``<= 0`` (``Result.feasible``, ``Result.feasible_found``).
        objective: the whole specification as one :class:`~isoline.objective.Objective`
            (e.g. a benchmark problem's ``objective``), in place of the keywords above.
        method: registered method name; ``**options`` are its options. ``"auto"``
            (default) lets :func:`isoline.auto.choose` pick the method and its options from
            the space, ``budget``, ``batch_size`` and the option ``noisy`` (default
            ``False``); the study stores the chosen method and options, and
            ``Result.choice`` the rule that chose them.
        budget: number of evaluations (failed ones count).
        seed: the same seed gives the same trajectory.
        batch_size: points asked and evaluated together.
        executor: ``None`` (evaluate in this process, in order), ``"process"`` / ``"thread"``
            (a pool of ``batch_size`` workers), ``"dask"`` (a local Dask cluster), a Dask
            scheduler address ``"tcp://host:8786"``, or any object with a
            ``concurrent.futures`` ``submit`` method (see :func:`parallel.make_executor`).
            Worker processes started here end with the run, and with this process if it
            is killed.
        storage: SQLite file path (or a :class:`Store`) where every evaluation is committed
            as it arrives; ``None`` keeps the run in memory.
        study: name of the run in ``storage``. If it exists, the run resumes: its stored
            history is replayed through a fresh optimizer (no code or object is loaded
            from the file), finished evaluations are not repeated and the trajectory is
            the uninterrupted one; the ``isoline`` logger says so ("resuming study S: n
            stored evaluations", at INFO, see :func:`isoline.set_verbosity`). A resume
            with other settings (method, seed, batch size, options, space, direction) is
            refused with :class:`StoreError`; one with an objective of another qualified
            name or code than the study was created with is resumed with a warning (its
            stored values are taken as this objective's: a wrapped or renamed objective
            cannot be told from another). One process runs a study at a time: a second one is
            refused with :class:`StoreError` before it evaluates anything.
        progress: show a progress bar (rich).
        callback: called with the :class:`Result` so far after each batch; returning
            ``True`` stops the run.
        raise_on_error: re-raise the first failing evaluation's error (as RuntimeError)
            after storing it.
        max_attempts: an evaluation that was started this many times in this process
            (``executor=None``) without finishing, because the process died during it (a
            point that crashes the simulator), is recorded as failed on resume instead of
            being run again.
        max_initial_failures: if each of the first this many evaluations of this call
            fails (e.g. an objective with a wrong signature), stop with
            :class:`ObjectiveError` instead of spending the budget; ``None`` never stops.
        x0: points to start from, as the objective takes them (an ``(n, d)`` array for a
            Box, a list of configurations for a Space). Without ``y0`` they are evaluated
            first (they count in ``budget``); each takes the place of the initial-design
            point nearest it.
        y0: the known values at ``x0`` (NaN/None for failed ones): the method starts from
            these evaluations, which count neither in ``budget`` nor in the :class:`Result`,
            and they take the place of the initial-design points nearest them. ``x0`` and
            ``y0`` are stored with the study; a resume must give the same.
        timeout: seconds an evaluation may run; one still running then is recorded as
            failed ("timed out after ...") and the run goes on. A running Python call
            cannot be stopped safely inside this process, so a timeout needs worker
            processes, which are killed and replaced: it is honoured with
            ``executor=None`` (each evaluation then runs in one worker process, in order,
            so ``f`` must be picklable) and ``executor="process"`` or a
            :class:`~isoline.parallel.ProcessPool`; other executors (threads, Dask, your
            own) are refused with ValueError.
        max_time: seconds after which the run stops cleanly: no new evaluation starts,
            every finished one is stored, and ``Result.stop_reason`` says so; running it
            again resumes the study. Evaluations still running then are stopped and left
            to the resume with worker processes (``executor="process"`` or ``timeout``);
            in this process, and with threads or Dask, the running ones finish first.

    ``Result.stop_reason`` says why the call ended: its budget was used, ``max_time``
    passed, or the callback asked to stop.

    If this process receives SIGTERM while the run is in progress (and no other SIGTERM
    handler is installed), the run stops as after Ctrl-C: worker processes are stopped,
    the store is closed, and the signal then ends the process as usual.
    """
    objective = Objective.from_args(direction, directions, objectives, constraints, objective)
    if not callable(f):
        raise TypeError(f"f must be callable, got {type(f).__name__}")
    if not isinstance(space, SearchSpace):
        raise TypeError(f"space must be an isoline.Box or Space, got {type(space).__name__}")
    budget = check_int(budget, "budget", 1, MAX_STORED_INT)
    max_attempts = check_int(max_attempts, "max_attempts", 1)
    if max_initial_failures is not None:
        max_initial_failures = check_int(max_initial_failures, "max_initial_failures", 1)
    if study is not None:
        study = check_study_name(study)
    if callback is not None and not callable(callback):
        raise TypeError("callback must be callable")
    timeout = None if timeout is None else check_positive(timeout, "timeout")
    max_time = None if max_time is None else check_positive(max_time, "max_time")
    if storage is not None and not isinstance(storage, (str, os.PathLike, Store)):
        raise TypeError(
            f"storage must be a file path, a Store or None, got {type(storage).__name__}"
        )
    method = resolve_name(method)
    if method == AUTO and "workers" in options:
        raise TypeError(
            "workers= tells auto about asynchronous workers (Optimizer, IsolineSampler); "
            "optimize evaluates in synchronous batches: set batch_size and executor"
        )
    stored = _stored_choice(storage, study) if method == AUTO else None
    if stored is not None:  # a resume keeps what auto chose when the study was created
        method, options = stored
        n_init, init = take_design(options, n_init, init)
    try:
        opt = Optimizer(space, method, seed, batch_size, n_init=n_init, init=init,
                        direction=objective, budget=budget, **options)  # fmt: skip
    except (TypeError, ValueError) as err:
        if stored is None:
            raise
        raise StoreError(f"study {study!r}: its stored auto choice is refused: {err}") from None
    method = opt.method_name
    stored_options = dict(opt.options, **opt.design)
    if x0 is not None:
        stored_options["x0"] = space.record(x0)
        if y0 is None:
            opt.enqueue(x0)
        else:
            n = len(space.points(x0))
            if np.ndim(y0) == 0 or len(y0) != n:
                count = "one value" if np.ndim(y0) == 0 else f"{len(y0)} values"
                raise ValueError(f"y0 has {count} but x0 has {n} points; give one per point")
            opt.tell(x0, y0)
            stored_options["y0"] = np.asarray(y0, dtype=object)
    elif y0 is not None:
        raise ValueError("y0 needs the points x0 it was measured at")
    settings = Settings(method, seed, batch_size, budget, jsonable(stored_options), objective,
                        fingerprint(f))  # fmt: skip
    with _sigterm_ends_run():
        own_store = not isinstance(storage, Store)
        store = (
            storage
            if isinstance(storage, Store)
            else Store(":memory:" if storage is None else storage)
        )
        try:
            deadline = None if max_time is None else time.time() + max_time
            pool, owned = _executor(executor, opt.batch_size, timeout, f)  # before the study
            try:
                run = Run.open(store, study, opt, settings, max_attempts)
            except BaseException:
                if owned:
                    shutdown_executor(pool, kill=True)
                raise
            try:
                try:
                    reason = run.go(f, pool, progress, callback, raise_on_error,
                                    max_initial_failures, timeout, deadline)  # fmt: skip
                except BaseException as err:
                    if owned:
                        shutdown_executor(pool, kill=True)
                    if isinstance(err, Exception):  # not Ctrl-C or SIGTERM: a crash
                        # a store that fails here must not hide the error that stopped the run
                        with contextlib.suppress(Exception):
                            store.record_crash(run.rec, f"{type(err).__name__}: {err}", time.time())
                    raise
                if owned:
                    shutdown_executor(pool, kill=False)
                trials = store.trials(run.rec)
                stop = {"reason": reason, "trials": len(trials)}
                store.update_attr(run.rec, STOP_ATTR, lambda _: stop)
            finally:
                run.lease.release()
            res = Result.from_trials(run.rec, trials, store.path, space)
            res.stop_reason = reason
            if objective.n_constraints and not res.feasible_found:
                get_logger().warning(
                    "study %r: no evaluation satisfied every constraint (%s <= 0); "
                    "Result.x is None and Result.fun NaN",
                    res.study,
                    ", ".join(objective.constraints),
                )
            return res
        finally:
            if own_store:
                store.close()


def _executor(executor: Any, workers: int, timeout: float | None, f: Any) -> tuple[Any, bool]:
    """:func:`make_executor`, with worker processes that can be stopped for a timeout; an
    objective that worker processes cannot take is refused before any evaluation."""
    why = ""
    if timeout is not None and executor is None:  # in order, as here, but it can be stopped
        pool, owned = ProcessPool(1), True
        why = "with timeout= each evaluation runs in a worker process: "
    elif timeout is not None and not (executor == "process" or isinstance(executor, ProcessPool)):
        raise ValueError(
            "timeout= needs evaluations it can stop, in worker processes: use executor=None "
            "(each evaluation then runs in a worker process) or executor='process'; "
            f"{executor!r} cannot stop a running evaluation"
        )
    else:
        pool, owned = make_executor(executor, workers)
    if isinstance(pool, (ProcessPool, cf.ProcessPoolExecutor)):
        try:
            check_picklable(f, why)
        except TypeError:
            if owned:
                shutdown_executor(pool, kill=True)
            raise
    return pool, owned


def minimize(
    f: Callable[[Any], Any],
    space: SearchSpace,
    method: str = AUTO,
    budget: int = 50,
    seed: int = 0,
    batch_size: int = 1,
    executor: Any = None,
    storage: str | os.PathLike[str] | Store | None = None,
    study: str | None = None,
    progress: bool = False,
    **kwargs: Any,
) -> Result:
    """Minimize ``f`` over ``space``: :func:`optimize` with ``direction="minimize"``
    (the arguments, ``**kwargs`` included, are :func:`optimize`'s)."""
    spec = Objective.from_args(
        kwargs.pop("direction", UNSET), kwargs.pop("directions", None),
        kwargs.pop("objectives", None), kwargs.pop("constraints", None),
        kwargs.pop("objective", None),
    )  # fmt: skip
    if spec.n_objectives > 1 or spec.maximize:
        raise ValueError(
            "minimize() minimizes one objective; call isoline.optimize(f, space, direction=...) "
            "or optimize(f, space, directions=[...]) for several"
        )
    return optimize(f, space, method=method, budget=budget, seed=seed, batch_size=batch_size,
                    executor=executor, storage=storage, study=study, progress=progress,
                    objective=spec, **kwargs)  # fmt: skip


def _stored_choice(
    storage: str | os.PathLike[str] | Store | None, study: str | None
) -> tuple[str, dict[str, Any]] | None:
    """The method and options ``auto`` chose for an existing ``study``, if it has one."""
    if storage is None or study is None:
        return None
    if isinstance(storage, Store):
        rec = storage.get_study(study)
    else:
        if not os.path.isfile(storage):
            return None
        # opened as the run opens it: a creation cut short by a crash (an empty file, a hot
        # journal) is completed here, where a read-only open would refuse the file
        with Store(storage, create=False) as store:
            rec = store.get_study(study)
    if rec is None or "auto" not in rec.attrs:
        return None
    common = ("n_init", "init", "x0", "y0")
    # the design's settings return as they ran; x0 and y0 are the call's own
    options = {k: v for k, v in rec.options.items() if k not in ("x0", "y0")}
    # and the chosen method's defaults then, where they have changed since
    now = jsonable(option_defaults(rec.method))
    moved = {k: v for k, v in stored_defaults(rec).items() if k in now and now[k] != v}
    options = {**{k: v for k, v in moved.items() if k not in common}, **options}
    dim = space_dim(rec.space)
    return stored_choice(rec.name, rec.method, options, rec.attrs["auto"], rec.budget, dim)


class _Terminated(BaseException):
    """Raised in the main thread by SIGTERM while :func:`minimize` runs."""


@contextlib.contextmanager
def _sigterm_ends_run() -> Iterator[None]:
    """Turn SIGTERM into an exception for the enclosed run (so that its pools and store
    are cleaned up), then end the process with SIGTERM's default action.

    Only where SIGTERM has its default action and in the main thread: a handler the
    program installed itself (the CLI's, a framework's) is left alone.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise _Terminated()

    signal.signal(signal.SIGTERM, handler)
    terminated = False
    try:
        yield
    except _Terminated:
        terminated = True
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if terminated:
        os.kill(os.getpid(), signal.SIGTERM)
