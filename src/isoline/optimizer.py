"""User-facing optimization: the ask/tell :class:`Optimizer` and :func:`minimize`."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from isoline.parallel import evaluate_batch, make_executor
from isoline.registry import make_method
from isoline.space import Box
from isoline.store import Store, StoreError, StudyRecord, Trial

__all__ = ["Optimizer", "Result", "minimize"]


class Optimizer:
    """Ask/tell interface in the user's units.

    Args:
        space: the search box.
        method: a registered method name (see :func:`isoline.methods`).
        seed: seed of every random choice; the same seed gives the same points.
        batch_size: points per :meth:`ask`.
        n_init: initial-design size (method default if ``None``).
        init: initial design, ``"sobol"``, ``"random"`` or ``"lattice"``.
        **options: the method's own options.

    Example:
        >>> opt = Optimizer(Box([-1, -1], [1, 1]), "gp-ei", seed=0)
        >>> X = opt.ask(); opt.tell(X, [float(np.sum(X**2))])
    """

    def __init__(
        self,
        space: Box,
        method: str = "gp-ei",
        seed: int = 0,
        batch_size: int = 1,
        n_init: int | None = None,
        init: str | None = None,
        **options: Any,
    ) -> None:
        if not isinstance(space, Box):
            raise TypeError(f"space must be an isoline.Box, got {type(space).__name__}")
        self.space = space
        self.method_name = method
        self.options = dict(options)
        common = {"seed": seed, "batch_size": batch_size, "n_init": n_init, "init": init}
        self.method = make_method(method, space.dim, **common, **options)
        self._asked: dict[bytes, np.ndarray] = {}

    @property
    def seed(self) -> int:
        return self.method.seed

    @property
    def batch_size(self) -> int:
        return self.method.batch_size

    def ask(self, n: int | None = None) -> np.ndarray:
        """The next ``(n, d)`` points in user units (``n`` defaults to ``batch_size``)."""
        U = self.method.ask(n)
        X = self.space.from_unit(U)
        for x, u in zip(X, U):
            self._asked[x.tobytes()] = u
        return X

    def tell(self, X: np.ndarray, y: np.ndarray | list[float]) -> None:
        """Record ``y`` ``(n,)`` at ``X`` ``(n, d)``; NaN/inf/None mark failed evaluations."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if X.shape[-1] != self.space.dim:
            raise ValueError(f"X must have {self.space.dim} columns, got shape {X.shape}")
        y = np.array([np.nan if v is None else v for v in np.ravel(y)], dtype=float)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values")
        U = np.array([self._asked.pop(x.tobytes(), None) for x in X], dtype=object)
        missing = np.array([u is None for u in U])
        Uarr = np.empty_like(X)
        if missing.any():
            Uarr[missing] = self.space.to_unit(X[missing])
        if (~missing).any():
            Uarr[~missing] = np.stack(list(U[~missing]))
        self.method.tell(Uarr, y)

    @property
    def best(self) -> tuple[np.ndarray, float] | None:
        """``(x, y)`` of the best finite observation in user units, or ``None``."""
        b = self.method.best
        return None if b is None else (self.space.from_unit(b[0]), b[1])

    @property
    def history(self) -> tuple[np.ndarray, np.ndarray]:
        """All observations ``(X (n, d) user units, y (n,))``; failed ones have NaN."""
        return self.space.from_unit(self.method.X), self.method.y.copy()


