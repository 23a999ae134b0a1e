"""The table of a run's evaluations (:meth:`isoline.Result.to_dataframe`) and the
description of its parameters that the plots of :mod:`isoline.visualization` share.

One row per finished evaluation, in evaluation order, with the columns

- ``number``, ``batch``: the trial number and the batch it was proposed in (from 0);
- ``params_<name>``: one column per parameter, in the user's types: floats for a
  :class:`~isoline.space.Box` dimension or a :class:`~isoline.params.Real`, integers for an
  :class:`~isoline.params.Integer`, and for a :class:`~isoline.params.Categorical` the
  chosen objects themselves (an ``object`` column). A conditional parameter (a
  :class:`~isoline.params.Space` with ``conditions``) is missing where it was inactive:
  NaN for a Real, ``<NA>`` (a nullable ``Int64`` column) for an Integer, ``None`` for a
  Categorical (``<NA>`` for one that has ``None`` among its choices, so that the choice
  ``None`` is told apart from an inactive parameter);
- ``value``: what the objective returned (NaN for a failed evaluation);
- with named or several outputs (``Result.values``): ``values_<name>`` per output, in
  ``Result.output_names`` order; ``feasible`` with constraints; ``pareto`` (on the
  feasible Pareto front) with several objectives;
- ``state``: ``"complete"`` or ``"failed"``; ``error``: why it failed (``None`` if not);
- ``datetime_start``, ``datetime_complete`` (UTC) and ``duration``;
- ``info_<key>``: one column per key of the dicts the objective returned with its values
  (``(value, dict)``), empty where an evaluation did not report that key.

The ``params_`` prefix keeps a parameter called ``value`` or ``state`` apart from the
other columns (the convention of Optuna's ``Study.trials_dataframe``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from isoline.params import Categorical, Integer, Real, Space
from isoline.space import Box
from isoline.store import Trial

__all__ = ["PREFIX", "STATES", "Parameter", "is_missing", "parameters", "to_dataframe"]

#: the prefix of the parameter columns
PREFIX = "params_"
#: the stored status of an evaluation -> its ``state`` in the table
STATES = {"ok": "complete", "failed": "failed"}


class Evaluated(Protocol):
    """What :func:`to_dataframe` reads of a :class:`~isoline.Result`."""

    @property
    def space(self) -> Box | Space | None: ...
    @property
    def x_iters(self) -> Any: ...
    @property
    def func_vals(self) -> np.ndarray: ...
    @property
    def status(self) -> list[str]: ...
    @property
    def errors(self) -> list[str | None]: ...
    @property
    def wall_times(self) -> np.ndarray: ...
    @property
    def trials(self) -> list[Trial]: ...
    @property
    def infos(self) -> list[dict[str, Any] | None]: ...


@dataclass(frozen=True)
class Parameter:
    """One parameter as the plots show it.

    Attributes:
        name: its name (the column is ``params_<name>``).
        kind: ``"real"``, ``"integer"`` or ``"categorical"``.
        low, high: its bounds (``None`` for a categorical).
        log: whether it lives on a log scale.
        choices: a categorical's choices (empty otherwise).
        conditional: whether a condition can make it inactive.
    """

    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: tuple[Any, ...] = ()
    conditional: bool = False

    @property
    def column(self) -> str:
        return PREFIX + self.name

    def inactive(self, v: Any) -> bool:
        """Whether the table cell ``v`` marks this parameter inactive (never for one
        without a condition; ``None`` is a value when it is one of the choices)."""
        if not self.conditional:
            return False
        if v is None:
            return not any(c is None for c in self.choices)
        return is_missing(v)

    def codes(self, values: Sequence[Any]) -> np.ndarray:
        """``(n,)`` numbers to place ``values`` on an axis: the values themselves, or a
        categorical's choice indices; NaN where the parameter was inactive (missing)."""
        if self.kind != "categorical":
            return np.array([np.nan if is_missing(v) else v for v in values], dtype=float)
        c = Categorical(self.choices)
        return np.array([np.nan if self.inactive(v) else c.index(v) for v in values], dtype=float)

    def unit(self, values: Sequence[Any]) -> np.ndarray:
        """``(n,)`` positions of ``values`` in ``[0, 1]`` (log-scaled where the parameter
        is; a categorical's choices evenly spaced)."""
        codes = self.codes(values)
        if self.kind == "categorical":
            k = len(self.choices)
            return codes / (k - 1) if k > 1 else np.full(codes.shape, 0.5)
        assert self.low is not None and self.high is not None
        lo, hi, x = self.low, self.high, codes
        if self.log:
            lo, hi, x = np.log(lo), np.log(hi), np.log(x)
        return (x - lo) / (hi - lo) if hi > lo else np.full(codes.shape, 0.5)


