"""Search spaces: the protocol every space implements, and a box in user units.

:class:`SearchSpace` is what :class:`~isoline.optimizer.Optimizer`,
:func:`isoline.minimize` and ``method="auto"`` use of a space, so they never ask which
kind it is: a :class:`Box` (points are ``(n, d)`` arrays of reals) and a typed
:class:`~isoline.params.Space` (points are configuration dicts) both implement it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["Box", "SearchSpace"]


class SearchSpace(ABC):
    """A search space in the user's units, encoded into the unit cube ``[0, 1]^dim``.

    A *point* is what the objective takes (a ``(d,)`` array for a :class:`Box`, a dict
    for a :class:`~isoline.params.Space`); *points* are a batch of them as the space
    returns batches (an ``(n, d)`` array, a list of dicts).
    """

    #: encoded dimension (columns of the unit cube the methods search)
    dim: int
    #: known linear constraints in the unit cube, an
    #: :class:`~isoline.input_constraints.UnitConstraints` (a typed Space may declare them)
    input_constraints: Any = None

    @property
    @abstractmethod
    def names(self) -> list[str]:
        """The parameter names, in order."""

    @property
    def discrete(self) -> bool:
        """Whether any parameter is an integer or a categorical."""
        return False

    @property
    def categorical(self) -> bool:
        """Whether any parameter is a categorical."""
        return False

    @property
    def rescaled(self) -> bool:
        """Whether any real parameter is on a log or logit scale."""
        return False

    @property
    def method_space(self) -> Any:
        """The typed space a method rounds and searches by (``None``: reals in the plain
        unit cube, which every method searches as it is)."""
        return None

    @abstractmethod
    def from_unit(self, U: np.ndarray) -> Any:
        """The points of ``(n, dim)`` unit-cube rows."""

    @abstractmethod
    def points(self, X: Any) -> Any:
        """``X`` (one point or several) as checked points of this space.

        Raises:
            ValueError, TypeError: ``X`` is empty or a point is not in the space (the
                message names it).
        """

    @abstractmethod
    def unit(self, P: Any) -> np.ndarray:
        """``(n, dim)`` unit-cube rows of checked :meth:`points`."""

    @abstractmethod
    def key(self, x: Any) -> bytes | str:
        """A value that two points share exactly when they are equal."""

    @abstractmethod
    def copy_point(self, x: Any) -> Any:
        """An independent copy of one point."""

    @abstractmethod
    def stored_points(self, xs: Sequence[Any], us: Sequence[Any]) -> Any:
        """The points of stored trials (their ``x`` and ``u`` as a study stores them), as
        the objective took them."""

    @abstractmethod
    def stored_unit(self, xs: Sequence[Any], us: Sequence[Any]) -> np.ndarray:
        """``(n, dim)`` unit-cube rows of stored trials as the method proposed them (what
        a replay must propose again)."""

    @abstractmethod
    def record(self, X: Any) -> Any:
        """``X`` as a study records it (JSON-able)."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """JSON description (stored with a study; a resumed study must match it)."""


class Box(SearchSpace):
    """An axis-aligned box ``[lower, upper]`` in the user's units: a :class:`SearchSpace`
    of reals whose points are arrays.

    Methods work in ``[0, 1]^d``; :meth:`to_unit` and :meth:`from_unit` map between the two.

    Args:
        lower: ``(d,)`` finite lower bounds.
        upper: ``(d,)`` finite upper bounds, each strictly above its lower bound.
        names: optional ``d`` parameter names (default ``x0, x1, ...``).
    """

    def __init__(
        self,
        lower: Sequence[float] | np.ndarray,
        upper: Sequence[float] | np.ndarray,
        names: Sequence[str] | None = None,
    ) -> None:
        lo = _as_bounds(lower, "lower")
        hi = _as_bounds(upper, "upper")
        if lo.shape != hi.shape:
            raise ValueError(
                f"lower and upper must have the same length, got {lo.size} and {hi.size}"
            )
        bad = np.flatnonzero(~(lo < hi))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"lower must be strictly below upper in every dimension; dimension {i} has "
                f"lower={float(lo[i])!r}, upper={float(hi[i])!r}"
            )
        with np.errstate(over="ignore"):
            huge = np.flatnonzero(~np.isfinite(hi - lo))
        if huge.size:
            i = int(huge[0])
            raise ValueError(
                f"dimension {i} is too wide to represent: upper - lower overflows "
                f"(lower={float(lo[i])!r}, upper={float(hi[i])!r})"
            )
        if names is None:
            names = [f"x{i}" for i in range(lo.size)]
        names = [str(n) for n in names]
        if len(names) != lo.size:
            raise ValueError(f"names must have {lo.size} entries, got {len(names)}")
        if len(set(names)) != len(names):
            raise ValueError("names must be unique")
        self.lower, self.upper, self._names = lo, hi, names
        self.dim = int(lo.size)
        self.lower.setflags(write=False)
        self.upper.setflags(write=False)

    @property
    def names(self) -> list[str]:
        return list(self._names)

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower

    def to_unit(self, X: np.ndarray) -> np.ndarray:
        """Map ``(..., d)`` points in user units into the unit cube."""
        X = self._check_points(X, "X")
        return (X - self.lower) / self.width

    def from_unit(self, U: np.ndarray) -> np.ndarray:
        """Map ``(..., d)`` unit-cube points to user units (clipped into the box)."""
        U = self._check_points(U, "U")
        return np.clip(self.lower + np.clip(U, 0.0, 1.0) * self.width, self.lower, self.upper)

    def contains(self, X: np.ndarray) -> np.ndarray:
        """``(...)`` booleans: which points lie inside the box."""
        X = self._check_points(X, "X")
        return np.all((X >= self.lower) & (X <= self.upper), axis=-1)

    def points(self, X: Any) -> np.ndarray:
        """``X`` as an ``(n, d)`` float array of finite points inside the box."""
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as e:
            raise TypeError(f"X must be an array of numbers: {e}") from None
        if X.size == 0:
            raise ValueError(f"need at least one point, got X of shape {X.shape}")
        X = np.atleast_2d(X)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(f"X must have shape (n, {self.dim}), got {X.shape}")
        bad = np.flatnonzero(~np.all(np.isfinite(X), axis=1))
        if bad.size:
            raise ValueError(f"X row {int(bad[0])} is not finite: {X[bad[0]].tolist()}")
        out = np.flatnonzero(~self.contains(X))
        if out.size:
            raise ValueError(
                f"X row {int(out[0])} lies outside the search box: {X[out[0]].tolist()} "
                f"(lower {self.lower.tolist()}, upper {self.upper.tolist()})"
            )
        return X

    def unit(self, P: np.ndarray) -> np.ndarray:
        """``(n, d)`` unit-cube rows of points inside the box."""
        return np.clip(self.to_unit(P), 0.0, 1.0)

    def key(self, x: Any) -> bytes:
        return np.asarray(x, dtype=float).tobytes()

    def copy_point(self, x: Any) -> np.ndarray:
        return np.array(x, dtype=float)

    def record(self, X: Any) -> Any:
        return np.asarray(X, dtype=float).tolist()

    def stored_points(self, xs: Sequence[Any], us: Sequence[Any]) -> np.ndarray:
        """The stored points in user units, exactly as evaluated."""
        return np.array(xs, dtype=float).reshape(-1, self.dim)

    def stored_unit(self, xs: Sequence[Any], us: Sequence[Any]) -> np.ndarray:
        """The stored points mapped into the unit cube (a store written before the unit
        points were kept as proposed holds only the user-unit points reliably)."""
        return (self.stored_points(xs, us) - self.lower) / self.width

    def _check_points(self, X: np.ndarray, name: str) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if X.ndim == 0 or X.shape[-1] != self.dim:
            raise ValueError(f"{name} must have last dimension {self.dim}, got shape {X.shape}")
        return X

    def to_dict(self) -> dict:
        return {"lower": self.lower.tolist(), "upper": self.upper.tolist(), "names": self.names}

    @classmethod
    def from_dict(cls, d: dict) -> Box:
        return cls(d["lower"], d["upper"], d.get("names"))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Box)
            and np.array_equal(self.lower, other.lower)
            and np.array_equal(self.upper, other.upper)
            and self.names == other.names
        )

    def __repr__(self) -> str:
        return f"Box(lower={self.lower.tolist()}, upper={self.upper.tolist()})"


def _as_bounds(v: Sequence[float] | np.ndarray, name: str) -> np.ndarray:
    if isinstance(v, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, got {type(v).__name__}")
    try:
        a = np.array(v, dtype=float).reshape(-1) if np.ndim(v) <= 1 else None
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name} must be a sequence of numbers: {e}") from None
    if a is None:
        raise ValueError(f"{name} must be one-dimensional, got shape {np.shape(v)}")
    if a.size == 0:
        raise ValueError(f"{name} must have at least 1 dimension")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite, got {a.tolist()}")
    return a
