"""User-facing optimization: the ask/tell :class:`Optimizer` and the :class:`Result` of a run
(:func:`isoline.runs.minimize` drives the whole loop)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from isoline.auto import AUTO, Choice, resolve
from isoline.methods.registry import get_method, make_method, take_design
from isoline.objective import UNSET, Objective, Unset
from isoline.parallel import as_real
from isoline.params import Space
from isoline.space import Box, SearchSpace
from isoline.store import StudyRecord, Trial
from isoline.validation import check_sequence

__all__ = ["Optimizer", "Result"]

#: largest seed a study can record (SQLite integers are signed 64-bit)
MAX_SEED = 2**63 - 1


class Optimizer:
    """Ask/tell interface in the user's units.

    Args:
        space: the search space (:class:`~isoline.space.SearchSpace`): a :class:`Box`
            (points are ``(d,)`` arrays) or a typed :class:`~isoline.params.Space`
            (points are configuration dicts).
        method: a registered method name (see :func:`isoline.methods`), or ``"auto"``
            (default): the method and options :func:`isoline.auto.choose` picks for the
            space, the batch size, ``budget`` and the options ``noisy`` (default
            ``False``) and ``workers`` (default 1: the number of workers that each ask
            their own point while others are still evaluated, told with
            :meth:`add_pending`); :attr:`choice` says what it chose and why.
        seed: seed of every random choice; the same seed gives the same points.
        batch_size: points per :meth:`ask`.
        n_init: initial-design size (``None``: auto's choice, else the method default).
        init: initial design, ``"sobol"``, ``"random"``, ``"lattice"`` or ``"centre"``
            (``None``: auto's choice, else the method default).
        direction: ``"minimize"`` (default) or ``"maximize"`` the told values (or an
            :class:`~isoline.objective.Objective`); :meth:`tell`, :attr:`best` and
            :attr:`history` are in this direction.
        directions: one direction per objective, for several objectives, or a mapping
            ``{objective name: direction}`` that names them too (see
            :class:`~isoline.objective.Objective`).
        objectives: names of the objectives (the keys of mappings told).
        constraints: names of black-box constraints (feasible when ``<= 0``); with
            several outputs :meth:`tell` takes one row of outputs per point.
        objective: a whole :class:`~isoline.objective.Objective` instead of the keywords.
        budget: the number of evaluations, if known: ``"auto"`` and the methods that plan
            by it (the peers) use it; the others do not need it.
        **options: the method's own options (``noisy`` and ``workers`` for ``"auto"``).

    Attributes:
        method_name: the method that proposes (auto's choice for ``"auto"``).
        options: that method's options.
        design: the initial design's ``n_init`` and ``init`` in effect (``None``: the
            method default), given or chosen by ``"auto"``.
        choice: the :class:`~isoline.auto.Choice` of ``"auto"``, else ``None``.
        objective: the :class:`~isoline.objective.Objective` (its direction).

    Example:
        >>> opt = Optimizer(Box([-1, -1], [1, 1]), "gp-ei", seed=0)
        >>> X = opt.ask(); opt.tell(X, [float(np.sum(X**2))])
    """

    def __init__(
        self,
        space: SearchSpace,
        method: str = AUTO,
        seed: int = 0,
        batch_size: int = 1,
        n_init: int | None = None,
        init: str | None = None,
        *,
        direction: Objective | str | Unset = UNSET,
        directions: str | Sequence[str] | Mapping[str, str] | None = None,
        objectives: Sequence[str] | None = None,
        constraints: Sequence[str] | None = None,
        objective: Objective | None = None,
        budget: int | None = None,
        **options: Any,
    ) -> None:
        if not isinstance(space, SearchSpace):
            raise TypeError(f"space must be an isoline.Box or Space, got {type(space).__name__}")
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed > MAX_SEED:
            raise ValueError(f"seed must be <= 2**63 - 1, got {seed}")
        self.objective = Objective.from_args(
            direction, directions, objectives, constraints, objective
        )
        self.space = space
        o = self.objective
        method, options, choice = resolve(method, space, batch_size, options, budget,
                                          o.n_objectives, o.n_constraints)  # fmt: skip
        if budget is not None and get_method(method).takes_budget:
            options.setdefault("budget", budget)
        n_init, init = take_design(options, n_init, init)
        self.choice: Choice | None = choice
        self.method_name = method
        self.options = dict(options)
        self.design: dict[str, Any] = {"n_init": n_init, "init": init}
        self.method = make_method(method, space.dim, seed=seed, batch_size=batch_size,
                                  n_init=n_init, init=init, space=space.method_space,
                                  n_objectives=o.n_objectives, n_constraints=o.n_constraints,
                                  **options)  # fmt: skip
        self._asked: dict[bytes | str, np.ndarray] = {}

    @classmethod
    def from_history(
        cls, space: SearchSpace, X: Any, y: Any, method: str = AUTO, **kwargs: Any
    ) -> Optimizer:
        """An optimizer that starts from known evaluations ``X``, ``y`` (as :meth:`tell`
        takes them); ``**kwargs`` as the constructor's. The known points take the place of
        the initial-design points nearest them."""
        opt = cls(space, method, **kwargs)
        opt.tell(X, y)
        return opt

    @property
    def direction(self) -> str:
        return self.objective.direction

    def enqueue(self, X: Any) -> None:
        """Ask the points ``X`` first (an ``(n, d)`` array in user units for a Box, a list
        of configurations for a Space), each in place of the nearest initial-design point.

        Raises:
            ValueError, TypeError: as :meth:`tell` for a bad point.
        """
        self.method.enqueue(self.space.unit(self.space.points(X)))

    def add_pending(self, X: Any) -> None:
        """Points being evaluated elsewhere (as :meth:`tell` takes them), until told:
        model-based methods that condition on pending points take them into account, and
        on a typed space :meth:`ask` does not propose their configurations again while
        unseen ones remain."""
        self.method.add_pending(self.space.unit(self.space.points(X)))

    def withdraw(self, X: Any) -> None:
        """Asked points (as :meth:`tell` takes them) that will never be told, e.g. a
        proposal another worker claimed first: the method stops treating them as pending."""
        self.method.withdraw(self.space.unit(self.space.points(X)))

    @property
    def seed(self) -> int:
        return self.method.seed

    @property
    def batch_size(self) -> int:
        return self.method.batch_size

    def ask(self, n: int | None = None) -> Any:
        """The next ``n`` points (``n`` defaults to ``batch_size``): an ``(n, d)`` array in
        user units for a :class:`Box`, a list of ``n`` configurations for a Space."""
        return self.ask_with_unit(n)[0]

    def ask_with_unit(self, n: int | None = None) -> tuple[Any, np.ndarray]:
        """The next points both as :meth:`ask` gives them and as the method proposed them
        in the unit cube ``U (n, dim)``."""
        U = self.method.ask(n)
        X = self.space.from_unit(U)
        for x, u in zip(X, U):
            self._asked[self.space.key(x)] = u
        return X, U

    def tell(self, X: Any, y: Any) -> None:
        """Record ``y`` ``(n,)`` (values as the objective returned them, in the optimizer's
        direction) at ``X`` ``(n, d)``; NaN/inf/None mark failed evaluations.

        ``X`` may hold points that were never asked (known data); they must lie in the
        space.

        Raises:
            ValueError: ``X`` is empty, has the wrong shape, holds NaN/inf or points outside
                the space, or ``y`` has another length.
            TypeError: a value of ``y`` is not a real number (or None).
        """
        P = self.space.points(X)
        if self.objective.single:
            values = _check_tell_values(y, len(P))
        else:
            values = _check_tell_rows(self.objective, y, len(P))
        known = [self._asked.pop(self.space.key(x), None) for x in P]
        U = np.array(
            [u if u is not None else self.space.unit(P[i : i + 1])[0] for i, u in enumerate(known)]
        )
        self.method.tell(U, self.objective.internal(values))

    @property
    def best(self) -> tuple[Any, float] | None:
        """``(x, y)`` of the best feasible observation of the first objective (the largest
        when maximizing) in user units, or ``None`` when none is feasible."""
        b = self.method.best
        if b is None:
            return None
        sign = -1.0 if self.objective.directions[0] == "maximize" else 1.0
        return self.space.from_unit(b[0][None])[0], sign * float(b[1])

    @property
    def history(self) -> tuple[Any, np.ndarray]:
        """All observations ``(X, Y)`` (``X`` as :meth:`ask` gives points, ``Y`` as told:
        ``(n,)`` with one output, ``(n, m)`` rows otherwise); failed ones have NaN."""
        Y = self.method.Y if not self.objective.single else self.method.y
        return self.space.from_unit(self.method.X), np.array(self.objective.internal(Y))

    @property
    def pareto_front(self) -> tuple[Any, np.ndarray]:
        """The feasible Pareto front so far: ``(X, Y (k, m))`` (as :attr:`history`), the
        rows no other feasible row dominates."""
        X, Y = self.history
        idx = self.objective.pareto_indices(Y)
        return self.space.from_unit(self.method.X[idx]), Y[idx]


def _check_tell_values(y: Any, n: int) -> np.ndarray:
    values = check_sequence(y, "y", n)
    out = np.empty(len(values))
    for i, v in enumerate(values):
        try:
            out[i] = np.nan if v is None else as_real(v)
        except TypeError as e:
            raise TypeError(f"y[{i}]: {e}") from None
    return out


def _check_tell_rows(objective: Objective, Y: Any, n: int) -> np.ndarray:
    """``(n, m)`` rows from an array, a list of rows or a list of mappings keyed by the
    output names (None or a NaN marks a failed evaluation)."""
    m = objective.n_outputs
    if isinstance(Y, Mapping):
        Y = [Y]
    if (
        isinstance(Y, Sequence)
        and not isinstance(Y, str)
        and any(isinstance(r, Mapping) for r in Y)
    ):
        if len(Y) != n:
            raise ValueError(f"y has {len(Y)} rows for {n} points")
        rows = np.full((n, m), np.nan)
        for i, r in enumerate(Y):
            if r is not None:
                try:
                    rows[i] = objective.outputs(r)
                except ValueError as e:
                    raise ValueError(f"y[{i}]: {e}") from None
        return rows
    if isinstance(Y, Sequence) and not isinstance(Y, str):
        Y = [np.full(m, np.nan) if r is None else r for r in Y]
    try:
        rows = np.asarray(Y, dtype=float)
    except (TypeError, ValueError) as e:
        raise TypeError(f"y must be rows of {m} numbers {list(objective.names)}: {e}") from None
    if rows.ndim == 1 and rows.shape[0] == m and n == 1:
        rows = rows.reshape(1, m)
    if rows.shape != (n, m):
        raise ValueError(
            f"y has shape {rows.shape}; expected ({n}, {m}): one row of outputs "
            f"{list(objective.names)} per point"
        )
    return rows


def _shown(x: Any) -> str:
    """A point for a summary line: reals to 6 significant digits."""
    if isinstance(x, Mapping):
        return "{" + ", ".join(f"{k!r}: {_shown(v)}" for k, v in x.items()) + "}"
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6, separator=", ")
    return f"{x:.6g}" if isinstance(x, float) else repr(x)


@dataclass(repr=False)
class Result:
    """Outcome of :func:`isoline.optimize` (points in user units, values as the objective
    returned them, in evaluation order; ``x`` and ``fun`` the best in ``direction``). Its
    ``repr`` summarizes the run; the fields hold every evaluation."""

    x: Any
    fun: float
    x_iters: Any
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
    #: what ``method="auto"`` chose and why (as :attr:`Optimizer.choice`), else ``None``;
    #: ``method`` and ``options`` are then the chosen ones
    choice: Choice | None = None
    #: ``"minimize"`` or ``"maximize"``: the direction ``x``, ``fun`` and
    #: :meth:`best_so_far` are the best in
    direction: str = "minimize"
    #: the search space (``None`` for a Result built by hand)
    space: Box | Space | None = None
    #: the stored trials behind the evaluations (numbers, batches, start and end times)
    trials: list[Trial] = field(default_factory=list, repr=False)
    #: why the call that made this result ended (:func:`isoline.minimize`: its budget was
    #: used, ``max_time`` passed, or the callback asked to stop; :func:`isoline.load` gives
    #: the last call's reason while no trial was stored after it); ``""`` if not known
    stop_reason: str = ""
    #: the specification (objectives, directions, constraints) the values follow
    objective: Objective = field(default_factory=Objective)
    #: ``(n, m)`` every evaluation's outputs in :attr:`output_names` order, user units
    #: (NaN where failed); ``None`` for a Result built by hand (then ``func_vals``)
    outputs: np.ndarray | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        head = f"{self.n_evals} evaluations of {self.method} (seed {self.seed}), {self.n_failed} failed"
        lines = [f"Result: {head}" + (f"; {self.stop_reason}" if self.stop_reason else "")]
        o = self.objective
        if not o.single:
            lines.append(f"  outputs: {o.describe()}")
            lines.append(f"  feasible: {int(self.feasible.sum())} of {self.n_evals} evaluations")
        if o.n_objectives > 1:
            k = len(o.pareto_indices(self.values))
            lines.append(f"  Pareto front: {k} configuration{'s' * (k != 1)} (.pareto_front())")
        elif self.x is None:
            lines.append(f"  best: none (no finite{' feasible' * bool(o.constraints)} value)")
        else:
            best = "best feasible" if o.constraints else "best"
            lines.append(
                f"  {best} ({self.direction}): fun = {self.fun:.6g} at x = {_shown(self.x)}"
            )
        if self.choice is not None:
            lines.append(f"  auto chose {self.choice.method}: {self.choice.rule}")
        lines.append(f"  study {self.study!r} in {self.storage!r}")
        return "\n".join(lines)

    @property
    def values(self) -> np.ndarray:
        """``(n, m)`` every evaluation's row of outputs (objectives then constraints)."""
        if self.outputs is not None:
            return self.outputs
        return np.asarray(self.func_vals, dtype=float).reshape(-1, 1)

    @property
    def output_names(self) -> tuple[str, ...]:
        return self.objective.names

    @property
    def directions(self) -> tuple[str, ...]:
        return self.objective.directions

    @property
    def feasible(self) -> np.ndarray:
        """``(n,)`` whether each evaluation is feasible (finite, every constraint <= 0)."""
        return self.objective.feasible(self.values)

    @property
    def feasible_found(self) -> bool:
        return bool(self.feasible.any())

    def pareto_front(self) -> tuple[Any, np.ndarray]:
        """``(configs, values (k, m))`` of the feasible evaluations no other feasible one
        dominates (in evaluation order)."""
        idx = self.objective.pareto_indices(self.values)
        X = self.x_iters
        configs = X[idx] if isinstance(X, np.ndarray) else [X[i] for i in idx]
        return configs, self.values[idx]

    @property
    def reference_point(self) -> np.ndarray:
        """The reference point :meth:`hypervolume` uses when given none, inferred from
        the whole run's feasible Pareto front
        (:meth:`isoline.objective.Objective.reference_point`: the front's nadir moved 10%
        of the front's range further in the worse direction of each objective)."""
        return self.objective.reference_point(self.values)

    def hypervolume(self, ref: Any = None) -> float:
        """The hypervolume the feasible Pareto front dominates up to ``ref`` (user units;
        :attr:`reference_point` if ``None``).

        Raises:
            ValueError: ``ref`` is malformed, or no feasible evaluation dominates it.
        """
        r = self.reference_point if ref is None else self.objective.check_reference(ref)
        hv = self.objective.hypervolume(self.values, r)
        if ref is not None and hv == 0.0:
            raise ValueError(
                f"no feasible evaluation dominates the reference point {r.tolist()}; "
                "give one that is worse than some evaluation in every objective"
            )
        return hv

    def hypervolume_history(self, ref: Any = None) -> np.ndarray:
        """``(n,)`` the hypervolume after each evaluation (against ``ref`` or
        :attr:`reference_point`)."""
        r = self.reference_point if ref is None else self.objective.check_reference(ref)
        return self.objective.hypervolume_history(self.values, r)

    @property
    def n_evals(self) -> int:
        return int(len(self.func_vals))

    @property
    def n_failed(self) -> int:
        return int(sum(s == "failed" for s in self.status))

    def best_so_far(self) -> np.ndarray:
        """``(n,)`` running best (minimum, or maximum when maximizing) of the finite values
        (NaN before the first one)."""
        if self.outputs is None:
            return Objective(self.direction).running_best(self.func_vals)
        return self.objective.running_best(self.values)

    def plot(self, ax: Any = None, label: str | None = None) -> Any:
        """Convergence plot (:func:`isoline.visualization.plot_history`: the best value so
        far and every value against evaluations); returns the axes."""
        from isoline.visualization import plot_history

        fig = plot_history(self, ax=ax, label=label)
        return ax if ax is not None else fig.axes[0]

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with one row per evaluation
        (:func:`isoline.evaluations.to_dataframe` lists the columns)."""
        from isoline.evaluations import to_dataframe

        return to_dataframe(self)

    @classmethod
    def from_trials(
        cls,
        rec: StudyRecord,
        trials: list[Trial],
        storage: str,
        space: SearchSpace | None = None,
    ) -> Result:
        """The result of a stored study. The points are those of ``space`` (decoded from
        the stored unit-cube points, so a typed space's choices keep their own objects);
        without ``space``, a box study's ``(n, d)`` arrays or a typed study's configurations
        as stored."""
        done = [t for t in trials if t.status != "pending"]
        if space is None and "lower" in rec.space:
            space = Box.from_dict(rec.space)
        X: Any
        copy: Any = dict
        if space is None:
            X = [dict(t.x) for t in done]
        else:
            X = space.stored_points([t.x for t in done], [t.u for t in done])
            copy = space.copy_point
        y = np.array([np.nan if t.y is None else t.y for t in done], dtype=float)
        objective = study_objective(rec)
        outputs = None
        if not objective.single:
            m = objective.n_outputs
            outputs = np.array(
                [
                    t.outputs
                    if t.outputs is not None and len(t.outputs) == m
                    else np.full(m, np.nan)
                    for t in done
                ]  # fmt: skip
            ).reshape(-1, m)
        best = None
        if objective.n_objectives == 1:
            best = objective.best_index(y if outputs is None else outputs)
        return cls(
            x=None if best is None else copy(X[best]),
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
            choice=Choice.from_dict(rec.attrs["auto"]) if rec.attrs.get("auto") else None,
            direction=objective.directions[0],
            objective=objective,
            outputs=outputs,
            space=cast("Box | Space | None", space),  # the two SearchSpaces there are
            trials=done,
        )


def study_objective(rec: StudyRecord) -> Objective:
    """The objective a study recorded (a study from before directions minimized)."""
    return Objective.from_dict(rec.attrs.get("objective"))
