"""Known linear constraints between real parameters, and their form in the unit cube.

A user declares ``Linear({"a": 1.0, "b": 2.0}, upper=10.0)`` (``a + 2 b <= 10`` in the
user's units) on a :class:`~isoline.params.Space`, over Real parameters on a linear scale.
Such a parameter is encoded as ``u = (x - low) / (high - low)``, an affine map, so the
constraints stay linear in the cube: :class:`UnitConstraints` holds them as ``A u <= c``
with every row of ``A`` of unit length, so a violation is a distance in the cube. Unlike
black-box constraints they cost nothing to evaluate, and every proposal of a method that
supports them satisfies them (:attr:`isoline.methods.base.Method.supports_input_constraints`).

Sampling the feasible region: draws from a design are filtered by rejection; when too
few of them are feasible, the rest come from BoTorch's hit-and-run polytope sampler
(``botorch.utils.sampling.get_polytope_samples``; Smith, "Efficient Monte Carlo
procedures for generating points uniformly distributed over bounded regions", Operations
Research 32(6), 1984).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from isoline.validation import check_float

__all__ = ["TOLERANCE", "Linear", "UnitConstraints", "unit_constraints"]

#: the largest violation, as a distance in the unit cube, that counts as feasible
TOLERANCE = 1e-9
#: draws made at most to find feasible points by rejection before the polytope sampler
_MAX_DRAWS = 1 << 14


class Linear:
    """A known linear constraint ``lower <= sum_i coefficients[i] * x_i <= upper`` between
    Real parameters (linear scale) of a :class:`~isoline.params.Space`, in the user's units.

    Args:
        coefficients: ``{parameter name: coefficient}``, finite numbers, not all zero.
        lower: the smallest value the sum may take (``None``: unbounded below).
        upper: the largest value the sum may take (``None``: unbounded above).

    At least one bound is needed, and ``lower < upper`` when both are given.
    """

    def __init__(
        self,
        coefficients: Mapping[str, float],
        *,
        lower: float | None = None,
        upper: float | None = None,
    ) -> None:
        if not isinstance(coefficients, Mapping) or not coefficients:
            raise ValueError(
                f"Linear needs a non-empty mapping {{parameter: coefficient}}, got {coefficients!r}"
            )
        coefs: dict[str, float] = {}
        for name, a in coefficients.items():
            if not isinstance(name, str):
                raise TypeError(f"Linear: parameter names must be strings, got {name!r}")
            coefs[name] = check_float(a, f"Linear: the coefficient of parameter {name!r}")
        if not any(coefs.values()):
            raise ValueError(f"Linear: every coefficient is zero in {coefs!r}")
        if lower is None and upper is None:
            raise ValueError(f"Linear over {list(coefs)}: give lower=, upper= or both")
        lo = None if lower is None else check_float(lower, "Linear lower")
        hi = None if upper is None else check_float(upper, "Linear upper")
        if lo is not None and hi is not None and not lo < hi:
            raise ValueError(f"Linear needs lower < upper, got lower={lo!r}, upper={hi!r}")
        self.coefficients, self.lower, self.upper = coefs, lo, hi

    def to_dict(self) -> dict[str, Any]:
        """JSON description (a study stores it with its space)."""
        return {"coefficients": dict(self.coefficients), "lower": self.lower, "upper": self.upper}

    @classmethod
    def from_dict(cls, d: Any) -> Linear:
        """The constraint :meth:`to_dict` described.

        Raises:
            ValueError, TypeError: ``d`` is not such a description.
        """
        if not isinstance(d, Mapping) or set(d) != {"coefficients", "lower", "upper"}:
            raise ValueError(f"not a Linear description: {d!r}")
        return cls(d["coefficients"], lower=d["lower"], upper=d["upper"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Linear) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        bounds = [
            f"{k}={v!r}" for k, v in (("lower", self.lower), ("upper", self.upper)) if v is not None
        ]
        return f"Linear({self.coefficients!r}, {', '.join(bounds)})"


@dataclass(frozen=True, eq=False)
class UnitConstraints:
    """Linear constraints ``A u <= c`` on points ``u`` of the unit cube ``[0, 1]^dim``.

    Attributes:
        A: ``(k, dim)`` rows of unit length.
        c: ``(k,)`` right-hand sides.
        centre: ``(dim,)`` the centre of the largest ball inside the feasible part of the
            cube (its Chebyshev centre; 1/2 in the columns no constraint involves).
        radius: that ball's radius (positive).
    """

    A: np.ndarray
    c: np.ndarray
    centre: np.ndarray
    radius: float

    @property
    def dim(self) -> int:
        return int(self.A.shape[1])

    def violation(self, U: np.ndarray) -> np.ndarray:
        """``(n,)`` the largest excess ``a_i u - c_i`` of each row of ``U`` (``<= 0``: feasible)."""
        U = np.atleast_2d(np.asarray(U, dtype=float))
        return np.max(U @ self.A.T - self.c, axis=1)

    def feasible(self, U: np.ndarray, tol: float = TOLERANCE) -> np.ndarray:
        """``(n,)`` booleans: which rows of ``U`` satisfy every constraint (to ``tol``)."""
        return self.violation(U) <= tol

    def repair(self, U: np.ndarray) -> np.ndarray:
        """``U`` with each infeasible row moved along the segment to :attr:`centre`, just
        far enough to satisfy every constraint (a feasible row is returned unchanged).

        The feasible region is convex and holds the centre with room ``radius``, so the
        moved row lies in it, and inside the cube when the row did. Used on a method's
        proposals to remove the slack a numerical optimizer leaves (a solver tolerance),
        not as a search strategy.
        """
        U = np.array(np.atleast_2d(U), dtype=float)
        for i in np.flatnonzero(self.violation(U) > 0.0):
            step = U[i] - self.centre
            ax, ac = self.A @ step, self.c - self.A @ self.centre  # ac >= radius > 0
            over = ax > ac
            t = float(np.min(ac[over] / ax[over])) if over.any() else 1.0
            U[i] = self.centre + 0.999 * t * step  # a safe margin away from the boundary
        return U

    def sample(
        self,
        draw: Callable[[int], np.ndarray],
        n: int,
        seed: int,
        *,
        start: int = 0,
        bounds: np.ndarray | None = None,
        thinning: int = 32,
    ) -> np.ndarray:
        """``(n, dim)`` feasible points: the feasible rows ``start`` to ``start + n`` of
        ``draw(m)`` (a design whose first rows do not depend on ``m``, such as a Sobol
        sequence or a generator's uniform draws, so successive ``start`` walk one
        sequence of feasible points), with ``m`` grown up to a limit; if that finds fewer
        than ``n``, the rest are hit-and-run samples seeded by ``seed``.

        Args:
            bounds: ``(2, dim)`` lower and upper rows of a box inside the cube that every
                row of ``draw`` lies in (e.g. a trust region); the hit-and-run samples are
                then drawn from the part of the feasible region inside it, which must
                hold a feasible point. ``None``: the whole cube.
            thinning: steps of the hit-and-run chain between two samples kept (BoTorch's
                default 32 makes them nearly independent; a candidate set scored by a
                method needs coverage more than independence and may take 1, every step
                of the chain, which costs 32 times less).
        """
        if n <= 0:
            return np.empty((0, self.dim))
        need = start + n
        m = max(64, 2 * need)
        while True:
            X = np.atleast_2d(np.asarray(draw(m), dtype=float))
            ok = X[self.feasible(X, 0.0)]
            if len(ok) >= need or m >= _MAX_DRAWS:
                break
            m *= 4
        ok = ok[start:need]
        if len(ok) == n:
            return ok.copy()
        return np.vstack([ok, self.polytope_samples(n - len(ok), seed, bounds, thinning)])

    def polytope_samples(
        self, n: int, seed: int, bounds: np.ndarray | None = None, thinning: int = 32
    ) -> np.ndarray:
        """``(n, dim)`` points of the feasible region (inside the box ``bounds``, ``(2, dim)``,
        when given) from BoTorch's hit-and-run sampler, keeping one step in ``thinning``."""
        import torch
        from botorch.utils.sampling import get_polytope_samples

        if bounds is None:
            B = torch.stack([torch.zeros(self.dim), torch.ones(self.dim)]).double()
        else:
            B = torch.as_tensor(np.asarray(bounds, dtype=float)).reshape(2, self.dim)
        with torch.random.fork_rng(devices=[]):
            S = get_polytope_samples(
                n, B, inequality_constraints=self.botorch(), seed=seed, n_burnin=200,
                n_thinning=thinning,
            )  # fmt: skip
        lo, hi = B.numpy()
        return self.repair(np.clip(S.numpy().astype(float), lo, hi))

    def botorch(self) -> list[tuple[Any, Any, float]]:
        """The constraints as BoTorch's ``inequality_constraints`` take them: a list of
        ``(indices, coefficients, rhs)`` meaning ``sum coefficients * u[indices] >= rhs``
        (so each row of ``A u <= c`` becomes ``-A u >= -c``)."""
        import torch

        out = []
        for a, c in zip(self.A, self.c):
            idx = np.flatnonzero(a)
            out.append((torch.as_tensor(idx, dtype=torch.long),
                        torch.as_tensor(-a[idx], dtype=torch.float64), float(-c)))  # fmt: skip
        return out


