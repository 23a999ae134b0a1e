"""The optimization loop: :func:`minimize` with storage, resume, parallel evaluation and
clean stops.

A run owns its study through a store lease, replays the stored history into a fresh
:class:`~isoline.optimizer.Optimizer` (no method state is ever read from a file), then asks,
stores and evaluates batch after batch, committing each result as it arrives.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from isoline.auto import AUTO
from isoline.methods.registry import get_method, option_defaults, resolve_name
from isoline.optimizer import Optimizer, Result
from isoline.parallel import (
    ProcessPool,
    check_picklable,
    evaluate_batch,
    make_executor,
    shutdown_executor,
)
from isoline.params import Space
from isoline.space import Box
from isoline.store import RESUME_FORMATS, Store, StoreError, StudyRecord, Trial
from isoline.validation import MAX_STORED_INT, check_int, check_positive, check_study_name

__all__ = ["REPLAY_TOLERANCE", "ObjectiveError", "minimize"]

#: largest difference, as a fraction of the box's width, between a point re-asked on resume
#: and the stored one: a model-based proposal can differ in its last bits between two
#: processes (seen once in ~10 runs of the resume test, 4e-13 in the unit cube)
REPLAY_TOLERANCE = 1e-9


class ObjectiveError(RuntimeError):
    """The objective failed in a way that makes going on pointless (see :func:`minimize`)."""


def minimize(
    f: Callable[[Any], Any],
    space: Box | Space,
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
    """Minimize ``f`` over ``space`` with ``budget`` evaluations.

    Args:
        f: objective taking one point ``(d,)`` in user units (a read-only array) and
            returning a real number (int, float, a NumPy real scalar or 0-d array), or
            ``(number, dict)`` whose dict is stored with the evaluation. An exception,
            NaN, inf or a value of another type (str, bool, complex, ...) is recorded as a
            failed evaluation with its reason, and the run goes on.
        space: the search :class:`Box`.
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
            the uninterrupted one. One process runs a study at a time: a second one is
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
    if not callable(f):
        raise TypeError(f"f must be callable, got {type(f).__name__}")
    if not isinstance(space, (Box, Space)):
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
    stored = _stored_choice(storage, study) if method == AUTO else None
    if stored is not None:  # a resume keeps what auto chose when the study was created
        method, options = stored
    elif method == AUTO or getattr(get_method(method), "takes_budget", False):
        options.setdefault("budget", budget)  # auto and the peers that plan by the budget
    opt = Optimizer(space, method, seed, batch_size, n_init=n_init, init=init, **options)
    method = opt.method_name
    stored_options = dict(opt.options, n_init=n_init, init=init)
    if x0 is not None:
        stored_options["x0"] = x0 if isinstance(space, Space) else np.asarray(x0, dtype=float)
        if y0 is None:
            opt.enqueue(x0)
        else:
            opt.tell(x0, y0)
            stored_options["y0"] = np.asarray(y0, dtype=object)
    elif y0 is not None:
        raise ValueError("y0 needs the points x0 it was measured at")
    settings = _Settings(method, seed, batch_size, budget, _jsonable(stored_options))
    with _sigterm_ends_run():
        own_store = not isinstance(storage, Store)
        store = (
            storage
            if isinstance(storage, Store)
            else Store(":memory:" if storage is None else storage)
        )
        try:
            deadline = None if max_time is None else time.time() + max_time
            run = _Run.open(store, study, opt, settings, max_attempts)
            try:
                pool, owned = _executor(executor, opt.batch_size, timeout, f)
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
            finally:
                run.lease.release()
            res = Result.from_trials(run.rec, store.trials(run.rec), store.path, space)
            res.stop_reason = reason
            return res
        finally:
            if own_store:
                store.close()


