"""Model-free baselines: uniform random search, scrambled Sobol and CMA-ES."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from isoline.designs import sobol
from isoline.methods.base import Method, failure_value
from isoline.methods.registry import register
from isoline.params import Integer, Space
from isoline.validation import check_float, check_int

__all__ = ["RandomSearch", "SobolSearch", "CMAES"]


@register
class RandomSearch(Method):
    """Independent uniform points; the reference every method must beat.

    A known point told before it is drawn (``x0``/``y0``, ``from_history``) takes the place
    of one draw, so a run warm-started with an earlier run's evaluations and seed goes on
    where that run stopped instead of drawing its points again.
    """

    name = "random"
    summary = "uniform random points"
    family = "model-free"
    paper = "Bergstra & Bengio, JMLR 2012 (random search)"
    needs_data = False
    adaptive = False
    default_init = "random"
    supports_input_constraints = True

    def __init__(self, dim: int, **common: Any) -> None:
        super().__init__(dim, **common)
        if self.init == "random" and self.n_init:  # the design drew these from the same seed
            self.rng.random((self.n_init, self.dim))

    def propose(self, q: int) -> np.ndarray:
        return self.uniform(q)

    def _cover_design(self, X: np.ndarray) -> None:
        left = len(self._design)
        super()._cover_design(X)
        self.uniform(max(len(X) - left, 0))  # draws the known points take the place of


@register
class SobolSearch(Method):
    """Points of one scrambled Sobol sequence (scipy.stats.qmc), seeded by ``seed``.

    On a space with known linear constraints it serves the feasible points of that
    sequence in order (the infeasible ones are skipped, so the points kept are a
    low-discrepancy set of the feasible region as far as the sequence covers it). When
    the feasible share is so small that the first ``2^14`` points of the sequence hold
    too few of them, the rest come from the hit-and-run polytope sampler the initial
    designs use (:meth:`~isoline.input_constraints.UnitConstraints.sample`).

    A known point told before it is served (``x0``/``y0``, ``from_history``) takes the
    place of the sequence's next point, so a run warm-started with an earlier run's
    evaluations and seed goes on along the sequence instead of serving them again.
    """

    name = "sobol"
    summary = "scrambled Sobol points"
    family = "model-free"
    paper = "Sobol', USSR Comput. Math. 1967; Owen scrambling"
    needs_data = False
    adaptive = False
    supports_input_constraints = True

    def __init__(self, dim: int, **common: Any) -> None:
        super().__init__(dim, **common)
        #: points of the sequence served by :meth:`propose` so far
        self._n_proposed = 0

    def propose(self, q: int) -> np.ndarray:
        # a Sobol initial design is the sequence's first n_init points: go on after them
        start = self._n_proposed + (self.n_init if self.init == "sobol" else 0)
        self._n_proposed += q
        if self.input_constraints is None:
            return sobol(start + q, self.dim, seed=self.seed)[start:]
        return self.input_constraints.sample(
            lambda m: sobol(m, self.dim, seed=self.seed), q, self.seed + start, start=start
        )

    def _cover_design(self, X: np.ndarray) -> None:
        left = len(self._design)
        super()._cover_design(X)
        self._n_proposed += max(len(X) - left, 0)


#: candidates (in population sizes) drawn for one ask before infeasible ones are repaired
_RESAMPLE = 100


class _Randn:
    """Picklable normal sampler handed to pycma so that it never touches np.random."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, *shape: int) -> np.ndarray:
        return self.rng.standard_normal(shape)


