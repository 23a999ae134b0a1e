"""The one interface every optimization method implements.

A method lives in the unit cube ``[0, 1]^d`` and minimizes. It is an ask/tell strategy:
:meth:`Method.ask` returns the next ``(q, d)`` batch, :meth:`Method.tell` receives
observations (``NaN`` marks a failed evaluation). The base class serves the initial design,
keeps every observation, and gives subclasses reproducible randomness: all randomness
comes from ``self.rng`` (a NumPy generator seeded once), so the whole object can be
pickled after any ``ask`` and a restored copy continues the exact same trajectory.

Subclasses implement :meth:`propose` (and may override :meth:`observe` to update state).
Their options are keyword-only ``__init__`` arguments with documented defaults, checked
with :mod:`isoline.validation`; options shared by a family are declared once, in the
family's base class, and the registry collects them along the class hierarchy.

Sign convention (every method follows it):

* methods **minimize** ``f``, and every surrogate (GP, network, forest, Bayesian linear
  regression) is fitted to ``y`` itself, never to ``-y``;
* acquisition functions are **maximized** (BoTorch's convention), so an acquisition is
  written as "larger is better": ``-(mu + beta sigma)``, ``-mu``, an expected improvement
  below the best ``y``, an information gain. BoTorch's own acquisitions get ``-f`` through
  :func:`isoline.acquisition.negated` or their ``maximize=False``;
* a method that searches a sample or a mean directly takes its *argmin*.
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from isoline.designs import initial_design
from isoline.params import Space
from isoline.threads import single_threaded
from isoline.validation import check_batch, check_int

__all__ = ["Method", "check_capability", "failure_value", "variance_floor"]


#: GPyTorch's floor on posterior variances in float64, made for ``y`` of order one
_MIN_VARIANCE = 1e-10


@contextlib.contextmanager
def variance_floor(Y: np.ndarray) -> Iterator[None]:
    """Scale GPyTorch's absolute floor on posterior variances with the outputs' spread.

    GPyTorch clamps every posterior variance at 1e-10 in its output's units; for an
    objective of scale 1e-9 that floor exceeds the real variances and sets the
    exploration terms. Where the standard deviation of the finite values of each column
    of ``Y`` (``(n,)`` or ``(n, m)``) lies outside ``[1e-3, 1e3]``, the floor is multiplied
    by the square of the smallest of the powers of two nearest them
    (:func:`isoline.acquisition.outside_range_unit`): one floor holds for every output's
    model, and one made for an objective of scale 1e4 would hide a constraint's variances.
    While GPyTorch is not imported no model can read the floor, so nothing is done (and
    a method without a GP runs without loading torch).
    """
    if "gpytorch" not in sys.modules:
        yield
        return
    from gpytorch.settings import min_variance

    from isoline.acquisition import outside_range_unit

    cols = [c[np.isfinite(c)] for c in np.atleast_2d(np.asarray(Y, dtype=float).T)]
    units = [outside_range_unit(float(np.std(c))) if c.size > 1 else 1.0 for c in cols]
    unit = min(units, default=1.0)
    if unit == 1.0:
        yield
        return
    with min_variance(double_value=_MIN_VARIANCE * unit**2):
        yield


def check_capability(cls: type[Method], n_objectives: int, n_constraints: int) -> None:
    """Raise ValueError if method class ``cls`` cannot handle ``n_objectives`` objectives
    and ``n_constraints`` constraints, naming the registered methods that can."""
    if not cls.adaptive or (
        n_objectives <= cls.max_objectives and (n_constraints == 0 or cls.supports_constraints)
    ):
        return
    from isoline.methods.registry import capable_methods

    own = "one objective" if cls.max_objectives == 1 else f"up to {cls.max_objectives} objectives"
    own += " with constraints" if cls.supports_constraints else " without constraints"
    want = []
    if n_objectives > 1:
        want.append(f"{n_objectives} objectives")
    if n_constraints:
        want.append("constraints")
    names = capable_methods(n_objectives, n_constraints)
    raise ValueError(
        f"method {cls.name!r} handles {own}; for {' and '.join(want)} use one of: "
        + ", ".join(names)
    )


class Method:
    """Base class of isoline's methods (unit cube, minimization).

    Args:
        dim: number of variables ``d``.
        seed: seed of every random choice the method makes.
        batch_size: the usual number ``q`` of points per :meth:`ask`.
        n_init: initial-design size; ``None`` takes the class default
            :meth:`default_n_init`. It is rounded up to a multiple of ``batch_size``.
        init: initial-design kind, one of :data:`isoline.designs.INIT_DESIGNS`.
        space: the typed :class:`~isoline.params.Space` whose encoding the cube is, if any.
            Then :meth:`ask` serves every point rounded to the configuration it decodes to
            (:meth:`Space.round`), never two points of one configuration in a batch, and
            no configuration already evaluated or pending while unseen ones remain.
        n_objectives: number of objectives the run has (the first columns of a row told).
        n_constraints: number of black-box constraints (the last columns; ``<= 0`` is
            feasible).

    Several objectives or constraints: a method handles up to :attr:`max_objectives`
    objectives, and constraints if :attr:`supports_constraints`; one that does not adapt to
    values (:attr:`adaptive` false) handles any. Beyond that, construction raises a
    ValueError naming the methods that handle the specification.

    Known data: points told that were never served (warm start) take the place of the
    initial-design points nearest to them, one each, so no design point is served next to
    given data.
    """

    name: ClassVar[str] = ""
    family: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    #: one line for the ``isoline methods`` table (a few words)
    summary: ClassVar[str] = ""
    supports_batch: ClassVar[bool] = True
    #: whether :meth:`propose` needs at least two finite observations (model-based methods)
    needs_data: ClassVar[bool] = True
    #: whether the method adapts to observed values (pure designs such as Sobol do not)
    adaptive: ClassVar[bool] = True
    #: whether the method's defaults draw nothing from ``seed`` (every seed the same run);
    #: the conformance suite checks both ways that two seeds give other runs or the same
    deterministic: ClassVar[bool] = False
    default_init: ClassVar[str] = "sobol"
    #: named option sets (``preset=name``): each maps the dimension to options, which
    #: options given explicitly override (see :func:`isoline.methods.registry.make_method`)
    presets: ClassVar[Mapping[str, Callable[[int], dict[str, Any]]]] = {}
    #: how many objectives the method handles (rows told carry them first)
    max_objectives: ClassVar[int] = 1
    #: whether the method handles black-box constraints (the last columns of a row)
    supports_constraints: ClassVar[bool] = False
    #: whether :func:`isoline.minimize` and :class:`~isoline.optimizer.Optimizer` pass the
    #: run's ``budget`` as an option (a method whose search depends on it)
    takes_budget: ClassVar[bool] = False
    #: whether every proposal satisfies a space's known linear constraints
    #: (:attr:`isoline.params.Space.input_constraints`, read from ``space``)
    supports_input_constraints: ClassVar[bool] = False
    #: whether every configuration of a finite space has been proposed (warned once)
    _exhausted = False

    def __init__(
        self,
        dim: int,
        *,
        seed: int = 0,
        batch_size: int = 1,
        n_init: int | None = None,
        init: str | None = None,
        space: Space | None = None,
        n_objectives: int = 1,
        n_constraints: int = 0,
    ) -> None:
        self.dim = check_int(dim, "dim", 1)
        self.n_objectives = check_int(n_objectives, "n_objectives", 1)
        self.n_constraints = check_int(n_constraints, "n_constraints", 0)
        check_capability(type(self), self.n_objectives, self.n_constraints)
        if space is not None:
            if not isinstance(space, Space):
                raise TypeError(f"space must be an isoline.Space, got {type(space).__name__}")
            if space.dim != self.dim:
                raise ValueError(f"space encodes {space.dim} columns but dim is {self.dim}")
        self.space = space
        #: the space's known linear constraints in the cube, ``A u <= c`` (or ``None``)
        self.input_constraints = None if space is None else space.input_constraints
        if self.input_constraints is not None and not self.supports_input_constraints:
            from isoline.methods.registry import input_constraint_methods

            raise ValueError(
                f"method {self.name!r} does not handle a space with linear constraints; "
                f"use one of: {', '.join(input_constraint_methods())}"
            )
        self.seed = check_int(seed, "seed", 0)
        self.batch_size = check_batch(batch_size, "batch_size", self.name, self.supports_batch)
        n_init = self.default_n_init(self.dim) if n_init is None else n_init
        n_init = check_int(n_init, "n_init", 0)
        n_init = int(math.ceil(n_init / self.batch_size) * self.batch_size)
        self.init = self.default_init if init is None else init
        self.rng = np.random.default_rng(self.seed)
        self._init_points = initial_design(self.init, n_init, self.dim, seed=self.seed)
        if self.input_constraints is not None:  # the design's first feasible points
            design = lambda m: initial_design(self.init, m, self.dim, seed=self.seed)  # noqa: E731
            self._init_points = self.input_constraints.sample(design, n_init, self.seed)
        self.n_init = n_init
        self.X = np.empty((0, self.dim))
        #: every row told, ``(n, m)`` internal values (objectives minimized, constraints
        #: ``<= 0`` feasible); a failed evaluation is a row of NaN
        self.Y = np.empty((0, self.n_objectives + self.n_constraints))
        #: the first objective's column of :attr:`Y` (what one-objective methods model)
        self.y = np.empty(0)
        self.n_asked = 0
        #: initial-design points not served yet
        self._design = self._init_points.copy()
        #: served row (bytes) -> the rows as proposed, in serving order, until told
        self._served: dict[bytes, list[np.ndarray]] = {}
        #: points evaluated elsewhere (add_pending), by served row, until told
        self._elsewhere: dict[bytes, np.ndarray] = {}
        #: rounded rows (bytes) of every configuration evaluated or pending (typed spaces)
        self._seen: set[bytes] = set()

    @classmethod
    def default_n_init(cls, dim: int) -> int:
        """Initial-design size used when ``n_init`` is not given."""
        return max(2, min(2 * dim, 20)) if cls.needs_data else 0

    @classmethod
    def settled_options(
        cls, options: dict[str, Any], n_objectives: int, batch_size: int
    ) -> dict[str, Any]:
        """``options`` (all of them, defaults filled in) with each value the method settles
        at run time (such as ``"auto"``) replaced by what it settles to for ``n_objectives``
        objectives and batches of up to ``batch_size`` points, where that is fixed by them;
        options that do not act on such a problem are dropped. Equal settled options give
        equal runs (:mod:`isoline.bench.twins`)."""
        return dict(options)

    # -- public ask/tell ---------------------------------------------------------------
    def ask(self, q: int | None = None) -> np.ndarray:
        """Return the next ``(q, d)`` points in the unit cube.

        :meth:`propose` and :meth:`observe` run on one torch and one BLAS thread, so a seed gives the same
        trajectory on any machine (a different thread count changes the order of
        floating-point sums, which a model-based search can amplify into different points).
        """
        q = self.batch_size if q is None else check_batch(q, "n", self.name, self.supports_batch)
        if len(self._design):
            X, self._design = self._design[:q], self._design[q:]
            if len(X) < q:
                X = np.vstack([X, self.uniform(q - len(X))])
        elif self.needs_data and np.isfinite(self.y).sum() < 2:
            X = self.uniform(q)
        else:
            with single_threaded(), variance_floor(self.Y):
                X = np.asarray(self.propose(q), dtype=float)
            if X.shape != (q, self.dim):
                raise RuntimeError(
                    f"{type(self).__name__}.propose returned shape {X.shape}, "
                    f"expected {(q, self.dim)}"
                )
            if not np.all(np.isfinite(X)):
                raise RuntimeError(f"{type(self).__name__}.propose returned non-finite points")
        self.n_asked += q
        proposed = np.clip(X, 0.0, 1.0)
        if self.input_constraints is not None:  # a solver's slack, never a search step
            proposed = self.input_constraints.repair(proposed)
        served = proposed if self.space is None else self._distinct(proposed)
        for p, s in zip(proposed, served):
            self._served.setdefault(s.tobytes(), []).append(p)
        return served

    def _distinct(self, X: np.ndarray) -> np.ndarray:
        """``X`` rounded to configurations, each unseen one kept and every repeat replaced
        by an unseen configuration near it (a repeat stays only if none is left)."""
        assert self.space is not None
        R = self.space.round(X)
        for i, r in enumerate(R):
            key = r.tobytes()
            if key in self._seen:
                alt = self._unseen_near(r)
                if alt is not None:
                    R[i], key = alt, alt.tobytes()
            self._seen.add(key)
        return R

    def _unseen_near(self, u: np.ndarray) -> np.ndarray | None:
        """An unseen configuration near ``u``: Gaussian steps of growing width, then
        uniform draws, then (finite spaces) every configuration; ``None`` if none is left."""
        assert self.space is not None
        total = self.space.n_configs
        if total is not None and len(self._seen) >= total:
            if not self._exhausted:
                warnings.warn(f"all {total} configurations of the space have been proposed; "
                              "further proposals repeat them", RuntimeWarning, stacklevel=2)  # fmt: skip
                self._exhausted = True
            return None
        for width in (0.05, 0.15, 0.5, None):
            steps = self.rng.random((64, self.dim))
            if width is not None:
                steps = u + width * self.rng.standard_normal((64, self.dim))
            for r in self.space.round(np.clip(steps, 0.0, 1.0)):
                lin = self.input_constraints
                if r.tobytes() not in self._seen and (lin is None or lin.feasible(r)[0]):
                    return r
        if total is None:
            return None
        left = [r for r in self.space.round(self.space.grid()) if r.tobytes() not in self._seen]
        return left[int(self.rng.integers(len(left)))] if left else None

    def uniform(self, q: int) -> np.ndarray:
        """``(q, d)`` uniform points from :attr:`rng`: of the cube, or of its feasible part
        when the space has :attr:`input_constraints`."""
        if self.input_constraints is None:
            return self.rng.random((q, self.dim))
        seed = int(self.rng.integers(2**31 - 1))
        return self.input_constraints.sample(lambda m: self.rng.random((m, self.dim)), q, seed)

    @property
    def n_outputs(self) -> int:
        """``m``: objectives plus constraints, the length of a row told."""
        return self.n_objectives + self.n_constraints

    def tell(self, X: np.ndarray, y: np.ndarray) -> None:
        """Record observations: ``X`` ``(n, d)`` unit cube and internal values ``y``:
        ``(n,)`` with one output, ``(n, m)`` rows otherwise (objectives minimized, then
        constraints, ``<= 0`` feasible). A row with a NaN or inf anywhere is a failed
        evaluation (kept as a row of NaN)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        Y = np.asarray(y, dtype=float)
        m = self.n_outputs
        if Y.ndim == 1 and (m == 1 or (Y.shape[0] == m and X.shape[0] == 1)):
            Y = Y.reshape(-1, m)
        if X.ndim != 2 or X.shape[1] != self.dim or Y.shape != (X.shape[0], m):
            want = "(n,)" if m == 1 else f"(n, {m})"
            raise ValueError(
                f"tell got X {X.shape} and y {Y.shape}; expected (n, {self.dim}), {want}"
            )
        Y = np.where(np.isfinite(Y).all(axis=1, keepdims=True), Y, np.nan)
        y = Y[:, 0].copy()
        self.X = np.vstack([self.X, X if self.space is None else self.space.round(X)])
        self.Y = np.vstack([self.Y, Y])
        self.y = self.Y[:, 0]
        proposed = X.copy()
        known = []
        for i, x in enumerate(X):
            self._elsewhere.pop(x.tobytes(), None)
            row = self._unserve(x)
            if row is None:
                known.append(i)
            else:
                proposed[i] = row
        if known:
            self._cover_design(X[known])
        with single_threaded():
            self.observe(proposed, y)

    def add_pending(self, X: np.ndarray) -> None:
        """Points being evaluated elsewhere (e.g. by other workers), until told: they are
        in :meth:`pending`, and on a typed space their configurations are not served again
        while unseen ones remain."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        rows = np.clip(X, 0.0, 1.0) if self.space is None else self.space.round(X)
        for r in rows:
            self._elsewhere[r.tobytes()] = r
        if self.space is not None:
            self._seen.update(r.tobytes() for r in rows)

    def withdraw(self, X: np.ndarray) -> None:
        """Served points ``X (n, d)`` that will never be told (e.g. a proposal another
        worker claimed first): they leave :meth:`pending`."""
        for x in np.atleast_2d(np.asarray(X, dtype=float)):
            self._unserve(x)

    def _unserve(self, x: np.ndarray) -> np.ndarray | None:
        """Take the earliest served proposal of row ``x`` off the pending ones; return it
        as proposed (before rounding), or ``None`` if ``x`` was not served."""
        rows = self._served.get(x.tobytes())
        if not rows:
            return None
        row = rows.pop(0)
        if not rows:
            del self._served[x.tobytes()]
        return row

    def pending(self) -> np.ndarray:
        """``(m, d)`` points being evaluated: served and not yet told, and those of
        :meth:`add_pending`. A model-based method can condition its next proposal on them
        (e.g. as BoTorch's ``X_pending``), so asynchronous workers spread out."""
        served = [np.frombuffer(k, dtype=float) for k, v in self._served.items() for _ in v]
        rows = served + [r for k, r in self._elsewhere.items() if k not in self._served]
        return np.array(rows).reshape(-1, self.dim)

    def enqueue(self, X: np.ndarray) -> None:
        """Serve the ``(n, d)`` unit-cube points ``X`` first, in order, each in place of the
        unserved initial-design point nearest it."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if X.shape[1] != self.dim or not np.all((X >= 0.0) & (X <= 1.0)):
            raise ValueError(f"enqueue needs points of shape (n, {self.dim}) in [0, 1]")
        lin = self.input_constraints
        if lin is not None and not lin.feasible(X).all():
            raise ValueError("enqueue got points that violate the space's linear constraints")
        self._drop_nearest_design(X)
        self._design = np.vstack([X, self._design])

    def _cover_design(self, X: np.ndarray) -> None:
        """Known points take the place of the unserved design points nearest them."""
        if self.space is not None:
            self._seen.update(r.tobytes() for r in self.space.round(X))
        self._drop_nearest_design(X)

    def _drop_nearest_design(self, X: np.ndarray) -> None:
        for x in X:
            if not len(self._design):
                return
            nearest = int(np.argmin(np.sum((self._design - x) ** 2, axis=1)))
            self._design = np.delete(self._design, nearest, axis=0)

    # -- for subclasses ----------------------------------------------------------------
    def propose(self, q: int) -> np.ndarray:
        """Return the next ``(q, d)`` unit-cube points after the initial design."""
        raise NotImplementedError

    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        """Hook called by :meth:`tell` with the new ``(n, d)`` points and ``(n,)`` values
        of the first objective (a method handling several outputs reads the new rows
        from the end of :attr:`Y`).

        Points that :meth:`ask` served come back as :meth:`propose` returned them (on a
        typed space :meth:`ask` may have rounded or replaced them; :attr:`X` holds the
        evaluated ones, which :meth:`data` gives to surrogates)."""

    def data(self, impute: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Observations so far as ``(X (n, d), y (n,))``.

        With ``impute`` failed evaluations get the worst finite value seen (so models
        steer away from regions that fail); otherwise they are dropped.
        """
        ok = np.isfinite(self.y)
        if not impute or ok.all() or not ok.any():
            return self.X[ok], self.y[ok]
        return self.X, np.where(ok, self.y, self.y[ok].max())

    def feasible(self) -> np.ndarray:
        """``(n,)`` whether each row told is feasible: finite, every constraint ``<= 0``."""
        with np.errstate(invalid="ignore"):
            ok = (self.Y[:, self.n_objectives :] <= 0).all(axis=1)
        return np.asarray(np.isfinite(self.Y).all(axis=1) & ok, dtype=bool)

    @property
    def best(self) -> tuple[np.ndarray, float] | None:
        """``(x, y)`` of the best feasible observation by the first objective, or
        ``None`` when none is feasible."""
        ok = np.flatnonzero(self.feasible())
        if ok.size == 0:
            return None
        i = ok[np.argmin(self.y[ok])]
        return self.X[i].copy(), float(self.y[i])

    @contextlib.contextmanager
    def torch_rng(self) -> Iterator[int]:
        """Seed torch's global generator from ``self.rng`` for the enclosed block.

        BoTorch draws restart points and MC samples from torch's global generator; this
        forks it, so the method's trajectory depends only on ``seed`` and its history.
        """
        import torch

        s = int(self.rng.integers(2**31 - 1))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(s)
            yield s


def failure_value(finite: np.ndarray) -> float:
    """The value a failed evaluation gets in a method that needs a number for it (CMA-ES,
    a trust-region step): the worst finite value seen plus one spread of the finite values
    (at least 1), so the search moves away from the failure; 1 if none is finite."""
    finite = np.asarray(finite, dtype=float)
    worst = float(finite.max()) if finite.size else 0.0
    spread = float(np.ptp(finite)) if finite.size > 1 else 1.0
    return worst + max(spread, 1.0)