def _executor(executor: Any, workers: int, timeout: float | None, f: Any) -> tuple[Any, bool]:
    """:func:`make_executor`, with worker processes that can be stopped for a timeout."""
    if timeout is None:
        return make_executor(executor, workers)
    if executor is None:
        executor = ProcessPool(1)  # in order, as in this process, but it can be stopped
        try:
            check_picklable(f, "with timeout= each evaluation runs in a worker process: ")
        except TypeError:
            executor.shutdown(kill=True)
            raise
        return executor, True
    if executor == "process" or isinstance(executor, ProcessPool):
        return make_executor(executor, workers)
    raise ValueError(
        "timeout= needs evaluations it can stop, in worker processes: use executor=None "
        "(each evaluation then runs in a worker process) or executor='process'; "
        f"{executor!r} cannot stop a running evaluation"
    )


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
        with Store(storage, create=False, readonly=True) as store:
            rec = store.get_study(study)
    if rec is None or "auto" not in rec.attrs:
        return None
    common = ("n_init", "init", "x0", "y0")
    options = {k: v for k, v in rec.options.items() if k not in common}
    # and the chosen method's defaults then, where they have changed since
    now = _jsonable(option_defaults(rec.method))
    moved = {k: v for k, v in _stored_defaults(rec).items() if k in now and now[k] != v}
    return rec.method, {**{k: v for k, v in moved.items() if k not in common}, **options}


@dataclass(frozen=True)
class _Settings:
    """What a study is created with and must match on resume."""

    method: str
    seed: int
    batch_size: int
    budget: int
    options: dict[str, Any]


@dataclass
class _Run:
    """One call's view of a study: its record, lease, optimizer and the batch in flight."""

    store: Store
    rec: StudyRecord
    lease: Any
    opt: Optimizer
    batch: int
    todo: list[Trial]
    done: list[Trial]
    budget: int

    @classmethod
    def open(
        cls, store: Store, study: str | None, opt: Optimizer, s: _Settings, max_attempts: int
    ) -> _Run:
        """Create or reopen a study, take its lease and replay its history into ``opt``."""
        name = study if study is not None else f"{s.method}-seed{s.seed}-{uuid.uuid4().hex[:8]}"
        rec = store.get_study(name)
        reopened = rec is not None
        if rec is None:
            attrs: dict[str, Any] = {
                "isoline": _version(),
                "versions": package_versions(),
                "defaults": _jsonable(option_defaults(s.method)),
            }
            if opt.choice is not None:
                attrs["auto"] = opt.choice.to_dict()
            rec = store.create_study(name, s.method, s.seed, s.batch_size, s.options,
                                     opt.space.to_dict(), s.budget, attrs)  # fmt: skip
        else:
            _check_same_settings(rec, s, opt.space)
        lease = store.acquire(rec)
        try:
            if rec.budget is None or s.budget > rec.budget:
                store.set_budget(rec, s.budget)
            trials = _abandon_crashed(store, rec, store.trials(rec), max_attempts)
            batch, todo, done = _replay(opt, rec, trials)
            if reopened:
                store.record_resume(rec, time.time())
        except BaseException:
            lease.release()
            raise
        return cls(store, rec, lease, opt, batch, todo, done, s.budget)

    def go(
        self,
        f: Callable[[np.ndarray], Any],
        pool: Any,
        progress: bool,
        callback: Callable[[Result], bool | None] | None,
        raise_on_error: bool,
        max_initial_failures: int | None,
        timeout: float | None = None,
        deadline: float | None = None,
    ) -> str:
        """Evaluate to the end of the budget; returns why the call ended."""
        n_total = len(self.store.trials(self.rec))
        bar = _Progress(progress, self.budget, n_total - len(self.todo), self.rec.name)
        failures = _FailureWatch(max_initial_failures)
        watch = _Watch(pool, bar, raise_on_error, failures, timeout, deadline)
        try:
            if self.todo or self.done:
                in_flight = sorted(self.todo + self.done, key=lambda t: t.number)
                ys = {t.number: (np.nan if t.y is None else t.y) for t in self.done}
                todo = [t.number for t in self.todo]
                ys.update(self._evaluate(f, self._points(self.todo), todo, watch))
                if any(n not in ys for n in todo):
                    return watch.timed_out(self.store, self.rec, self.budget)
                X = self._points(in_flight)
                self.opt.tell(X, [ys[t.number] for t in in_flight])
                if _stop(callback, self.store, self.rec, self.opt.space):
                    return CALLBACK_STOP
            while n_total < self.budget:
                if deadline is not None and time.time() >= deadline:
                    return watch.timed_out(self.store, self.rec, self.budget)
                q = min(self.opt.batch_size, self.budget - n_total)
                X, U = self.opt.ask_with_unit(q)
                self.batch += 1
                numbers = self.store.add_batch(self.rec, self.batch, X, U)
                n_total += q
                ys = self._evaluate(f, list(X), numbers, watch)
                if any(n not in ys for n in numbers):
                    return watch.timed_out(self.store, self.rec, self.budget)
                self.opt.tell(X, [ys[n] for n in numbers])
                if _stop(callback, self.store, self.rec, self.opt.space):
                    return CALLBACK_STOP
            self.store.mark_finished(self.rec)
            return f"the budget of {self.budget} evaluations is used"
        finally:
            bar.close()

    def _points(self, trials: list[Trial]) -> Any:
        """The stored trials' points as the objective takes them: arrays for a Box; for a
        typed Space, the configurations decoded from the stored unit-cube points (so every
        choice is its own object again, whatever its JSON form in the store)."""
        if isinstance(self.opt.space, Space):
            if not trials:
                return []
            return self.opt.space.from_unit(np.array([t.u for t in trials], dtype=float))
        return np.array([t.x for t in trials])

    def _evaluate(
        self, f: Callable[[np.ndarray], Any], X: list[Any], numbers: list[int], watch: _Watch
    ) -> dict[int, float]:
        """Evaluate and store ``X``; ``{number: y}`` of the evaluations that finished (all
        of them unless ``max_time`` stopped the ones still running)."""
        pool, bar, failures = watch.pool, watch.bar, watch.failures
        ys: dict[int, float] = {}
        if not numbers:
            return ys
        first_error: str | None = None

        def started(rows: list[int]) -> None:
            self.store.mark_started(self.rec, [numbers[i] for i in rows])

        rows = (
            X if isinstance(self.opt.space, Space) else np.array(X, dtype=float).reshape(len(X), -1)
        )
        on_start = started if pool is None else None
        for i, out in evaluate_batch(f, rows, pool, numbers, on_start=on_start,
                                     timeout=watch.timeout, deadline=watch.deadline):  # fmt: skip
            self.store.record_result(self.rec, numbers[i], out.y, out.status, out.error,
                                     out.info, out.started, out.finished)  # fmt: skip
            ys[numbers[i]] = np.nan if out.y is None else out.y
            bar.advance(out.y)
            failures.add(out.status, out.error)
            if out.status == "failed" and first_error is None:
                first_error = out.error
        if watch.raise_on_error and first_error is not None:
            raise RuntimeError(f"objective failed (raise_on_error=True): {first_error}")
        failures.check()
        return ys


