"""One call's run of a study: open (or resume) it, then ask, store and evaluate batch after
batch, committing each result as it arrives (:func:`isoline.optimize` sets it up)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from isoline.methods.registry import option_defaults
from isoline.optimizer import Optimizer, Result
from isoline.outcomes import RowObjective
from isoline.parallel import evaluate_batch
from isoline.progress import Progress, get_logger
from isoline.resume import (
    Settings,
    abandon_crashed,
    check_objective,
    check_same_settings,
    jsonable,
    package_versions,
    replay,
    told_value,
    version,
)
from isoline.space import SearchSpace
from isoline.store import Store, StoreError, StudyExists, StudyRecord, Trial

__all__ = ["CALLBACK_STOP", "METHOD_CPU", "ObjectiveError", "Run"]

#: :attr:`Result.stop_reason` of a run its callback stopped
CALLBACK_STOP = "the callback asked to stop"
#: the study attribute summing the CPU seconds this process spent in the method's ``tell``
#: and ``ask`` between stored batches (not in a resumed study's replay of its history):
#: the suggestion cost, which unlike wall time does not grow when other jobs share the cores
METHOD_CPU = "method_cpu"


class ObjectiveError(RuntimeError):
    """The objective failed in a way that makes going on pointless (see
    :func:`isoline.optimize`)."""


@dataclass
class Run:
    """One call's view of a study: its record, lease, optimizer and the batch in flight."""

    store: Store
    rec: StudyRecord
    lease: Any
    opt: Optimizer
    batch: int
    todo: list[Trial]
    done: list[Trial]
    budget: int
    #: evaluations stored before this call, if it resumes the study (else ``None``)
    resumed: int | None = None

    @classmethod
    def open(
        cls, store: Store, study: str | None, opt: Optimizer, s: Settings, max_attempts: int
    ) -> Run:
        """Create or reopen a study, take its lease and replay its history into ``opt``."""
        name = study if study is not None else f"{s.method}-seed{s.seed}-{uuid.uuid4().hex[:8]}"
        rec = store.get_study(name)
        reopened = rec is not None
        if rec is None:
            attrs: dict[str, Any] = {
                "isoline": version(),
                "versions": package_versions(),
                "defaults": jsonable(option_defaults(s.method)),
            }
            if opt.choice is not None:
                attrs["auto"] = opt.choice.to_dict()
            attrs["objective"] = s.objective.to_dict()
            if s.function is not None:
                attrs["function"] = s.function
            try:
                rec = store.create_study(name, s.method, s.seed, s.batch_size, s.options,
                                         opt.space.to_dict(), s.budget, attrs)  # fmt: skip
            except StudyExists:  # another process created it since: go on as a resume
                rec = store.get_study(name)
                reopened = True
        if rec is None:
            raise StoreError(f"study {name!r} vanished while it was being opened")
        if reopened:
            check_same_settings(rec, s, opt.space)
            check_objective(rec, s.function)
        lease = store.acquire(rec)
        resumed = None
        try:
            if rec.budget is None or s.budget > rec.budget:
                store.set_budget(rec, s.budget)
            trials = abandon_crashed(store, rec, store.trials(rec), max_attempts)
            batch, todo, done = replay(opt, rec, trials)
            if reopened:
                store.record_resume(rec, time.time())
                resumed = sum(t.status != "pending" for t in trials)
                get_logger().info(
                    "resuming study %r: %d stored evaluations (budget %d)",
                    rec.name,
                    resumed,
                    s.budget,
                )
        except BaseException:
            lease.release()
            raise
        return cls(store, rec, lease, opt, batch, todo, done, s.budget, resumed)

    def go(
        self,
        f: Callable[[Any], Any],
        pool: Any,
        progress: bool,
        callback: Callable[[Result], bool | None] | None,
        raise_on_error: bool,
        max_initial_failures: int | None,
        timeout: float | None = None,
        deadline: float | None = None,
    ) -> str:
        """Evaluate to the end of the budget; returns why the call ended."""
        stored = self.store.trials(self.rec)
        n_total = len(stored)
        title = self.rec.name
        if self.resumed is not None:
            title = f"resuming study {self.rec.name}: {self.resumed} stored evaluations"
        bar = Progress(progress, self.budget, n_total - len(self.todo), title, self.opt.objective)
        for t in stored:  # a resumed study's best so far includes its stored evaluations
            if t.status == "ok":
                bar.note(t.y, t.outputs)
        failures = _FailureWatch(max_initial_failures)
        watch = _Watch(pool, bar, raise_on_error, failures, timeout, deadline)
        method_cpu = 0.0  # CPU seconds of the method since the last batch was stored
        try:
            if self.todo or self.done:
                in_flight = sorted(self.todo + self.done, key=lambda t: t.number)
                ys = {t.number: told_value(self.opt, t) for t in self.done}
                todo = [t.number for t in self.todo]
                ys.update(self._evaluate(f, self._points(self.todo), todo, watch))
                if any(n not in ys for n in todo):
                    return watch.timed_out(self.store, self.rec, self.budget)
                X = self._points(in_flight)
                cpu = time.process_time()
                self.opt.tell(X, [ys[t.number] for t in in_flight])
                method_cpu = time.process_time() - cpu
                if _stop(callback, self.store, self.rec, self.opt.space):
                    return CALLBACK_STOP
            while n_total < self.budget:
                if deadline is not None and time.time() >= deadline:
                    return watch.timed_out(self.store, self.rec, self.budget)
                q = min(self.opt.batch_size, self.budget - n_total)
                cpu = time.process_time()
                X, U = self.opt.ask_with_unit(q)
                method_cpu += time.process_time() - cpu
                self.batch += 1
                numbers = self.store.add_batch(self.rec, self.batch, X, U)
                self.store.update_attr(self.rec, METHOD_CPU, partial(_add, method_cpu))
                n_total += q
                ys = self._evaluate(f, X, numbers, watch)
                if any(n not in ys for n in numbers):
                    return watch.timed_out(self.store, self.rec, self.budget)
                cpu = time.process_time()
                self.opt.tell(X, [ys[n] for n in numbers])
                method_cpu = time.process_time() - cpu
                if _stop(callback, self.store, self.rec, self.opt.space):
                    return CALLBACK_STOP
            used = f"the budget of {self.budget} evaluations is used"
            if self.rec.budget is not None and self.budget < self.rec.budget:
                return f"{used}; the study's is {self.rec.budget}, so it stays unfinished"
            self.store.mark_finished(self.rec)
            return used
        finally:
            bar.close()

    def _points(self, trials: list[Trial]) -> Any:
        """The stored trials' points as the objective takes them."""
        return self.opt.space.stored_points([t.x for t in trials], [t.u for t in trials])

    def _evaluate(
        self, f: Callable[[Any], Any], X: Any, numbers: list[int], watch: _Watch
    ) -> dict[int, Any]:
        """Evaluate and store ``X``; ``{number: y}`` of the evaluations that finished (all
        of them unless ``max_time`` stopped the ones still running)."""
        pool, bar, failures = watch.pool, watch.bar, watch.failures
        ys: dict[int, Any] = {}
        if not numbers:
            return ys
        first_error: str | None = None

        def started(rows: list[int]) -> None:
            self.store.mark_started(self.rec, [numbers[i] for i in rows])

        on_start = started if pool is None else None
        spec = self.opt.objective
        if spec.objectives is not None or not spec.single:
            f = RowObjective(f, spec)
        for i, out in evaluate_batch(f, X, pool, numbers, on_start=on_start,
                                     timeout=watch.timeout, deadline=watch.deadline):  # fmt: skip
            self.store.record_result(self.rec, numbers[i], out.y, out.status, out.error,
                                     out.info, out.started, out.finished, out.outputs)  # fmt: skip
            ys[numbers[i]] = np.nan if out.y is None else out.y
            if not spec.single:
                ys[numbers[i]] = (
                    np.full(spec.n_outputs, np.nan) if out.outputs is None else out.outputs
                )
            bar.advance(out.y, out.outputs)
            failures.add(out.status, out.error)
            if out.status == "failed" and first_error is None:
                first_error = out.error
        if watch.raise_on_error and first_error is not None:
            raise RuntimeError(f"objective failed (raise_on_error=True): {first_error}")
        failures.check()
        return ys


@dataclass
class _Watch:
    """How one call evaluates: its executor, progress bar, failure rules and time limits."""

    pool: Any
    bar: Progress
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


def _stop(
    callback: Callable[[Result], bool | None] | None,
    store: Store,
    rec: StudyRecord,
    space: SearchSpace,
) -> bool:
    if callback is None:
        return False
    return bool(callback(Result.from_trials(rec, store.trials(rec), store.path, space)))


def _add(seconds: float, total: float | None) -> float:
    return (total or 0.0) + seconds