def is_missing(v: Any) -> bool:
    """Whether a table cell marks an inactive parameter (None, NaN or pandas' NA)."""
    return v is None or (isinstance(v, float) and np.isnan(v)) or type(v).__name__ == "NAType"


def parameters(space: Box | Space) -> list[Parameter]:
    """The parameters of ``space`` in order (a Box's dimensions as linear reals)."""
    if isinstance(space, Box):
        return [
            Parameter(n, "real", float(lo), float(hi))
            for n, lo, hi in zip(space.names, space.lower, space.upper)
        ]
    out = []
    for name, p in space.params.items():
        cond = name in space.conditions.parent
        if isinstance(p, Categorical):
            out.append(Parameter(name, "categorical", choices=p.choices, conditional=cond))
        elif isinstance(p, Integer):
            out.append(Parameter(name, "integer", float(p.low), float(p.high), p.log, (), cond))
        else:
            assert isinstance(p, Real)
            out.append(Parameter(name, "real", p.low, p.high, p.log, (), cond))
    return out


def to_dataframe(result: Evaluated) -> Any:
    """``result``'s evaluations as a :class:`pandas.DataFrame` (columns in the module's
    docstring).

    Raises:
        ValueError: the result carries no space (a Result built by hand without one).
    """
    import pandas as pd

    if result.space is None:
        raise ValueError("this Result has no space to name its parameters; read it with iso.load")
    n = len(result.func_vals)
    trials = result.trials if len(result.trials) == n else None
    columns: dict[str, Any] = {
        "number": np.array([t.number for t in trials] if trials else np.arange(n), dtype=np.int64)
    }
    columns["batch"] = pd.array([t.batch for t in trials] if trials else [None] * n, dtype="Int64")
    for p, values in zip(parameters(result.space), _columns(result.space, result.x_iters, n)):
        columns[p.column] = values
    columns["value"] = np.asarray(result.func_vals, dtype=float)
    spec, outputs = getattr(result, "objective", None), getattr(result, "outputs", None)
    if spec is not None and outputs is not None:
        for name, col in zip(spec.names, np.asarray(outputs, dtype=float).T):
            columns[f"values_{name}"] = col
        if spec.n_constraints:
            columns["feasible"] = spec.feasible(outputs)
        if spec.n_objectives > 1:
            columns["pareto"] = np.isin(np.arange(n), spec.pareto_indices(outputs))
    columns["state"] = pd.Series([STATES.get(s, s) for s in result.status], dtype=object)
    columns["error"] = pd.Series(list(result.errors), dtype=object)
    none: list[float | None] = [None] * n
    started = [t.started for t in trials] if trials else none
    finished = [t.finished for t in trials] if trials else none
    columns["datetime_start"] = _datetimes(pd, started)
    columns["datetime_complete"] = _datetimes(pd, finished)
    if trials:
        columns["duration"] = columns["datetime_complete"] - columns["datetime_start"]
    else:
        columns["duration"] = pd.to_timedelta(np.asarray(result.wall_times, dtype=float), unit="s")
    infos = [i or {} for i in result.infos] if len(result.infos) == n else [{}] * n
    for key in dict.fromkeys(k for info in infos for k in info):
        columns[f"info_{key}"] = pd.Series([info.get(key) for info in infos])
    return pd.DataFrame({k: pd.Series(v).reset_index(drop=True) for k, v in columns.items()})


def _columns(space: Box | Space, x_iters: Any, n: int) -> list[Any]:
    """One column of values per parameter, typed as the parameter's values are."""
    import pandas as pd

    if isinstance(space, Box):
        X = np.asarray(x_iters, dtype=float).reshape(n, space.dim)
        return [X[:, j].copy() for j in range(space.dim)]
    out: list[Any] = []
    for name, p in space.params.items():
        values = [c.get(name) for c in x_iters]  # a conditional one only where active
        conditional = name in space.conditions.parent
        if isinstance(p, Integer):
            out.append(pd.array(values, dtype="Int64") if conditional else np.array(values))
        elif isinstance(p, Real):
            out.append(np.array([np.nan if v is None else v for v in values], dtype=float))
        else:
            if conditional and any(c is None for c in p.choices):  # None is a choice
                values = [v if name in c else pd.NA for v, c in zip(values, x_iters)]
            out.append(pd.Series(values, dtype=object))
    return out


def _datetimes(pd: Any, seconds: list[float | None]) -> Any:
    raw = np.array([np.nan if s is None else s for s in seconds], dtype=float)
    return pd.to_datetime(raw, unit="s", utc=True)