#: :attr:`Result.stop_reason` of a run its callback stopped
CALLBACK_STOP = "the callback asked to stop"


@dataclass
class _Watch:
    """How one call evaluates: its executor, progress bar, failure rules and time limits."""

    pool: Any
    bar: _Progress
    raise_on_error: bool
    failures: _FailureWatch
    timeout: float | None
    deadline: float | None

    def timed_out(self, store: Store, rec: StudyRecord, budget: int) -> str:
        """The stop reason of a run that reached its ``max_time``."""
        trials = store.trials(rec)
        done = sum(t.status != "pending" for t in trials)
        pending = len(trials) - done
        left = f"; {pending} started evaluations are left pending" if pending else ""
        return (
            f"max_time reached after {done} of {budget} evaluations{left}; run again with "
            "the same study to resume"
        )


class _FailureWatch:
    """Stops a call whose first ``limit`` evaluations all failed."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.count = 0
        self.any_ok = False
        self.first: str | None = None

    def add(self, status: str, error: str | None) -> None:
        if status == "ok":
            self.any_ok = True
        elif not self.any_ok:
            self.count += 1
            self.first = self.first or error

    def check(self) -> None:
        if self.limit is not None and not self.any_ok and self.count >= self.limit:
            raise ObjectiveError(
                f"the first {self.count} evaluations all failed, so the run stops instead of "
                f"spending its budget (max_initial_failures={self.limit}); the first error: "
                f"{self.first}. Every evaluation is stored; fix the objective and run again"
            )


#: Method defaults changed since studies began recording theirs (``attrs["defaults"]``):
#: a study stored without that record was created with these values.
DEFAULTS_BEFORE_RECORD: dict[str, dict[str, Any]] = {
    "gp-ei": {"kernel": "rbf", "priors": "botorch"},
}


#: Options added to a method after studies began: a study created before has no record
#: of the option and ran as with this value.
OPTIONS_ADDED: dict[str, dict[str, Any]] = {
    "cobyqa": {"start_spread": 0.0},
}


def _stored_defaults(rec: StudyRecord) -> dict[str, Any]:
    """The method's option defaults when ``rec`` was created."""
    added = OPTIONS_ADDED.get(rec.method, {})
    if "defaults" in rec.attrs:
        return {**added, **rec.attrs["defaults"]}
    now = _jsonable(option_defaults(rec.method))
    return {**now, **added, **DEFAULTS_BEFORE_RECORD.get(rec.method, {})}