@dataclass
class Result:
    """Outcome of :func:`minimize` (arrays in user units, evaluation order)."""

    x: np.ndarray | None
    fun: float
    x_iters: np.ndarray
    func_vals: np.ndarray
    status: list[str]
    errors: list[str | None]
    wall_times: np.ndarray
    infos: list[dict[str, Any] | None]
    method: str
    seed: int
    study: str
    storage: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def n_evals(self) -> int:
        return int(len(self.func_vals))

    @property
    def n_failed(self) -> int:
        return int(sum(s == "failed" for s in self.status))

    def best_so_far(self) -> np.ndarray:
        """``(n,)`` running minimum of the finite values (NaN before the first one)."""
        v = np.where(np.isfinite(self.func_vals), self.func_vals, np.inf)
        run = np.minimum.accumulate(v)
        return np.where(np.isfinite(run), run, np.nan)

    def plot(self, ax: Any = None, label: str | None = None) -> Any:
        """Convergence plot (best value so far against evaluations); returns the axes."""
        from isoline.bench.plots import plot_convergence

        return plot_convergence({label or self.method: [self.best_so_far()]}, ax=ax)

    @classmethod
    def from_trials(cls, rec: StudyRecord, trials: list[Trial], storage: str) -> Result:
        done = [t for t in trials if t.status != "pending"]
        d = len(rec.space["lower"])
        X = np.array([t.x for t in done]).reshape(-1, d)
        y = np.array([np.nan if t.y is None else t.y for t in done], dtype=float)
        ok = np.flatnonzero(np.isfinite(y))
        best = ok[np.argmin(y[ok])] if ok.size else None
        return cls(
            x=None if best is None else X[best].copy(),
            fun=float("nan") if best is None else float(y[best]),
            x_iters=X,
            func_vals=y,
            status=[t.status for t in done],
            errors=[t.error for t in done],
            wall_times=np.array([t.duration or 0.0 for t in done]),
            infos=[t.info for t in done],
            method=rec.method,
            seed=rec.seed,
            study=rec.name,
            storage=storage,
            options=rec.options,
        )


def minimize(
    f: Callable[[np.ndarray], Any],
    space: Box,
    method: str = "gp-ei",
    budget: int = 50,
    seed: int = 0,
    batch_size: int = 1,
    executor: Any = None,
    storage: str | Store | None = None,
    study: str | None = None,
    progress: bool = False,
    callback: Callable[[Result], bool | None] | None = None,
    raise_on_error: bool = False,
    n_init: int | None = None,
    init: str | None = None,
    **options: Any,
) -> Result:
    """Minimize ``f`` over ``space`` with ``budget`` evaluations.

    Args:
        f: objective taking one point ``(d,)`` in user units and returning a float, or
            ``(float, dict)`` whose dict is stored with the evaluation. Exceptions, NaN and
            inf are recorded as failed evaluations and the run goes on.
        space: the search :class:`Box`.
        method: registered method name; ``**options`` are its options.
        budget: number of evaluations (failed ones count).
        seed: the same seed gives the same trajectory.
        batch_size: points asked and evaluated together.
        executor: ``None`` (evaluate in this process, in order), ``"process"`` / ``"thread"``
            (a pool of ``batch_size`` workers), ``"dask"`` (a local Dask cluster), a Dask
            scheduler address ``"tcp://host:8786"``, or any object with a
            ``concurrent.futures`` ``submit`` method (see :func:`parallel.make_executor`).
        storage: SQLite file path (or a :class:`Store`) where every evaluation is committed
            as it arrives; ``None`` keeps the run in memory.
        study: name of the run in ``storage``. If it exists, the run resumes: finished
            evaluations are not repeated and the trajectory is the uninterrupted one.
        progress: show a progress bar (rich).
        callback: called with the :class:`Result` so far after each batch; returning
            ``True`` stops the run.
        raise_on_error: re-raise the first failing evaluation's error (as RuntimeError)
            after storing it.
    """
    if not callable(f):
        raise TypeError(f"f must be callable, got {type(f).__name__}")
    if not isinstance(space, Box):
        raise TypeError(f"space must be an isoline.Box, got {type(space).__name__}")
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ValueError(f"budget must be an integer >= 1, got {budget!r}")
    if callback is not None and not callable(callback):
        raise TypeError("callback must be callable")
    opt = Optimizer(space, method, seed, batch_size, n_init=n_init, init=init, **options)
    own_store = not isinstance(storage, Store)
    store = Store(":memory:" if storage is None else storage) if own_store else storage
    assert isinstance(store, Store)
    try:
        rec, opt, batch, todo, done = _open_study(
            store, study, opt, space, method, seed, batch_size, int(budget), options, n_init, init
        )
        pool, owned = make_executor(executor, opt.batch_size)
        try:
            _run(f, store, rec, opt, int(budget), batch, todo, done, pool, progress, callback,
                 raise_on_error)  # fmt: skip
        finally:
            if owned:
                pool.shutdown(wait=False, cancel_futures=True)
        return Result.from_trials(rec, store.trials(rec), store.path)
    finally:
        if own_store:
            store.close()


