"""Run a benchmark config: every (method, problem, seed) is one resumable study.

Runs go to worker processes (or a Dask cluster); each writes its evaluations into the
shared SQLite store as they arrive, so an interrupted benchmark picks up where it stopped:
finished runs are skipped and partial ones resume.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from isoline.auto import AUTO
from isoline.bench.config import BenchConfig, ConfigError, RunSpec
from isoline.bench.preflight import make_problem, problem_objective, resolve_options, run_errors
from isoline.bench.twins import copy_twin, twin_candidates
from isoline.parallel import ProcessPool, shutdown_executor
from isoline.store import Store
from isoline.threads import limit_threads

__all__ = [
    "RunSummary", "ProblemObjective", "make_problem", "problem_objective", "resolve_options",
    "run_one", "run_bench", "report_crashes",
]  # fmt: skip


class ProblemObjective:
    """Objective for a benchmark problem: returns ``(y, info)`` with the noise-free value."""

    #: forwards the trial number (the problem's noise is keyed by it)
    takes_trial_number = True

    def __init__(self, problem: Any) -> None:
        self.problem = problem

    def __call__(self, x: np.ndarray, number: int | None = None) -> tuple[float, dict[str, Any]]:
        if getattr(self.problem, "takes_trial_number", False):
            out = self.problem(x, number=number)
        else:
            out = self.problem(x)
        y, info = out if isinstance(out, tuple) else (out, {})
        info = dict(info)
        if getattr(self.problem, "noise_std", 0.0) and "noise_free" not in info:
            info["noise_free"] = float(self.problem.noise_free(x))
        return y, info


@dataclass(frozen=True)
class RunSummary:
    """What one run of a benchmark did; ``error`` names the exception a crashed run raised."""

    study: str
    n_evals: int
    best: float
    seconds: float
    skipped: bool
    error: str | None = None

    @classmethod
    def crashed(cls, study: str, err: BaseException, seconds: float = 0.0) -> RunSummary:
        return cls(study, 0, float("nan"), seconds, False, f"{type(err).__name__}: {err}")


def run_one(spec: RunSpec, storage: str, twins: Sequence[RunSpec] = ()) -> RunSummary:
    """Run (or resume, or skip if finished) one study of a benchmark; an auto run is
    stored as a copy of a finished run among ``twins`` that repeats it
    (:func:`isoline.bench.twins.copy_twin`), when there is one."""
    from isoline.problems.base import is_noisy
    from isoline.runs import optimize

    t0 = time.time()
    with Store(storage) as store:
        rec = store.get_study(spec.study)
        if (
            rec is not None
            and rec.finished
            and rec.budget is not None
            and rec.budget >= spec.budget
        ):
            n = len(store.trials(rec))
            return RunSummary(spec.study, n, float("nan"), 0.0, True)
    problem = make_problem(spec)
    options = resolve_options(spec.method.options, problem)
    objective = problem_objective(problem, spec.direction)
    if spec.method.name == AUTO:
        options.setdefault("noisy", is_noisy(problem))
        with Store(storage) as store:
            copied = copy_twin(store, spec, problem, objective, options, twins)
        if copied is not None:
            return RunSummary(spec.study, copied, float("nan"), time.time() - t0, False)
    res = optimize(
        ProblemObjective(problem),
        problem.space,
        direction=objective,
        method=spec.method.name,
        budget=spec.budget,
        seed=spec.seed,
        batch_size=spec.batch_size,
        storage=storage,
        study=spec.study,
        timeout=spec.timeout,
        **options,
    )
    return RunSummary(spec.study, res.n_evals, res.fun, time.time() - t0, False)


def _init_worker() -> None:
    import torch

    torch.set_num_threads(1)


def run_bench(
    cfg: BenchConfig,
    storage: str,
    workers: int = 2,
    dask_address: str | None = None,
    progress: bool = True,
    others: Sequence[RunSpec] = (),
) -> list[RunSummary]:
    """Run every run of ``cfg`` into ``storage`` and return their summaries.

    Before any run starts, :func:`isoline.bench.preflight.run_errors` builds every
    problem and method once: a config any run of which would fail at its start raises
    :class:`ConfigError` listing every such error, and nothing runs.

    A run that raises (a method's or a peer's crash, a study stored with other settings)
    does not stop the others: its summary carries the error, the evaluations it stored
    stay in the store, and the report lists it as unfinished. Ctrl-C and SIGTERM stop
    every run.

    Args:
        workers: worker processes (ignored with ``dask_address``); 1 runs in this process.
        dask_address: a Dask scheduler address (``tcp://host:8786``); runs are submitted
            to the cluster, whose workers must see ``storage`` (a shared file system).
        others: runs of the same suite left out of this call (another selection of its
            contenders), whose finished studies an auto run may be stored as a copy of.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    errors = run_errors(cfg)
    if errors:
        raise ConfigError(errors, f"config {cfg.name!r}")
    Store(storage).close()  # validate / create the file before any worker touches it
    runs = _auto_last(cfg.runs())
    pool = [*runs, *others]
    twins = {r.study: twin_candidates(r, pool) for r in runs if r.method.name == AUTO}
    out: list[RunSummary] = []
    bar = _bar(progress, len(runs), cfg.name)
    client = None
    try:
        if dask_address is not None:
            from isoline.parallel import dask_client

            client = dask_client(dask_address)
            executor: Any = client.get_executor()
        elif workers == 1:
            executor = None
        else:
            # string hashing seeds set iteration orders, and a peer (SMAC3) follows them:
            # workers share one seed so that a resumed run replays its history exactly
            os.environ.setdefault("PYTHONHASHSEED", "0")
            executor = ProcessPool(workers, initializer=_init_worker, start_method="spawn")
        if executor is None:
            for spec in runs:
                t0 = time.time()
                try:
                    with limit_threads(1):  # as in the pool's workers (_init_worker)
                        out.append(run_one(spec, storage, twins.get(spec.study, ())))
                except Exception as err:
                    out.append(RunSummary.crashed(spec.study, err, time.time() - t0))
                _advance(bar, out[-1])
        else:
            futs = {
                executor.submit(run_one, spec, storage, twins.get(spec.study, ())): spec.study
                for spec in runs
            }
            try:
                for fut in cf.as_completed(futs):
                    try:
                        out.append(fut.result())
                    except Exception as err:
                        out.append(RunSummary.crashed(futs[fut], err))
                    _advance(bar, out[-1])
            except BaseException:  # Ctrl-C, SIGTERM (see cli): stop the workers
                for fut in futs:
                    fut.cancel()
                if client is None:
                    shutdown_executor(executor, kill=True)
                raise
            if client is None:
                shutdown_executor(executor, kill=False)
    finally:
        if bar is not None:
            bar.stop()
        if client is not None:
            client.close()
    return sorted(out, key=lambda s: s.study)


def _auto_last(runs: list[RunSpec]) -> list[RunSpec]:
    """``runs`` with each cell's auto run after the cell's others (the runs it may copy)."""
    first: dict[tuple[str, int], int] = {}
    for i, r in enumerate(runs):
        first.setdefault((r.problem.label, r.seed), i)
    return sorted(runs, key=lambda r: (first[(r.problem.label, r.seed)], r.method.name == AUTO))


def report_crashes(out: list[RunSummary], prefix: str = "") -> int:
    """Print the runs that raised to stderr (the summary line after ``prefix``, e.g. the
    command's ``"isoline bench: error: "``); 1 if any did (the command failed), else 0."""
    crashed = [s for s in out if s.error is not None]
    for s in crashed:
        print(f"crashed: {s.study}: {s.error}", file=sys.stderr)
    if crashed:
        print(f"{prefix}{len(crashed)} of {len(out)} runs crashed (their stored evaluations "
              "are kept; run the command again to resume them)", file=sys.stderr)  # fmt: skip
    return 1 if crashed else 0


def _bar(enabled: bool, total: int, name: str) -> Any:
    if not enabled:
        return None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        "[bold]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        "{task.fields[last]}",
    )  # fmt: skip
    bar.add_task(f"{name}: runs", total=total, last="")
    bar.start()
    return bar


def _advance(bar: Any, s: RunSummary) -> None:
    if bar is not None:
        if s.error is not None:
            note = f"[red]crashed[/red] ({s.error[:80]})"
        elif s.skipped:
            note = "skipped (done)"
        else:
            note = f"best {s.best:.4g} in {s.seconds:.1f}s"
        bar.update(bar.task_ids[0], advance=1, last=f"{s.study}: {note}")