def _check_same_settings(rec: StudyRecord, s: _Settings, space: Box | Space) -> None:
    """Refuse to resume ``rec`` with other settings than it was created with.

    Options compare by their effective values, the given ones over the method's defaults,
    so a study goes on with the options it began with even after a default changed (pass
    the old value to resume it) and passing a default explicitly changes nothing."""
    if rec.resume_format not in RESUME_FORMATS:
        raise StoreError(
            f"study {rec.name!r} was written with resume format {rec.resume_format!r}; this "
            f"isoline continues {list(RESUME_FORMATS)}: upgrade isoline to resume it"
        )
    diff = [
        f"{k}: stored {a!r}, given {b!r}"
        for k, a, b in (
            ("method", rec.method, s.method),
            ("seed", rec.seed, s.seed),
            ("batch_size", rec.batch_size, s.batch_size),
        )
        if a != b
    ]
    hint = ""
    if rec.method != s.method:
        if rec.options != s.options:
            diff.append(f"options: stored {rec.options!r}, given {s.options!r}")
        chose = rec.attrs.get("auto")
        if chose:
            hint = (
                f"; method='auto' chose {chose['method']!r} (rule {chose['rule']!r}) when the "
                "study was created: pass that method and its stored options to resume it"
            )
    else:
        options, hint = _option_difference(rec, s)
        diff += options
    if rec.space != space.to_dict():
        diff.append(_space_difference(rec.space, space.to_dict()))
    if diff:
        raise StoreError(f"study {rec.name!r} exists with other settings ({'; '.join(diff)}){hint}")


def _option_difference(rec: StudyRecord, s: _Settings) -> tuple[list[str], str]:
    """The options of one method whose effective values differ, and how to resume."""
    then = {**_stored_defaults(rec), **rec.options}
    now = {**_jsonable(option_defaults(s.method)), **s.options}
    changed = sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))
    diff = [
        f"option {k}: stored {then.get(k)!r}{'' if k in rec.options else ' (the default then)'}"
        f", given {now.get(k)!r}{'' if k in s.options else ' (the default now)'}"
        for k in changed
    ]
    moved = [k for k in changed if k not in rec.options and k not in s.options]
    if not moved:
        return diff, ""
    pins = ", ".join(f"{k}={then.get(k)!r}" for k in moved)
    return diff, (
        f"; {s.method}'s defaults changed since the study was created: pass {pins} "
        "to resume it with the settings it began with"
    )


def _space_difference(stored: Any, given: Any) -> str:
    """Which parameters of a typed space differ (the whole description for a Box)."""
    if "params" not in stored or "params" not in given:
        return f"space: stored {stored!r}, given {given!r}"
    a = {p["name"]: p for p in stored["params"]}
    b = {p["name"]: p for p in given["params"]}
    parts = [f"parameter {n!r} removed" for n in a if n not in b]
    parts += [f"parameter {n!r} added" for n in b if n not in a]
    parts += [
        f"parameter {n!r}: stored {a[n]!r}, given {b[n]!r}" for n in a if n in b and a[n] != b[n]
    ]
    if not parts:
        parts = [f"parameter order: stored {list(a)}, given {list(b)}"]
    return "space: " + "; ".join(parts)


def _abandon_crashed(
    store: Store, rec: StudyRecord, trials: list[Trial], max_attempts: int
) -> list[Trial]:
    """Record as failed the pending trials whose evaluation was started ``max_attempts``
    times without finishing; return the trials as stored afterwards."""
    crashed = [t for t in trials if t.status == "pending" and t.attempts >= max_attempts]
    for t in crashed:
        reason = (
            f"evaluation started {t.attempts} times and never finished (the process running "
            f"it died each time); recorded as failed after max_attempts={max_attempts}"
        )
        store.record_result(rec, t.number, None, "failed", reason, None,
                            t.started or rec.created, t.started or rec.created)  # fmt: skip
    return store.trials(rec) if crashed else trials