@register
class CMAES(Method):
    """CMA-ES (Hansen & Ostermeier 2001) through pycma's ask/tell interface.

    The search runs in the unit cube with pycma's ``BoundTransform``. ``ask(q)`` hands out
    the current generation's candidates; when they run out before results arrive, more are
    sampled from the same distribution. A generation is told to pycma once ``popsize`` of
    its candidates have values; failed evaluations get the generation's worst finite value
    plus one spread, so CMA-ES moves away from them.

    The first generation is centred on ``x0``, or on the best point told before the first
    proposal (an initial design with ``n_init > 0``, or known data: ``minimize``'s
    ``x0``/``y0``, ``Optimizer.from_history``, an Optuna study's earlier trials), or else
    on the centre. Points told that CMA-ES did not propose inform only that start: the
    strategy's update takes its own generations.

    Known linear constraints of the space: CMA-ES starts at the feasible region's centre
    (unless ``x0`` or a feasible told point is given) and resamples every infeasible
    candidate from the same distribution (they are never evaluated or told): resampling, a
    usual way for an evolution strategy to meet constraints that cost nothing to check.
    Should ``100 popsize`` draws for one ``ask`` not suffice, the remaining candidates are
    moved into the region (:meth:`~isoline.input_constraints.UnitConstraints.repair`) and
    told with the value found there.

    On a typed space, each linear :class:`~isoline.params.Integer` with ``m >= 2`` values
    is searched in its own coordinate ``z = m u - 1/2`` (the value's index, bounds
    ``[0, m - 1]``, step sizes scaled by ``m``) and declared to pycma as an integer
    variable: pycma rounds those coordinates of its samples, centres them on integers and
    keeps a floor on their step sizes, so the search does not stall on one value.
    Log-scaled integers and categoricals use the relaxed encoding.

    Options:
        sigma0: initial step size in unit-cube coordinates; default 1/6 (a sixth of each
            range, the value Optuna's ``CmaEsSampler`` uses; the earlier 0.25 ranked
            behind Optuna's sampler on BBOB).
        popsize: population size; default pycma's ``4 + 3 ln d``, raised to ``batch_size``.
        x0: ``(d,)`` start in the unit cube; default the best told point, else the centre.

    Black-box constraints (``n_constraints > 0``, values ``<= 0`` feasible) go through
    pycma's augmented Lagrangian, :class:`cma.ConstrainedFitnessAL` (Atamna, Auger and
    Hansen): each candidate of a generation is ranked by its objective plus the penalty
    ``lam g + mu g^2 / 2`` of each constraint (for ``g > -lam / mu``), and after each
    generation pycma sets the coefficients ``lam`` and ``mu`` from the generation's values
    and adapts them, so that the search settles on the best feasible point. Objective and
    constraint values come from the same evaluation; a failed one gets the generation's
    worst penalized value plus one spread.

    References:
        N. Hansen and A. Ostermeier. Completely derandomized self-adaptation in evolution
        strategies. Evolutionary Computation 9(2), 2001.
        A. Atamna, A. Auger and N. Hansen. Augmented Lagrangian constraint handling for
        CMA-ES: case of a single linear constraint. PPSN 2016; and Linearly convergent
        evolution strategies via augmented Lagrangian constraint handling. FOGA 2017.
    """

    name = "cma-es"
    summary = "CMA-ES evolution strategy (pycma)"
    family = "evolution strategy"
    paper = "Hansen & Ostermeier, Evol. Comput. 2001"
    needs_data = False
    supports_constraints = True
    supports_input_constraints = True

    def __init__(
        self,
        dim: int,
        *,
        sigma0: float = 1 / 6,
        popsize: int | None = None,
        x0: list[float] | None = None,
        **common: Any,
    ) -> None:
        super().__init__(dim, **common)
        sigma0 = check_float(sigma0, "sigma0", 0.0, 1.0, low_open=True)
        if popsize is None:
            popsize = 4 + int(3 * np.log(dim))
        popsize = max(check_int(popsize, "popsize", 2), self.batch_size)
        start = np.full(dim, 0.5) if x0 is None else np.asarray(x0, dtype=float)
        if x0 is None and self.input_constraints is not None:  # a feasible start
            start = self.input_constraints.centre.copy()
        if start.shape != (dim,) or np.any((start < 0) | (start > 1)):
            raise ValueError(f"x0 must be {dim} numbers in [0, 1], got {x0!r}")
        #: whether the first generation may move to the best told point (no ``x0`` given)
        self._start_at_best = x0 is None
        self._sigma0 = sigma0
        #: ``(column, m)`` of the integers searched in index coordinates
        self._integers = _integer_columns(self.space)
        self._options: dict[str, Any] = {
            "bounds": [0.0, 1.0],
            "popsize": popsize,
            "randn": _Randn(self.rng),
            "seed": self.seed + 1,
            "verbose": -9,
            "verb_log": 0,
            "verb_disp": 0,
        }
        if self._integers:
            upper, stds = np.ones(dim), np.ones(dim)
            for c, m in self._integers:
                upper[c], stds[c] = m - 1, m
            self._options.update(
                bounds=[[0.0] * dim, upper.tolist()],
                integer_variables=[c for c, _ in self._integers],
                CMA_stds=stds.tolist(),
            )
        self.es = self._strategy(start)
        self._queue: list[np.ndarray] = []
        #: served unit-cube point (bytes) -> pycma's solution it came from
        self._pending: dict[bytes, np.ndarray] = {}
        self._told: list[tuple[np.ndarray, np.ndarray]] = []
        self._al = _Lagrangian(dim) if self.n_constraints else None

    def _strategy(self, start: np.ndarray) -> Any:
        """pycma's strategy centred on ``start`` (unit cube)."""
        import cma  # pycma, imported when a CMA-ES is built

        z = start.copy()
        for c, m in self._integers:
            z[c] = start[c] * m - 0.5
        return cma.CMAEvolutionStrategy(z, self._sigma0, dict(self._options))

    def _to_unit(self, z: np.ndarray) -> np.ndarray:
        u = z.copy()
        for c, m in self._integers:
            u[c] = (z[c] + 0.5) / m
        return u

    def propose(self, q: int) -> np.ndarray:
        if self._start_at_best:
            self._start_at_best = False
            best = self.best
            if best is not None and (
                self.input_constraints is None or self.input_constraints.feasible(best[0])[0]
            ):
                self.es = self._strategy(best[0])
        drawn = 0
        while len(self._queue) < q:
            n = self.es.popsize if not self._pending else max(q - len(self._queue), 1)
            zs = [np.asarray(s, dtype=float) for s in self.es.ask(n)]
            drawn += n
            if self.input_constraints is not None and drawn <= _RESAMPLE * self.es.popsize:
                zs = [z for z in zs if self.input_constraints.feasible(self._to_unit(z))[0]]
            self._queue.extend(zs)
        out, self._queue = self._queue[:q], self._queue[q:]
        units = [self._to_unit(z) for z in out]
        for u, z in zip(units, out):
            self._pending[u.tobytes()] = z
        return np.array(units)

    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        for x, row in zip(X, self.Y[len(self.Y) - len(X) :]):
            z = self._pending.pop(x.tobytes(), None)
            if z is not None:
                self._told.append((z, row))
        if len(self._told) < self.es.popsize:
            return
        xs = [x for x, _ in self._told]
        rows = np.array([r for _, r in self._told])
        vals = rows[:, 0] if self._al is None else self._al.fitness(xs, rows)
        ok = np.isfinite(vals)
        if not ok.all():
            vals = np.where(ok, vals, failure_value(vals[ok]))
        with warnings.catch_warnings():  # resampled candidates are never told
            warnings.filterwarnings("ignore", message=r"\s*tell: .* not been consumed")
            self.es.tell(xs, vals.tolist())
        if self._al is not None:
            self._al.update(self.es)
        self._told, self._queue, self._pending = [], [], {}