#: a parameter's encoded column and bounds, or why it cannot carry a linear constraint
Column = tuple[int, float, float] | str


def unit_constraints(
    constraints: Sequence[Linear], columns: Mapping[str, Column], dim: int
) -> UnitConstraints | None:
    """The constraints of a space in its unit cube (``None`` if there are none).

    Args:
        constraints: the :class:`Linear` constraints declared.
        columns: each parameter of the space: ``(column, low, high)`` of a Real on a
            linear scale, or a phrase saying what it is instead ("an Integer", ...).
        dim: the space's encoded dimension.

    Raises:
        TypeError: an entry is not a :class:`Linear`.
        ValueError: a constraint names an unknown parameter or one that is not a linear
            Real (the message names it), or no point of the box satisfies them all.
    """
    rows: list[np.ndarray] = []
    rhs: list[float] = []
    for lin in constraints:
        if not isinstance(lin, Linear):
            raise TypeError(f"constraints must be isoline.Linear, got {type(lin).__name__}")
        a = np.zeros(dim)
        shift = 0.0
        for name, coef in lin.coefficients.items():
            col = columns.get(name)
            if col is None:
                raise ValueError(f"{lin!r}: unknown parameter {name!r}")
            if isinstance(col, str):
                raise ValueError(
                    f"{lin!r}: parameter {name!r} is {col}; linear constraints take Real "
                    "parameters on a linear scale (no log or logit) that are not conditional"
                )
            j, low, high = col
            a[j] += coef * (high - low)
            shift += coef * low
        for sign, bound in ((1.0, lin.upper), (-1.0, lin.lower)):
            if bound is not None:
                rows.append(sign * a)
                rhs.append(sign * (bound - shift))
    if not rows:
        return None
    A, c = np.array(rows), np.array(rhs)
    norm = np.linalg.norm(A, axis=1)
    if not np.all(norm > 0) or not np.all(np.isfinite(A / norm[:, None])):
        raise ValueError(f"constraints {list(constraints)!r} have a row with no extent in the cube")
    A, c = A / norm[:, None], c / norm
    centre, radius = _chebyshev(A, c)
    if not radius > TOLERANCE:
        raise ValueError(
            f"no point of the search box satisfies the constraints {list(constraints)!r} "
            "with room to spare (they are infeasible, or hold only on a boundary)"
        )
    for arr in (A, c, centre):
        arr.setflags(write=False)
    return UnitConstraints(A, c, centre, radius)


def _chebyshev(A: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, float]:
    """The centre and radius of the largest ball in ``{A u <= c} ∩ [0, 1]^d`` (rows of
    ``A`` of unit length), by linear programming (scipy's HiGHS); radius 0 if empty."""
    from scipy.optimize import linprog

    k, d = A.shape
    used = np.flatnonzero(np.any(A != 0, axis=0))
    # variables (u_used, r): maximize r, A u + r <= c, r <= u_j, u_j + r <= 1
    e = np.eye(len(used))
    A_ub = np.vstack([
        np.hstack([A[:, used], np.ones((k, 1))]),
        np.hstack([-e, np.ones((len(used), 1))]),
        np.hstack([e, np.ones((len(used), 1))]),
    ])  # fmt: skip
    b_ub = np.concatenate([c, np.zeros(len(used)), np.ones(len(used))])
    obj = np.zeros(len(used) + 1)
    obj[-1] = -1.0
    res = linprog(obj, A_ub=A_ub, b_ub=b_ub, bounds=[(0, 1)] * len(used) + [(0, 1)])
    centre = np.full(d, 0.5)
    if res.status != 0:
        return centre, 0.0
    centre[used] = res.x[:-1]
    return centre, float(res.x[-1])
