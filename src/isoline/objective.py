"""What a run optimizes: objectives, their directions and black-box constraints.

Methods always minimize. An :class:`Objective` holds the user's specification and turns the
user's values into the minimized ones (:meth:`Objective.internal`) at one boundary, the
:class:`~isoline.optimizer.Optimizer`; everything the user sees or a study stores (trial
values, ``Result.fun``, ``Optimizer.best``) stays in the user's units and directions. A
study records :meth:`Objective.to_dict` and refuses to resume with another one.

An evaluation gives one *row of outputs*: the objectives, then the constraints, in the
order of :attr:`Objective.names`. A constraint is feasible when its value is ``<= 0``
(Optuna's convention); a row is feasible when every constraint is and every output is
finite.

Several objectives are compared by Pareto dominance and summarized by the hypervolume they
dominate (Zitzler and Thiele, "Multiobjective optimization using evolutionary algorithms -
a comparative case study", PPSN 1998). Dominance and the inferred reference point come
from BoTorch's multi-objective utilities (``botorch.utils.multi_objective``); the
hypervolume from moocore's exact algorithms (Fonseca, Paquete and López-Ibáñez, "An
improved dimension-sweep algorithm for the hypervolume indicator", IEEE CEC 2006;
Guerreiro and Fonseca, "Computing and updating hypervolume contributions in up to four
dimensions", IEEE Transactions on Evolutionary Computation 2018). Both are imported only
when asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from isoline.validation import as_real

__all__ = ["DIRECTIONS", "REFERENCE_SCALE", "UNSET", "Objective", "OutputError", "Unset"]

#: the directions an objective can be optimized in
DIRECTIONS = ("minimize", "maximize")

#: how far past the Pareto front's nadir the inferred reference point lies, as a share of
#: the front's range in each objective (BoTorch's ``infer_reference_point`` default)
REFERENCE_SCALE = 0.1


class Unset:
    """The type of :data:`UNSET`, an entry point's "keyword not given"."""

    def __repr__(self) -> str:
        return "UNSET"


#: the default of an entry point's ``direction`` (so that one given with ``directions``
#: is told apart from none)
UNSET = Unset()


class OutputError(ValueError):
    """An objective function returned something the specification cannot read (a missing
    output name, a value that is not a number, a sequence of the wrong length). The run
    records it as a failed evaluation."""


def _direction(d: object) -> str:
    if not isinstance(d, str):
        raise TypeError(f"direction must be 'minimize' or 'maximize', got {d!r}")
    if d.strip().lower() not in DIRECTIONS:
        raise ValueError(f"direction must be 'minimize' or 'maximize', got {d!r}")
    return d.strip().lower()


def _names(names: object, what: str) -> tuple[str, ...]:
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"{what} must be a list of names (str), got {names!r}")
    out = tuple(names)
    for n in out:
        if not isinstance(n, str) or not n.strip():
            raise TypeError(f"{what} must be non-empty names (str), got {n!r}")
    return out


