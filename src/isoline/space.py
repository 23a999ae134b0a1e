"""Search spaces: a box in user units, mapped to and from the unit cube."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Box"]


class Box:
    """An axis-aligned box ``[lower, upper]`` in the user's units.

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
        self.lower, self.upper, self.names = lo, hi, names
        self.lower.setflags(write=False)
        self.upper.setflags(write=False)

    @property
    def dim(self) -> int:
        return int(self.lower.size)

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