def _open_study(
    store: Store,
    study: str | None,
    opt: Optimizer,
    space: Box,
    method: str,
    seed: int,
    batch_size: int,
    budget: int,
    options: dict[str, Any],
    n_init: int | None,
    init: str | None,
) -> tuple[StudyRecord, Optimizer, int, list[Trial], list[Trial]]:
    """Create or reopen a study; return it, the optimizer to continue with, the index of
    the batch in flight, its unfinished and finished trials."""
    opts = dict(options, n_init=n_init, init=init)
    name = study if study is not None else f"{method}-seed{seed}-{uuid.uuid4().hex[:8]}"
    rec = store.get_study(name)
    if rec is None:
        rec = store.create_study(name, method, seed, batch_size, _jsonable(opts), space.to_dict(), budget)
        return rec, opt, -1, [], []
    stored = (rec.method, rec.seed, rec.batch_size, rec.options, rec.space)
    wanted = (method, seed, batch_size, _jsonable(opts), space.to_dict())
    if stored != wanted:
        labels = ("method", "seed", "batch_size", "options", "space")
        diff = [f"{k}: stored {a!r}, given {b!r}" for k, a, b in zip(labels, stored, wanted) if a != b]
        raise StoreError(f"study {name!r} exists with other settings ({'; '.join(diff)})")
    if rec.budget is None or budget > rec.budget:
        store.set_budget(rec, budget)
    state = store.load_state(rec)
    if state is None:
        return rec, opt, -1, [], []
    opt, batch = state
    in_flight = [t for t in store.trials(rec) if t.batch == batch]
    todo = [t for t in in_flight if t.status == "pending"]
    done = [t for t in in_flight if t.status != "pending"]
    return rec, opt, batch, todo, done


def _run(
    f: Callable[[np.ndarray], Any],
    store: Store,
    rec: StudyRecord,
    opt: Optimizer,
    budget: int,
    batch: int,
    todo: list[Trial],
    done: list[Trial],
    pool: Any,
    progress: bool,
    callback: Callable[[Result], bool | None] | None,
    raise_on_error: bool,
) -> None:
    n_total = len(store.trials(rec))
    bar = _Progress(progress, budget, n_total - len(todo), rec.name)
    try:
        if todo or done:
            ys = {t.number: (np.nan if t.y is None else t.y) for t in done}
            X = np.array([t.x for t in sorted(todo + done, key=lambda t: t.number)])
            numbers = sorted(t.number for t in todo + done)
            ys.update(_evaluate_into(f, store, rec, X[[numbers.index(t.number) for t in todo]],
                                     [t.number for t in todo], pool, bar, raise_on_error))  # fmt: skip
            opt.tell(X, [ys[n] for n in numbers])
            if _stop(callback, store, rec):
                return
        while n_total < budget:
            q = min(opt.batch_size, budget - n_total)
            X = opt.ask(q)
            batch += 1
            numbers = store.add_batch(rec, batch, X, opt.space.to_unit(X), opt)
            n_total += q
            ys = _evaluate_into(f, store, rec, X, numbers, pool, bar, raise_on_error)
            opt.tell(X, [ys[n] for n in numbers])
            if _stop(callback, store, rec):
                return
        store.mark_finished(rec)
    finally:
        bar.close()


def _evaluate_into(
    f: Callable[[np.ndarray], Any],
    store: Store,
    rec: StudyRecord,
    X: np.ndarray,
    numbers: list[int],
    pool: Any,
    bar: _Progress,
    raise_on_error: bool,
) -> dict[int, float]:
    ys: dict[int, float] = {}
    first_error: str | None = None
    for i, out in evaluate_batch(f, X, pool, numbers):
        store.record_result(rec, numbers[i], out.y, out.status, out.error, out.info,
                            out.started, out.finished)  # fmt: skip
        ys[numbers[i]] = np.nan if out.y is None else out.y
        bar.advance(out.y)
        if out.status == "failed" and first_error is None:
            first_error = out.error
    if raise_on_error and first_error is not None:
        raise RuntimeError(f"objective failed (raise_on_error=True): {first_error}")
    return ys


def _stop(callback: Callable[[Result], bool | None] | None, store: Store, rec: StudyRecord) -> bool:
    if callback is None:
        return False
    return bool(callback(Result.from_trials(rec, store.trials(rec), store.path)))


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(d, default=lambda o: o.tolist() if hasattr(o, "tolist") else repr(o)))


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
