"""Optuna's distributions as isoline parameters, and parameter values both ways (the
mapping :mod:`isoline.integrations.optuna` states)."""

from __future__ import annotations

from typing import Any

from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from isoline.params import Categorical, Integer, Real

__all__ = ["from_optuna", "param_of", "to_optuna"]


def param_of(dist: BaseDistribution) -> Real | Integer | Categorical:
    """The isoline parameter of one Optuna distribution."""
    if isinstance(dist, CategoricalDistribution):
        return Categorical(dist.choices)
    if isinstance(dist, IntDistribution):
        if dist.step == 1:
            return Integer(dist.low, dist.high, log=dist.log)
        return Integer(0, (dist.high - dist.low) // dist.step)
    if isinstance(dist, FloatDistribution):
        if dist.step is None:
            return Real(dist.low, dist.high, log=dist.log)
        return Integer(0, int(round((dist.high - dist.low) / dist.step)))
    raise ValueError(f"IsolineSampler does not support {type(dist).__name__}")


def to_optuna(dist: BaseDistribution, value: Any) -> Any:
    """A configuration value as the Optuna distribution's value."""
    if isinstance(dist, IntDistribution):
        return int(value if dist.step == 1 else dist.low + value * dist.step)
    if isinstance(dist, FloatDistribution):
        if dist.step is None:
            return float(value)
        return float(min(dist.low + value * dist.step, dist.high))
    return value


def from_optuna(dist: BaseDistribution, value: Any) -> Any:
    """An Optuna parameter value as the configuration value of its isoline parameter."""
    if isinstance(dist, IntDistribution):
        return int(value if dist.step == 1 else (value - dist.low) // dist.step)
    if isinstance(dist, FloatDistribution):
        if dist.step is None:
            return float(value)
        return int(round((value - dist.low) / dist.step))
    return value
