"""What a run optimizes: the objective's direction, built and checked in one place.

Methods always minimize. An :class:`Objective` holds the user's direction and turns the
user's values into the minimized ones (:meth:`Objective.internal`) at one boundary, the
:class:`~isoline.optimizer.Optimizer`; everything the user sees or a study stores (trial
values, ``Result.fun``, ``Optimizer.best``) stays in the user's direction. A study
records :meth:`Objective.to_dict` and refuses to resume with another one.

The specification is a value object so that it can grow (several objectives, named
outputs, constraints) without another argument threading through every entry point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["DIRECTIONS", "Objective"]

#: the directions an objective can be optimized in
DIRECTIONS = ("minimize", "maximize")


@dataclass(frozen=True)
class Objective:
    """One objective and its direction.

    Args:
        direction: ``"minimize"`` or ``"maximize"`` (any letter case).

    Raises:
        TypeError: ``direction`` is not a string.
        ValueError: ``direction`` is another string.
    """

    direction: str = "minimize"

    def __post_init__(self) -> None:
        d = self.direction
        if not isinstance(d, str):
            raise TypeError(f"direction must be 'minimize' or 'maximize', got {d!r}")
        if d.strip().lower() not in DIRECTIONS:
            raise ValueError(f"direction must be 'minimize' or 'maximize', got {d!r}")
        object.__setattr__(self, "direction", d.strip().lower())

    @classmethod
    def of(cls, spec: Objective | str) -> Objective:
        """``spec`` itself, or the objective of a direction name."""
        return spec if isinstance(spec, Objective) else cls(spec)

    @property
    def maximize(self) -> bool:
        return self.direction == "maximize"

    def internal(self, y: npt.ArrayLike) -> np.ndarray:
        """The values a method minimizes for the user's values ``y`` (NaN stays NaN);
        the same map turns them back."""
        y = np.asarray(y, dtype=float)
        return -y if self.maximize else y

    def best_index(self, y: np.ndarray) -> int | None:
        """Index of the best finite value of ``y`` (the first of ties), or ``None``."""
        v = self.internal(y)
        ok = np.flatnonzero(np.isfinite(v))
        return None if ok.size == 0 else int(ok[np.argmin(v[ok])])

    def running_best(self, y: np.ndarray) -> np.ndarray:
        """``(n,)`` best finite value so far in the user's direction (NaN before the first)."""
        v = self.internal(y)
        run = np.minimum.accumulate(np.where(np.isfinite(v), v, np.inf))
        return np.where(np.isfinite(run), self.internal(run), np.nan)

    def to_dict(self) -> dict[str, Any]:
        """JSON description (a study records it)."""
        return {"direction": self.direction}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Objective:
        """The objective a study recorded (a study from before directions minimized)."""
        return cls(**d) if d else cls()