def _number(value: object, name: str) -> float:
    """``value`` as a float: a real number as one objective's value is read
    (:func:`isoline.validation.as_real`: 0-d arrays and tensors, Decimal, NumPy scalars;
    no bool), or a one-element numeric array."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "fiu":
        return float(value.reshape(()))
    try:
        return as_real(value)
    except TypeError:
        raise OutputError(f"output {name!r} must be a number, got {value!r}") from None


@dataclass(frozen=True, init=False)
class Objective:
    """The objectives of a run, their directions, and its black-box constraints.

    Args:
        directions: one of ``"minimize"``/``"maximize"`` (any letter case) per objective,
            a single direction string (``Objective("maximize")``), or a mapping from
            objective names to directions (``{"error": "minimize", "speed": "maximize"}``,
            the same as those names as ``objectives`` and its values as ``directions``).
            ``None`` minimizes every objective.
        objectives: names of the objectives, or ``None``. With names, the objective
            function returns a mapping and the objectives are read from those keys;
            without, it returns a number (one objective) or a sequence of
            ``len(directions)`` numbers. A single direction string applies to every name.
        constraints: names of mapping keys holding black-box constraints, feasible when
            ``<= 0``. Constraints need a mapping return, so they need ``objectives``.

    Raises:
        TypeError: a direction or name is not a string, or names are not a list.
        ValueError: an unknown direction, no objective, as many directions as objectives
            not given, a repeated name, constraints without objective names, or names given
            both as ``objectives`` and as the keys of ``directions``.
    """

    directions: tuple[str, ...]
    objectives: tuple[str, ...] | None
    constraints: tuple[str, ...]

    def __init__(
        self,
        directions: str | Sequence[str] | Mapping[str, str] | None = None,
        objectives: Sequence[str] | None = None,
        constraints: Sequence[str] | None = (),
    ) -> None:
        if isinstance(directions, Mapping):
            if objectives is not None:
                raise ValueError(
                    "directions is a mapping {objective name: direction}, which names the "
                    "objectives already: give objectives=[...] or the mapping, not both"
                )
            objectives, directions = list(directions), list(directions.values())
        objs = None if objectives is None else _names(objectives, "objectives")
        cons = _names(() if constraints is None else constraints, "constraints")
        if objs is not None and not objs:
            raise ValueError("objectives must name at least one objective")
        if directions is None or isinstance(directions, str):
            dirs = ((directions or "minimize"),) * (len(objs) if objs else 1)
        elif isinstance(directions, Sequence):
            dirs = tuple(directions)
        else:
            raise TypeError(
                "directions must be 'minimize' or 'maximize', a list of them, or a mapping "
                f"{{objective name: direction}}, got {directions!r}"
            )
        if not dirs:
            raise ValueError("directions must give at least one direction")
        dirs = tuple(_direction(d) for d in dirs)
        if objs is not None and len(objs) != len(dirs):
            raise ValueError(
                f"{len(dirs)} directions for {len(objs)} objectives {list(objs)}; "
                "give one direction per objective"
            )
        if cons and objs is None:
            raise ValueError(
                "constraints are read from a mapping the objective returns: name the "
                "objectives too (objectives=[...])"
            )
        names = (*(objs or ()), *cons)
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"output names must be distinct; repeated: {repeated}")
        object.__setattr__(self, "directions", dirs)
        object.__setattr__(self, "objectives", objs)
        object.__setattr__(self, "constraints", cons)

    @classmethod
    def of(cls, spec: Objective | str) -> Objective:
        """``spec`` itself, or the one objective of a direction name (TypeError else)."""
        if isinstance(spec, Objective):
            return spec
        if not isinstance(spec, str):
            raise TypeError(f"direction must be 'minimize' or 'maximize', got {spec!r}")
        return cls(spec)

    @classmethod
    def from_args(
        cls,
        direction: Objective | str | None | Unset = None,
        directions: str | Sequence[str] | Mapping[str, str] | None = None,
        objectives: Sequence[str] | None = None,
        constraints: Sequence[str] | None = None,
        objective: Objective | None = None,
    ) -> Objective:
        """The specification of an entry point's keywords (``direction`` alone, or
        ``directions``/``objectives``/``constraints``; an :class:`Objective` may be given
        as ``objective`` or as ``direction``).

        ``direction`` may be :data:`UNSET` (an entry point's default: not given); ``None``
        given explicitly is refused.

        Raises:
            TypeError: ``objective`` is not an :class:`Objective`.
            ValueError: both ``direction`` and ``directions`` given, or an Objective with
                other keywords.
        """
        if objective is not None:
            if not isinstance(objective, Objective):
                raise TypeError(f"objective must be an isoline.Objective, got {objective!r}")
            if not isinstance(direction, Unset) or directions or objectives or constraints:
                raise ValueError("give objective= or the direction keywords, not both")
            return objective
        if isinstance(direction, Unset):
            return cls(directions, objectives, constraints)
        if directions is not None:
            raise ValueError("give direction (one objective) or directions, not both")
        if isinstance(direction, Objective):
            if objectives is not None or constraints:
                raise ValueError("an Objective carries its own objectives and constraints")
            return direction
        if not isinstance(direction, str):
            raise TypeError(f"direction must be 'minimize' or 'maximize', got {direction!r}")
        return cls(direction, objectives, constraints)

    # -- shape ---------------------------------------------------------------------------
    @property
    def n_objectives(self) -> int:
        return len(self.directions)

    @property
    def n_constraints(self) -> int:
        return len(self.constraints)

    @property
    def n_outputs(self) -> int:
        """``m``: the length of a row of outputs."""
        return self.n_objectives + self.n_constraints

    @property
    def names(self) -> tuple[str, ...]:
        """The output names, objectives then constraints (``"value"`` for one unnamed
        objective, ``"value_0"``, ``"value_1"``... for several)."""
        if self.objectives is not None:
            return (*self.objectives, *self.constraints)
        if self.n_objectives == 1:
            return ("value",)
        return tuple(f"value_{i}" for i in range(self.n_objectives))

    @property
    def single(self) -> bool:
        """One objective and no constraint (the values are one number per point)."""
        return self.n_outputs == 1

    @property
    def direction(self) -> str:
        """The direction of the one objective (ValueError with several)."""
        if self.n_objectives != 1:
            raise ValueError(f"{self.n_objectives} objectives have directions, not one")
        return self.directions[0]

    @property
    def maximize(self) -> bool:
        """Whether the one objective is maximized (ValueError with several)."""
        return self.direction == "maximize"

    # -- values --------------------------------------------------------------------------
    def outputs(self, raw: object) -> np.ndarray:
        """The ``(m,)`` row of outputs an objective function's return ``raw`` gives.

        Raises:
            OutputError: a missing name, a value that is not a number, a sequence of the
                wrong length, or a mapping where a number was expected (and back).
        """
        if self.objectives is not None:
            if not isinstance(raw, Mapping):
                raise OutputError(
                    f"the objective must return a mapping with keys {list(self.names)}, "
                    f"got {type(raw).__name__}"
                )
            missing = [n for n in self.names if n not in raw]
            if missing:
                raise OutputError(
                    f"the objective's return misses output(s) {missing} "
                    f"(it has keys {sorted(map(str, raw))})"
                )
            return np.array([_number(raw[n], n) for n in self.names])
        if isinstance(raw, Mapping):
            raise OutputError(
                "the objective returned a mapping; name the outputs to read with "
                "objectives=[...] (and constraints=[...])"
            )
        if self.n_objectives == 1:
            return np.array([_number(raw, "value")])
        if isinstance(raw, (str, bytes)) or not isinstance(raw, (Sequence, np.ndarray)):
            raise OutputError(f"the objective must return {self.n_objectives} numbers, got {raw!r}")
        values = list(np.asarray(raw, dtype=object).reshape(-1))
        if len(values) != self.n_objectives:
            raise OutputError(
                f"the objective returned {len(values)} values for {self.n_objectives} objectives"
            )
        return np.array([_number(v, n) for v, n in zip(values, self.names)])

    def rows(self, Y: npt.ArrayLike) -> np.ndarray:
        """``Y`` as ``(n, m)`` rows: ``(n,)`` is taken as ``n`` rows when ``m == 1`` and as
        one row when it holds ``m`` values otherwise.

        Raises:
            ValueError: ``Y`` has another shape.
        """
        Y = np.asarray(Y, dtype=float)
        m = self.n_outputs
        if Y.ndim == 1 and m == 1:
            return Y.reshape(-1, 1)
        if Y.ndim == 1 and Y.shape[0] == m:
            return Y.reshape(1, m)
        if Y.ndim == 2 and Y.shape[1] == m:
            return Y
        raise ValueError(f"values of shape {Y.shape} for outputs {list(self.names)}; "
                         f"expected (n, {m})")  # fmt: skip

    def internal(self, Y: npt.ArrayLike) -> np.ndarray:
        """The values a method sees for the user's values ``Y``: objective columns negated
        where maximized, constraint columns as they are (NaN stays NaN). ``(n,)`` in and
        out when ``m == 1``; otherwise ``(m,)`` or ``(n, m)``. The same map turns them
        back."""
        Y = np.asarray(Y, dtype=float)
        sign = np.ones(self.n_outputs)
        sign[: self.n_objectives] = [-1.0 if d == "maximize" else 1.0 for d in self.directions]
        if self.n_outputs == 1:
            return Y * sign[0]
        return self.rows(Y) * sign if Y.ndim == 2 else Y * sign

    def feasible(self, Y: npt.ArrayLike) -> np.ndarray:
        """``(n,)`` whether each row is feasible: every output finite and every
        constraint ``<= 0``."""
        R = self.rows(Y)
        finite = np.isfinite(R).all(axis=1)
        with np.errstate(invalid="ignore"):
            ok = (R[:, self.n_objectives :] <= 0).all(axis=1)
        return finite & ok

    def best_index(self, Y: npt.ArrayLike) -> int | None:
        """Index of the best feasible row by the first objective (the first of ties), or
        ``None`` when no row is feasible."""
        v = self.rows(self.internal(Y))[:, 0] if self.n_outputs > 1 else self.internal(Y)
        ok = np.flatnonzero(self.feasible(Y))
        return None if ok.size == 0 else int(ok[np.argmin(v[ok])])

    def running_best(self, Y: npt.ArrayLike) -> np.ndarray:
        """``(n,)`` best feasible value of the first objective so far, in the user's
        direction (NaN before the first feasible row)."""
        R = self.rows(Y)
        v = R[:, 0] * (-1.0 if self.directions[0] == "maximize" else 1.0)
        run = np.minimum.accumulate(np.where(self.feasible(R), v, np.inf))
        sign = -1.0 if self.directions[0] == "maximize" else 1.0
        return np.where(np.isfinite(run), sign * run, np.nan)

    # -- several objectives --------------------------------------------------------------
    def _maximized(self, Y: npt.ArrayLike) -> np.ndarray:
        """The objective columns of ``Y`` as BoTorch's convention wants them (maximized)."""
        return -self.rows(self.internal(self.rows(Y)))[:, : self.n_objectives]

    def pareto_indices(self, Y: npt.ArrayLike) -> np.ndarray:
        """Indices of the feasible rows no other feasible row dominates (BoTorch's
        ``is_non_dominated``), in row order. Equal rows do not dominate each other, so
        configurations with the same outputs are all kept, as Optuna's ``best_trials``."""
        import torch
        from botorch.utils.multi_objective.pareto import is_non_dominated

        ok = np.flatnonzero(self.feasible(Y))
        if ok.size == 0:
            return ok
        keep = is_non_dominated(torch.as_tensor(self._maximized(Y)[ok]), deduplicate=False)
        return ok[keep.numpy()]

    def check_reference(self, ref: npt.ArrayLike) -> np.ndarray:
        """``ref`` as ``(n_objectives,)`` finite values (ValueError otherwise)."""
        r = np.asarray(ref, dtype=float).reshape(-1)
        if r.shape != (self.n_objectives,) or not np.all(np.isfinite(r)):
            raise ValueError(
                f"reference point must be {self.n_objectives} finite numbers (one per "
                f"objective), got {np.asarray(ref).tolist()}"
            )
        return r

    def reference_point(self, Y: npt.ArrayLike) -> np.ndarray:
        """The reference point inferred from the feasible Pareto front of ``Y``.

        Rule (BoTorch's ``infer_reference_point``): in each objective, the front's worst
        value (the nadir) moved further in the worse direction by :data:`REFERENCE_SCALE`
        (10%) of the front's range in that objective; with a one-point front, by 10% of
        the point's absolute value (at least 1e-8). In the user's directions.

        Raises:
            ValueError: no row is feasible.
        """
        import torch
        from botorch.utils.multi_objective.hypervolume import infer_reference_point

        idx = self.pareto_indices(Y)
        if idx.size == 0:
            raise ValueError("no feasible point: a reference point cannot be inferred")
        front = torch.as_tensor(self._maximized(Y)[idx])
        ref = infer_reference_point(front, scale=REFERENCE_SCALE).numpy()
        return self._from_maximized(ref)

    def _from_maximized(self, r: np.ndarray) -> np.ndarray:
        sign = np.array([1.0 if d == "maximize" else -1.0 for d in self.directions])
        return r * sign

    def _maximized_reference(self, ref: npt.ArrayLike) -> np.ndarray:
        """``ref`` (user units, checked) in BoTorch's maximized convention."""
        return self._from_maximized(self.check_reference(ref))  # the sign map is its own inverse

    def hypervolume(self, Y: npt.ArrayLike, ref: npt.ArrayLike) -> float:
        """The hypervolume the feasible rows of ``Y`` dominate up to ``ref`` (user units);
        0 when none dominates it."""
        rm = self._maximized_reference(ref)
        P = self._maximized(Y)[self.pareto_indices(Y)]
        return _dominated_volume(P[(P > rm).all(axis=1)], rm)

    def hypervolume_history(self, Y: npt.ArrayLike, ref: npt.ArrayLike) -> np.ndarray:
        """``(n,)`` hypervolume of the first ``i + 1`` rows, for each ``i``
        (:meth:`hypervolume` of each prefix).

        The hypervolume changes only at a row that is feasible, dominates ``ref`` and is
        not weakly dominated by the front of the rows before it; only there is it
        computed again (of that front, updated), elsewhere the previous value stays.
        """
        rm = self._maximized_reference(ref)
        R = self.rows(Y)
        P = self._maximized(R)
        with np.errstate(invalid="ignore"):
            counts = self.feasible(R) & (P > rm).all(axis=1)
        out = np.zeros(len(R))
        front = np.empty((0, self.n_objectives))
        hv = 0.0
        for i, p in enumerate(P):
            if counts[i] and not (front >= p).all(axis=1).any():
                front = np.vstack([front[~(p >= front).all(axis=1)], p])
                hv = _dominated_volume(front, rm)
            out[i] = hv
        return out

    # -- records -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON description (a study records it). One unnamed objective keeps the form of
        studies from before several objectives (``{"direction": ...}``)."""
        if self.objectives is None and self.n_objectives == 1:
            return {"direction": self.directions[0]}
        return {
            "directions": list(self.directions),
            "objectives": None if self.objectives is None else list(self.objectives),
            "constraints": list(self.constraints),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> Objective:
        """The specification a study recorded (a study from before directions minimized;
        a study from before several objectives has one ``direction``)."""
        if not d:
            return cls()
        if not isinstance(d, Mapping):
            raise TypeError(f"an objective record must be a mapping, got {d!r}")
        unknown = sorted(set(d) - {"direction", "directions", "objectives", "constraints"})
        if unknown:
            raise ValueError(f"unknown field(s) {unknown} in objective record {dict(d)}")
        if "direction" in d:
            if "directions" in d:
                raise ValueError("an objective record has both direction and directions")
            return cls(d["direction"], d.get("objectives"), d.get("constraints", ()))
        return cls(d.get("directions"), d.get("objectives"), d.get("constraints", ()))

    def describe(self) -> str:
        """One line naming the outputs and directions, for messages."""
        parts = [f"{n} ({d})" for n, d in zip(self.names, self.directions)]
        parts += [f"{c} (<= 0)" for c in self.constraints]
        return ", ".join(parts)


def _dominated_volume(P: np.ndarray, rm: np.ndarray) -> float:
    """The volume the rows of ``P`` (maximized, each better than ``rm`` in every column,
    none dominating another) dominate up to ``rm`` (moocore's exact hypervolume; 0 for no
    row). The rows are sorted first, so that the same front in any order gives the same
    float."""
    if len(P) == 0:
        return 0.0
    import moocore

    return float(moocore.hypervolume(np.unique(P, axis=0), ref=rm, maximise=True))
