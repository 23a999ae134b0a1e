"""User-facing optimization: the ask/tell :class:`Optimizer` and the :class:`Result` of a run
(:func:`isoline.runs.minimize` drives the whole loop)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from isoline.auto import AUTO, Choice, resolve
from isoline.methods.registry import make_method
from isoline.parallel import as_real
from isoline.params import Space
from isoline.space import Box
from isoline.store import StudyRecord, Trial
from isoline.validation import check_sequence

__all__ = ["Optimizer", "Result"]

#: largest seed a study can record (SQLite integers are signed 64-bit)
MAX_SEED = 2**63 - 1


class Optimizer:
    """Ask/tell interface in the user's units.

    Args:
        space: the search :class:`Box` (points are ``(d,)`` arrays) or typed
            :class:`~isoline.params.Space` (points are configuration dicts).
        method: a registered method name (see :func:`isoline.methods`), or ``"auto"``
            (default): the method and options :func:`isoline.auto.choose` picks for the
            space, the batch size and the options ``budget`` (if known) and ``noisy``
            (default ``False``); :attr:`choice` says what it chose and why.
        seed: seed of every random choice; the same seed gives the same points.
        batch_size: points per :meth:`ask`.
        n_init: initial-design size (method default if ``None``).
        init: initial design, ``"sobol"``, ``"random"`` or ``"lattice"``.
        **options: the method's own options (``budget`` and ``noisy`` for ``"auto"``).

    Attributes:
        method_name: the method that proposes (auto's choice for ``"auto"``).
        options: that method's options.
        choice: the :class:`~isoline.auto.Choice` of ``"auto"``, else ``None``.

    Example:
        >>> opt = Optimizer(Box([-1, -1], [1, 1]), "gp-ei", seed=0)
        >>> X = opt.ask(); opt.tell(X, [float(np.sum(X**2))])
    """

    def __init__(
        self,
        space: Box | Space,
        method: str = AUTO,
        seed: int = 0,
        batch_size: int = 1,
        n_init: int | None = None,
        init: str | None = None,
        **options: Any,
    ) -> None:
        if not isinstance(space, (Box, Space)):
            raise TypeError(f"space must be an isoline.Box or Space, got {type(space).__name__}")
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed > MAX_SEED:
            raise ValueError(f"seed must be <= 2**63 - 1, got {seed}")
        self.space = space
        method, options, choice = resolve(method, space, batch_size, options)
        self.choice: Choice | None = choice
        self.method_name = method
        self.options = dict(options)
        common: dict[str, Any] = {
            "seed": seed,
            "batch_size": batch_size,
            "n_init": n_init,
            "init": init,
        }
        if isinstance(space, Space):
            common["space"] = space
        self.method = make_method(method, space.dim, **common, **options)
        self._asked: dict[bytes | str, np.ndarray] = {}

    @classmethod
    def from_history(
        cls, space: Box | Space, X: Any, y: Any, method: str = AUTO, **kwargs: Any
    ) -> Optimizer:
        """An optimizer that starts from known evaluations ``X``, ``y`` (as :meth:`tell`
        takes them); ``**kwargs`` as the constructor's. The known points take the place of
        the initial-design points nearest them."""
        opt = cls(space, method, **kwargs)
        opt.tell(X, y)
        return opt

    def enqueue(self, X: Any) -> None:
        """Ask the points ``X`` first (an ``(n, d)`` array in user units for a Box, a list
        of configurations for a Space), each in place of the nearest initial-design point.

        Raises:
            ValueError, TypeError: as :meth:`tell` for a bad point.
        """
        if isinstance(self.space, Space):
            U = self.space.to_unit(_check_tell_configs(X, self.space))
        else:
            U = np.clip(self.space.to_unit(_check_tell_points(X, self.space)), 0.0, 1.0)
        self.method.enqueue(U)

    def add_pending(self, X: Any) -> None:
        """Points being evaluated elsewhere (as :meth:`tell` takes them), until told:
        model-based methods that condition on pending points take them into account, and
        on a typed space :meth:`ask` does not propose their configurations again while
        unseen ones remain."""
        if isinstance(self.space, Space):
            self.method.add_pending(self.space.to_unit(_check_tell_configs(X, self.space)))
        else:
            self.method.add_pending(
                np.clip(self.space.to_unit(_check_tell_points(X, self.space)), 0, 1)
            )

    def withdraw(self, X: Any) -> None:
        """Asked points (as :meth:`tell` takes them) that will never be told, e.g. a
        proposal another worker claimed first: the method stops treating them as pending."""
        if isinstance(self.space, Space):
            self.method.withdraw(self.space.to_unit(_check_tell_configs(X, self.space)))
        else:
            self.method.withdraw(
                np.clip(self.space.to_unit(_check_tell_points(X, self.space)), 0, 1)
            )

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
            self._asked[self._key(x)] = u
        return X, U

    def _key(self, x: Any) -> bytes | str:
        return Space.key(x) if isinstance(self.space, Space) else np.asarray(x).tobytes()

    def tell(self, X: Any, y: Any) -> None:
        """Record ``y`` ``(n,)`` at ``X`` ``(n, d)``; NaN/inf/None mark failed evaluations.

        ``X`` may hold points that were never asked (known data); they must lie in the box.

        Raises:
            ValueError: ``X`` is empty, has the wrong shape, holds NaN/inf or points outside
                the box, or ``y`` has another length.
            TypeError: a value of ``y`` is not a real number (or None).
        """
        if isinstance(self.space, Space):
            configs = _check_tell_configs(X, self.space)
            y = _check_tell_values(y, len(configs))
            known = [self._asked.pop(Space.key(c), None) for c in configs]
            rows = [
                u if u is not None else self.space.to_unit([c])[0] for u, c in zip(known, configs)
            ]
            self.method.tell(np.array(rows), y)
            return
        X = _check_tell_points(X, self.space)
        y = _check_tell_values(y, X.shape[0])
        U = np.array([self._asked.pop(x.tobytes(), None) for x in X], dtype=object)
        missing = np.array([u is None for u in U])
        Uarr = np.empty_like(X)
        if missing.any():
            Uarr[missing] = np.clip(self.space.to_unit(X[missing]), 0.0, 1.0)
        if (~missing).any():
            Uarr[~missing] = np.stack(list(U[~missing]))
        self.method.tell(Uarr, y)

    @property
    def best(self) -> tuple[Any, float] | None:
        """``(x, y)`` of the best finite observation in user units, or ``None``."""
        b = self.method.best
        return None if b is None else (self.space.from_unit(b[0][None])[0], b[1])

    @property
    def history(self) -> tuple[Any, np.ndarray]:
        """All observations ``(X, y (n,))`` (``X`` as :meth:`ask` gives points); failed ones
        have NaN."""
        return self.space.from_unit(self.method.X), self.method.y.copy()


def _check_tell_points(X: Any, space: Box) -> np.ndarray:
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as e:
        raise TypeError(f"X must be an array of numbers: {e}") from None
    if X.size == 0:
        raise ValueError(f"tell needs at least one point, got X of shape {X.shape}")
    X = np.atleast_2d(X)
    if X.ndim != 2 or X.shape[1] != space.dim:
        raise ValueError(f"X must have shape (n, {space.dim}), got {X.shape}")
    bad = np.flatnonzero(~np.all(np.isfinite(X), axis=1))
    if bad.size:
        raise ValueError(f"X row {int(bad[0])} is not finite: {X[bad[0]].tolist()}")
    out = np.flatnonzero(~space.contains(X))
    if out.size:
        raise ValueError(
            f"X row {int(out[0])} lies outside the search box: {X[out[0]].tolist()} "
            f"(lower {space.lower.tolist()}, upper {space.upper.tolist()})"
        )
    return X


def _check_tell_configs(X: Any, space: Space) -> list[dict[str, Any]]:
    """``X`` as a non-empty list of configurations of ``space`` (each checked)."""
    configs = [X] if isinstance(X, Mapping) else list(X)
    if not configs:
        raise ValueError("tell got no configurations")
    for c in configs:
        if not isinstance(c, Mapping):
            raise TypeError(f"a Space takes configurations as dicts, got {type(c).__name__}")
    space.to_unit(configs)  # names the parameter of any bad value
    return [dict(c) for c in configs]


def _check_tell_values(y: Any, n: int) -> np.ndarray:
    values = check_sequence(y, "y", n)
    out = np.empty(len(values))
    for i, v in enumerate(values):
        try:
            out[i] = np.nan if v is None else as_real(v)
        except TypeError as e:
            raise TypeError(f"y[{i}]: {e}") from None
    return out


@dataclass
class Result:
    """Outcome of :func:`minimize` (arrays in user units, evaluation order)."""

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
    #: what ``method="auto"`` chose and why (:meth:`isoline.auto.Choice.to_dict`), else
    #: ``None``; ``method`` and ``options`` are then the chosen ones
    choice: dict[str, Any] | None = None
    #: the search space (``None`` for a Result built by hand)
    space: Box | Space | None = None
    #: the stored trials behind the evaluations (numbers, batches, start and end times)
    trials: list[Trial] = field(default_factory=list, repr=False)
    #: why the call that made this result ended (:func:`isoline.minimize`: its budget was
    #: used, ``max_time`` passed, or the callback asked to stop); ``""`` if not known
    stop_reason: str = ""

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
        cls, rec: StudyRecord, trials: list[Trial], storage: str, space: Box | Space | None = None
    ) -> Result:
        """The result of a stored study; with a typed ``space`` the points are its
        configurations (decoded from the stored unit-cube points, so choices keep their
        own objects), otherwise ``(n, d)`` arrays."""
        done = [t for t in trials if t.status != "pending"]
        X: Any
        if isinstance(space, Space):
            X = space.from_unit(np.array([t.u for t in done]).reshape(-1, space.dim))
        else:
            d = len(rec.space["lower"])
            X = np.array([t.x for t in done]).reshape(-1, d)
        y = np.array([np.nan if t.y is None else t.y for t in done], dtype=float)
        ok = np.flatnonzero(np.isfinite(y))
        best = ok[np.argmin(y[ok])] if ok.size else None
        return cls(
            x=None
            if best is None
            else (dict(X[best]) if isinstance(space, Space) else X[best].copy()),
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
            choice=rec.attrs.get("auto"),
            space=space if space is not None else Box.from_dict(rec.space),
            trials=done,
        )