def _replay(
    opt: Optimizer, rec: StudyRecord, trials: list[Trial]
) -> tuple[int, list[Trial], list[Trial]]:
    """Bring a fresh ``opt`` to the state after the study's last stored ``ask``.

    Every stored batch is asked again (same sizes) and, but for the last one, told its
    stored values; each re-asked point must equal the stored one up to
    :data:`REPLAY_TOLERANCE` of the box's width (unit-cube coordinates for a typed space),
    which checks that the method reproduces the run. The tolerance admits last-bit
    differences of the linear algebra between processes, nothing a method would choose
    differently. Returns the last batch's index and its unfinished and
    finished trials.

    Raises:
        StoreError: the stored batches are not contiguous, or a re-asked point differs
            from the stored one (another isoline version or non-reproducible method).
    """
    by_batch: dict[int, list[Trial]] = {}
    for t in trials:
        by_batch.setdefault(t.batch, []).append(t)
    if sorted(by_batch) != list(range(rec.state_batch + 1)):
        raise StoreError(
            f"study {rec.name!r} has batches {sorted(by_batch)} but its record says the last "
            f"one is {rec.state_batch}; the store was edited or is damaged"
        )
    for b in range(rec.state_batch + 1):
        batch = by_batch[b]
        X, U = opt.ask_with_unit(len(batch))
        asked = U if isinstance(opt.space, Space) else X
        stored = (
            np.array([t.u for t in batch], dtype=float)
            if isinstance(opt.space, Space)
            else np.array([t.x for t in batch], dtype=float)
        ).reshape(asked.shape)
        scale = 1.0 if isinstance(opt.space, Space) else opt.space.width
        off = np.abs(asked - stored) > REPLAY_TOLERANCE * scale
        if off.any():
            row = int(np.flatnonzero(off.any(axis=1))[0])
            raise StoreError(
                f"cannot resume study {rec.name!r}: replaying its history proposes trial "
                f"{batch[row].number} at {asked[row].tolist()} but the stored trial is at "
                f"{stored[row].tolist()}. The study was written by isoline "
                f"{rec.attrs.get('isoline', '< 0.1')} and this is {_version()}"
                f"{_changed_packages(rec.attrs.get('versions'))}; the method does not "
                "reproduce it. All its evaluations stay in the store; start a new study to go on"
            )
        if b < rec.state_batch:
            opt.tell(X, [np.nan if t.y is None else t.y for t in batch])
    if rec.state_batch < 0:
        return -1, [], []
    last = by_batch[rec.state_batch]
    return (
        rec.state_batch,
        [t for t in last if t.status == "pending"],
        [t for t in last if t.status != "pending"],
    )


def _stop(
    callback: Callable[[Result], bool | None] | None,
    store: Store,
    rec: StudyRecord,
    space: Box | Space,
) -> bool:
    if callback is None:
        return False
    return bool(callback(Result.from_trials(rec, store.trials(rec), store.path, space)))


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(
        json.dumps(d, default=lambda o: o.tolist() if hasattr(o, "tolist") else repr(o))
    )
    return out


#: the packages whose version can change a trajectory: the numerics under isoline's methods
#: and the peers' own packages (recorded when installed)
TRAJECTORY_PACKAGES = (
    "numpy", "scipy", "torch", "gpytorch", "botorch", "cma", "scikit-learn", "optuna",
    "ax-platform", "nevergrad", "scikit-optimize", "smac",
)  # fmt: skip


def package_versions() -> dict[str, str]:
    """``{package: version}`` of the installed :data:`TRAJECTORY_PACKAGES`; each new study
    records it, since a model-based run amplifies a change in a fit's last bits."""
    out = {}
    for name in TRAJECTORY_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def _changed_packages(stored: dict[str, str] | None) -> str:
    """``"; changed since: botorch 0.17.0 -> 0.18.1"`` for a study's recorded versions."""
    if not stored:
        return ""
    now = package_versions()
    changed = [f"{k} {v} -> {now.get(k, 'absent')}" for k, v in stored.items() if now.get(k) != v]
    return f"; changed since: {', '.join(changed)}" if changed else ""


def _version() -> str:
    try:
        return metadata.version("isoline")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


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


class _Progress:
    """A rich progress bar over evaluations, or nothing when disabled."""

    def __init__(self, enabled: bool, total: int, completed: int, name: str) -> None:
        self.best = np.inf
        self.bar = None
        if enabled:
            from rich.progress import Progress

            self.bar = Progress(*Progress.get_default_columns(), "{task.fields[best]}")
            self.task = self.bar.add_task(name, total=total, completed=completed, best="")
            self.bar.start()

    def advance(self, y: float | None) -> None:
        if y is not None:
            self.best = min(self.best, y)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, best=f"best {self.best:.6g}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