class _Lagrangian:
    """pycma's augmented Lagrangian (:class:`cma.ConstrainedFitnessAL`) fed with values
    evaluated elsewhere: its objective and constraint functions read the outputs row of
    the candidate being ranked. Picklable, so a pickled CMA-ES resumes exactly."""

    def __init__(self, dim: int) -> None:
        import cma
        from cma import constraints_handler

        self._row = np.empty(0)
        self.cfun = cma.ConstrainedFitnessAL(
            self._objective, self._constraints, dimension=dim, archives=False, logging=0
        )
        # pycma's Lagrangian opens loggers (and an ``outcmaes/`` folder in the working
        # directory) when it is built; its module names the logger class to swap for none
        built = constraints_handler._Logger
        constraints_handler._Logger = cma.logger.LoggerDummy
        try:
            self.cfun.al.logging = 0
        finally:
            constraints_handler._Logger = built

    def _objective(self, x: np.ndarray) -> float:
        return float(self._row[0])

    def _constraints(self, x: np.ndarray) -> list[float]:
        return [float(g) for g in self._row[1:]]

    def fitness(self, xs: list[np.ndarray], rows: np.ndarray) -> np.ndarray:
        """Penalized value of each candidate (NaN where its evaluation failed)."""
        out = np.full(len(xs), np.nan)
        for i, (x, row) in enumerate(zip(xs, rows)):
            if np.isfinite(row).all():
                self._row = row
                out[i] = self.cfun(x)
        return out

    def update(self, es: Any) -> None:
        """Set and adapt the coefficients after a generation was told."""
        with warnings.catch_warnings():
            # pycma warns when a generation's values have no spread to set them from
            warnings.simplefilter("ignore", UserWarning)
            self.cfun.update(es)


def _integer_columns(space: Space | None) -> list[tuple[int, int]]:
    """``(column, number of values)`` of each linear Integer of ``space`` with two or more
    values (the ones pycma's integer handling applies to)."""
    if space is None:
        return []
    return [
        (space.blocks[name].start, p.high - p.low + 1)
        for name, p in space.params.items()
        if isinstance(p, Integer) and not p.log and p.high > p.low
    ]
