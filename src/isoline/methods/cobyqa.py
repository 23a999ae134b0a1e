"""COBYQA: a derivative-free trust-region method with quadratic models, driven ask/tell."""

from __future__ import annotations

import queue
import threading
from typing import Any

import cobyqa
import numpy as np
from scipy.optimize import Bounds, LinearConstraint, NonlinearConstraint

from isoline.input_constraints import UnitConstraints
from isoline.methods.base import failure_value
from isoline.methods.registry import register
from isoline.methods.replay import ReplayPickled
from isoline.validation import check_bool, check_float

__all__ = ["COBYQA"]


class _Stop(Exception):
    """Ends a run of ``cobyqa.minimize`` from inside its objective."""


#: what the objective of a stopped run receives instead of a value
_STOP = object()


class _Run:
    """One run of ``cobyqa.minimize`` in a daemon thread.

    COBYQA calls the objective; here the objective hands each point to :meth:`next_point`
    and waits until :meth:`give` brings its outputs, so the caller drives the run one
    evaluation at a time. :meth:`next_point` returns ``None`` once the run has converged.
    With ``n_constraints > 0`` the outputs are the objective followed by the constraint
    values (feasible when ``<= 0``), which COBYQA reads through a nonlinear constraint
    right after the objective at the same point: both come from one evaluation.
    """

    def __init__(
        self,
        x0: np.ndarray,
        radius: float,
        final_radius: float,
        n_constraints: int = 0,
        linear: UnitConstraints | None = None,
    ) -> None:
        self._points: queue.Queue[np.ndarray | None] = queue.Queue()
        self._values: queue.Queue[Any] = queue.Queue()
        self._error: BaseException | None = None
        #: the last point evaluated and its constraint values
        self._last: tuple[bytes, np.ndarray] = (b"", np.empty(0))
        options = {"radius_init": radius, "radius_final": final_radius,
                   "maxfev": 10**9, "maxiter": 10**9}  # fmt: skip
        self._thread = threading.Thread(
            target=self._main,
            args=(x0, options, n_constraints, linear),
            daemon=True,
            name="isoline-cobyqa",
        )
        self._thread.start()

    def _objective(self, x: np.ndarray) -> float:
        x = np.array(x, dtype=float)
        self._points.put(x)
        v = self._values.get()
        if v is _STOP:
            raise _Stop
        row = np.atleast_1d(np.asarray(v, dtype=float))
        self._last = (x.tobytes(), row[1:])
        return float(row[0])

    def _constraints(self, x: np.ndarray) -> np.ndarray:
        key, g = self._last
        if np.asarray(x, dtype=float).tobytes() != key:
            raise RuntimeError("COBYQA asked for constraint values of a point not evaluated last")
        return g

    def _main(
        self,
        x0: np.ndarray,
        options: dict[str, Any],
        n_constraints: int,
        linear: UnitConstraints | None,
    ) -> None:
        try:
            bounds = Bounds(np.zeros(x0.size), np.ones(x0.size))
            constraints: list[Any] = (
                [NonlinearConstraint(self._constraints, -np.inf, 0.0)] if n_constraints else []
            )
            if linear is not None:
                constraints.append(LinearConstraint(linear.A, -np.inf, linear.c))
            cobyqa.minimize(
                self._objective, x0, bounds=bounds, constraints=constraints, options=options
            )
        except _Stop:
            pass
        except BaseException as e:  # noqa: BLE001 - reported by next_point
            self._error = e
        finally:
            self._points.put(None)

    def next_point(self) -> np.ndarray | None:
        """The next point the run asks for, or ``None`` if it has ended."""
        x = self._points.get()
        if x is None and self._error is not None:
            raise RuntimeError(f"COBYQA failed: {self._error!r}") from self._error
        return x

    def give(self, value: float | np.ndarray) -> None:
        """The value (or the outputs: objective, then constraints) of the point
        :meth:`next_point` returned last."""
        self._values.put(value)

    def stop(self) -> None:
        """End the run and its thread."""
        if self._thread.is_alive():
            self._values.put(_STOP)
            self._thread.join()


@register
class COBYQA(ReplayPickled):
    """COBYQA (Ragonneau & Zhang), a derivative-free trust-region method in Powell's line
    (UOBYQA, NEWUOA, BOBYQA), through its authors' package ``cobyqa`` on the unit cube.
    (scipy's ``minimize(method="COBYQA")`` holds one process-wide lock for a whole run,
    which a run that waits for its values between calls would hold for good.)

    Each step interpolates a quadratic model through the evaluated points, minimizes it in
    a trust region of radius ``rho`` and evaluates the minimizer; the region moves to the
    new point if it is better and grows or shrinks by how well the model predicted the
    change. The first ``2 d + 1`` evaluations are the start and steps of ``radius`` along
    each axis. When ``rho`` falls below ``final_radius`` the run has converged; the next
    run starts from a uniform random point (from ``seed``) with the initial radius, until
    the budget is spent (with ``restarts=False`` the method has :attr:`ended` instead, and
    proposes uniform random points).

    ask/tell: the run lives in a helper thread whose objective waits for each value
    (:class:`_Run`); the method proposes one point at a time. A second point asked before
    the first is told is a uniform random one, which the model does not use; withdrawing
    the point a run waits for ends that run.

    The first run starts from ``x0``, or from the best point told before the first
    proposal (an initial design with ``n_init > 0``, or known data), or else from a uniform
    random point (from ``seed``) within ``start_spread`` of the centre in each coordinate
    (``start_spread = 0``: the centre itself, the same first run for every seed).
    Failed evaluations reach the model as :func:`~isoline.methods.base.failure_value`.

    Black-box constraints (``n_constraints > 0``, values ``<= 0`` feasible) are COBYQA's
    own nonlinear inequality constraints: it models each one by quadratic interpolation
    beside the objective and takes steps of a merit function that penalizes violations, so
    a run ends at a feasible point when it finds one. The constraint values come from the
    same evaluation as the objective (COBYQA asks for them right after the objective at the
    same point). A failed evaluation gets the objective's failure value and, for each
    constraint, a violation beyond every one seen.

    Known linear constraints of the space are COBYQA's linear constraints. COBYQA may ask
    for a point that violates them (a step of its initial interpolation set or a geometry
    step); that point is not evaluated: :meth:`UnitConstraints.repair` moves it toward the
    feasible region's centre, and COBYQA receives the value there. So COBYQA minimizes
    ``f`` composed with that continuous map, which equals ``f`` on the feasible region,
    under constraints that keep its solution feasible.

    Options:
        radius: initial trust-region radius in unit-cube coordinates (default 0.2, a
            fifth of each range).
        final_radius: radius at which a run has converged and the next starts
            (default 1e-6, COBYQA's).
        x0: ``(d,)`` start in the unit cube.
        start_spread: half-width, in unit-cube coordinates, of the box around the centre
            the first start is drawn from when neither ``x0`` nor a told point gives it
            (default 0.05, so that the seed matters from the first run; 0 starts at the
            centre, 0.5 anywhere in the cube).
        restarts: start a new run when one has converged (default ``True``); ``False``
            for a single run, as a local phase of another method
            (:class:`~isoline.methods.gp_local.GPEILocal`) uses it.

    References:
        T. M. Ragonneau and Z. Zhang. COBYQA: Constrained Optimization BY Quadratic
        Approximations. PhD thesis, The Hong Kong Polytechnic University, 2022.
        M. J. D. Powell. A direct search optimization method that models the objective and
        constraint functions by linear interpolation. In Advances in Optimization and
        Numerical Analysis, Kluwer, 1994 (COBYLA, the line's constrained method).
        M. J. D. Powell. The BOBYQA algorithm for bound constrained optimization without
        derivatives. Technical report DAMTP 2009/NA06, University of Cambridge, 2009.
    """

    name = "cobyqa"
    summary = "quadratic-model trust region"
    family = "trust-region DFO"
    paper = "Ragonneau & Zhang, COBYQA (PhD thesis, PolyU 2022); Powell, BOBYQA (DAMTP 2009)"
    supports_batch = False
    needs_data = False
    supports_constraints = True
    supports_input_constraints = True

    def __init__(
        self,
        dim: int,
        *,
        radius: float = 0.2,
        final_radius: float = 1e-6,
        x0: list[float] | None = None,
        start_spread: float = 0.05,
        restarts: bool = True,
        **common: Any,
    ) -> None:
        self._record_args({"dim": dim, "radius": radius, "final_radius": final_radius,
                           "x0": x0, "start_spread": start_spread, "restarts": restarts,
                           **common})  # fmt: skip
        super().__init__(dim, **common)
        self.radius = check_float(radius, "radius", 0.0, 0.5, low_open=True)
        self.final_radius = check_float(final_radius, "final_radius", 0.0, self.radius,
                                        low_open=True)  # fmt: skip
        self.start_spread = check_float(start_spread, "start_spread", 0.0, 0.5)
        self.restarts = check_bool(restarts, "restarts")
        #: whether the single run of ``restarts=False`` has converged
        self.ended = False
        self.x0 = None if x0 is None else np.asarray(x0, dtype=float)
        if self.x0 is not None and (
            self.x0.shape != (self.dim,) or np.any((self.x0 < 0) | (self.x0 > 1))
        ):
            raise ValueError(f"x0 must be {self.dim} numbers in [0, 1], got {x0!r}")
        self._run: _Run | None = None
        #: the point the run waits for the value of (bytes), if any
        self._waiting: bytes | None = None
        #: runs started so far
        self.n_runs = 0

    def _start(self) -> np.ndarray:
        if self.n_runs == 0:
            best = self.best
            if self.x0 is not None:
                start = self.x0
            elif best is not None:
                start = best[0]
            elif self.start_spread > 0:  # drawn only then: spread 0 keeps the centre's runs
                start = 0.5 + self.start_spread * (2.0 * self.rng.random(self.dim) - 1.0)
            else:
                start = np.full(self.dim, 0.5)
        else:
            start = self.uniform(1)[0]
        self.n_runs += 1
        return start

    def propose(self, q: int) -> np.ndarray:
        out = []
        for _ in range(q):
            x = None if self._waiting is not None else self._next_of_a_run()
            if x is None:  # the run waits for a value: an untracked random point
                x = self.uniform(1)[0]
            else:
                self._waiting = x.tobytes()
            out.append(x)
        return np.array(out)

    def _next_of_a_run(self) -> np.ndarray | None:
        while not self.ended:
            if self._run is None:
                self._run = _Run(self._start(), self.radius, self.final_radius,
                                 self.n_constraints, self.input_constraints)  # fmt: skip
            x = self._run.next_point()
            if x is not None:
                return np.clip(x, 0.0, 1.0)
            self._run = None  # converged: the next run starts from a random point
            self.ended = not self.restarts
        return None

    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        for x, row in zip(X, self.Y[len(self.Y) - len(X) :]):
            if self._run is not None and x.tobytes() == self._waiting:
                if self.n_constraints:
                    self._run.give(row if np.isfinite(row).all() else self._failed_row())
                else:
                    finite = self.y[np.isfinite(self.y)]
                    v = row[0]
                    self._run.give(float(v) if np.isfinite(v) else failure_value(finite))
                self._waiting = None

    def _failed_row(self) -> np.ndarray:
        """Outputs a failed evaluation gets: the objective's :func:`failure_value`, and
        for each constraint a violation beyond every one seen (positive: infeasible)."""
        ok = np.isfinite(self.Y).all(axis=1)
        cols = self.Y[ok].T
        return np.array([failure_value(cols[0])] + [max(failure_value(c), 1.0) for c in cols[1:]])

    def withdraw(self, X: np.ndarray) -> None:
        super().withdraw(X)
        served = {r.tobytes() for rows in self._served.values() for r in rows}
        if self._run is not None and self._waiting is not None and self._waiting not in served:
            self._run.stop()  # its point will never be told: the next run starts afresh
            self._run, self._waiting = None, None

    def __del__(self) -> None:
        run = getattr(self, "_run", None)
        if run is not None:
            run.stop()
