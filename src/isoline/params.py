"""Typed search spaces: real, integer and categorical parameters, encoded into the unit cube.

``Space({"lr": Real(1e-5, 1e-1, log=True), "depth": Integer(1, 8), "act": Categorical(
["relu", "tanh"])})`` is an ordered set of named parameters. Methods work in the encoded
cube ``[0, 1]^dim`` (:mod:`isoline.encoding`: one column per real or integer parameter,
one per choice of a categorical); :meth:`Space.decode` turns encoded points into
configurations, dicts of plain Python values (``float``, ``int``, the chosen object), and
:meth:`Space.encode` does the reverse. :meth:`Space.round` replaces encoded points by the
encoding of the configuration they decode to, so two points that round alike are the same
configuration and a surrogate fitted to rounded inputs models what is actually evaluated
(Garrido-Merchan & Hernandez-Lobato, "Dealing with categorical and integer-valued
variables in Bayesian optimization with Gaussian processes", Neurocomputing 2020).
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from isoline.conditions import INACTIVE, Conditions
from isoline.encoding import (
    DiscreteLayout,
    argmax_one_hot,
    int_from_unit,
    int_to_unit,
    real_from_unit,
    real_to_unit,
)
from isoline.input_constraints import Linear, unit_constraints
from isoline.param_types import Categorical, Integer, Param, Real, param_domain, stored_form
from isoline.space import SearchSpace
from isoline.validation import check_float

__all__ = ["Categorical", "Integer", "Param", "Real", "Space"]


class Space(SearchSpace):
    """An ordered set of named parameters and its encoding into ``[0, 1]^dim``: a
    :class:`~isoline.space.SearchSpace` whose points are configuration dicts.

    Args:
        params: a mapping (or a sequence of ``(name, param)`` pairs) from names to
            :class:`Real`, :class:`Integer` or :class:`Categorical`.
        conditions: ``{child: {parent: values}}``: ``child`` is active only when its
            parent (a Categorical or Integer, active itself) takes one of ``values``
            (:mod:`isoline.conditions`); a configuration holds only active parameters.
        constraints: known :class:`~isoline.input_constraints.Linear` constraints between
            Real parameters (linear scale, not conditional) that every proposal satisfies.
    """

    def __init__(
        self,
        params: Mapping[str, Param] | Sequence[tuple[str, Param]],
        conditions: Mapping[str, Mapping[str, Any]] | None = None,
        constraints: Sequence[Linear] | None = None,
    ) -> None:
        items = list(params.items()) if isinstance(params, Mapping) else list(params)
        if not items:
            raise ValueError("a Space needs at least one parameter")
        self.params: dict[str, Param] = {}
        for item in items:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(f"Space entries must be (name, parameter) pairs, got {item!r}")
            name, p = item
            if not isinstance(name, str) or not name:
                raise TypeError(f"parameter names must be non-empty strings, got {name!r}")
            if name in self.params:
                raise ValueError(f"parameter {name!r} is defined twice")
            if not isinstance(p, (Real, Integer, Categorical)):
                raise TypeError(
                    f"parameter {name!r} must be a Real, Integer or Categorical, "
                    f"got {type(p).__name__}"
                )
            self.params[name] = p
        self.blocks: dict[str, slice] = {}
        start = 0
        for name, p in self.params.items():
            self.blocks[name] = slice(start, start + p.width)
            start += p.width
        #: encoded dimension (columns of the unit cube)
        self.dim = start
        self.conditions = Conditions(
            {n: param_domain(p) for n, p in self.params.items()}, conditions
        )
        self.constraints: tuple[Linear, ...] = tuple(constraints or ())
        #: the constraints as ``A u <= c`` in the encoded cube (``None`` without constraints)
        self.input_constraints = unit_constraints(self.constraints, self._columns(), self.dim)

    def _columns(self) -> dict[str, tuple[int, float, float] | str]:
        """Each parameter's column and bounds if a Linear may involve it, else what it is."""
        return {name: "conditional" if name in self.conditions.parent
                else "an Integer" if isinstance(p, Integer)
                else "a Categorical" if not isinstance(p, Real)
                else f"on a {p.scale} scale" if p.scale != "linear"
                else (self.blocks[name].start, p.low, p.high)
                for name, p in self.params.items()}  # fmt: skip

    def active(self, config: Mapping[str, Any]) -> list[str]:
        """The names of the parameters active in ``config`` (a dict of values)."""
        return self.conditions.active(config)

    @property
    def names(self) -> list[str]:
        return list(self.params)

    @property
    def discrete(self) -> bool:
        """Whether any parameter is an Integer or a Categorical."""
        return any(not isinstance(p, Real) for p in self.params.values())

    @property
    def categorical(self) -> bool:
        """Whether any parameter is a Categorical."""
        return any(isinstance(p, Categorical) for p in self.params.values())

    @property
    def rescaled(self) -> bool:
        """Whether any Real parameter is on a log or logit scale."""
        return any(isinstance(p, Real) and p.scale != "linear" for p in self.params.values())

    @property
    def method_space(self) -> Space:
        """This space: methods round and search its integer and categorical columns."""
        return self

    @property
    def discrete_columns(self) -> list[int]:
        """Encoded columns of the Integer and Categorical parameters."""
        return [
            c
            for name, p in self.params.items()
            if not isinstance(p, Real)
            for c in range(self.blocks[name].start, self.blocks[name].stop)
        ]

    def discrete_layout(self, max_values: int = 20) -> DiscreteLayout:
        """The encoded values of each Integer column with at most ``max_values`` values
        and the one-hot block of each Categorical: what a mixed acquisition search steps
        through. Integers with more values are left out (searched as relaxed columns)."""
        ordinal: dict[int, tuple[float, ...]] = {}
        one_hot: list[tuple[int, int]] = []
        for name, p in self.params.items():
            s = self.blocks[name]
            if isinstance(p, Integer) and p.high - p.low + 1 <= max_values:
                k = np.arange(p.low, p.high + 1, dtype=float)
                ordinal[s.start] = tuple(float(u) for u in int_to_unit(k, p.low, p.high, p.scale))
            elif isinstance(p, Categorical):
                one_hot.append((s.start, s.stop))
        return DiscreteLayout(ordinal, tuple(one_hot))

    @property
    def n_configs(self) -> int | None:
        """The number of distinct configurations (differing in an active parameter),
        ``None`` if a Real makes it infinite."""
        return self.conditions.count()

    def grid(self, limit: int = 100_000) -> np.ndarray:
        """``(n_configs, dim)`` encodings of every configuration of a finite space.

        Raises:
            ValueError: the space has a Real parameter or more than ``limit`` configurations.
        """
        n = self.n_configs
        if n is None or n > limit:
            raise ValueError(
                f"the space has {n or 'infinitely many'} configurations (limit {limit})"
            )
        return self.encode(self.conditions.configurations())

    def encode(self, configs: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> np.ndarray:
        """``(n, dim)`` encoded points of ``n`` configurations (``(dim,)`` for one)."""
        single = isinstance(configs, Mapping)
        rows = [configs] if isinstance(configs, Mapping) else list(configs)
        U = np.full((len(rows), self.dim), INACTIVE)
        for r, config in enumerate(rows):
            extra = [n for n in config if n not in self.params]
            on = self.active(config)  # a parent with a bad value is refused below, first
            for name in [n for n in self.conditions.order if n in config and n in on]:
                self._encode_one(name, self.params[name], config[name])  # names a bad value
            missing = [n for n in on if n not in config]
            off = [n for n in config if n in self.params and n not in on]
            if missing or extra or off:
                raise ValueError(
                    f"configuration {dict(config)!r}: missing {missing}, unknown {extra}"
                    + (f", inactive {off} (leave inactive parameters out)" if off else "")
                )
            for name in on:
                U[r, self.blocks[name]] = self._encode_one(name, self.params[name], config[name])
        return U[0] if single else U

    def decode(self, U: np.ndarray) -> list[dict[str, Any]]:
        """Configurations of ``(n, dim)`` encoded points (each a dict of plain values)."""
        U = self._points(U)
        out: list[dict[str, Any]] = [{} for _ in range(len(U))]
        for name, p in self.params.items():
            block = U[:, self.blocks[name]]
            if isinstance(p, Categorical):
                idx = np.argmax(block, axis=1)
                values: list[Any] = [p.choices[int(i)] for i in idx]
            elif isinstance(p, Integer):
                values = [int(v) for v in int_from_unit(block[:, 0], p.low, p.high, p.scale)]
            else:
                values = [float(v) for v in real_from_unit(block[:, 0], p.low, p.high, p.scale)]
            for row, v in zip(out, values):
                row[name] = v
        if self.conditions:
            masks = self.conditions.masks(self._codes(U))
            for name, on in masks.items():
                for row, a in zip(out, on):
                    if not a:
                        del row[name]
        return out

    def _codes(self, U: np.ndarray) -> dict[str, np.ndarray]:
        """Each parameter's value in rows ``U`` as its position in its domain (Integer
        and Categorical parameters only)."""
        out: dict[str, np.ndarray] = {}
        for name, p in self.params.items():
            s = self.blocks[name]
            if isinstance(p, Categorical):
                out[name] = np.argmax(U[:, s], axis=1)
            elif isinstance(p, Integer):
                k = int_from_unit(U[:, s.start], p.low, p.high, p.scale)
                out[name] = k.astype(np.int64) - p.low
        return out

    def round(self, U: np.ndarray) -> np.ndarray:
        """Each encoded point replaced by the encoding of the configuration it decodes to."""
        U = self._points(U)
        R = np.array(U, dtype=float, copy=True)
        for name, p in self.params.items():
            s = self.blocks[name]
            if isinstance(p, Categorical):
                R[:, s] = argmax_one_hot(U[:, s])
            elif isinstance(p, Integer):
                k = int_from_unit(U[:, s.start], p.low, p.high, p.scale)
                R[:, s.start] = int_to_unit(k, p.low, p.high, p.scale)
            else:
                R[:, s.start] = np.clip(U[:, s.start], 0.0, 1.0)
        for name, on in self.conditions.masks(self._codes(R)).items():
            R[~on, self.blocks[name]] = INACTIVE
        return R

    # -- the space protocol (isoline.space.SearchSpace, shared with Box) -----------------
    def from_unit(self, U: np.ndarray) -> list[dict[str, Any]]:
        """Configurations of encoded points (:meth:`decode`)."""
        return self.decode(U)

    def to_unit(self, configs: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """``(n, dim)`` encoded points of configurations (:meth:`encode`)."""
        return np.atleast_2d(self.encode(list(configs)))

    def points(self, X: Any) -> list[dict[str, Any]]:
        """``X`` (a configuration or several) as a non-empty list of checked
        configurations (copies)."""
        configs = [X] if isinstance(X, Mapping) else list(X)
        if not configs:
            raise ValueError("need at least one configuration, got none")
        for c in configs:
            if not isinstance(c, Mapping):
                raise TypeError(f"a Space takes configurations as dicts, got {type(c).__name__}")
        self.to_unit(configs)  # names the parameter of any bad value
        return [dict(c) for c in configs]

    def unit(self, P: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """``(n, dim)`` encoded points of checked configurations."""
        return self.to_unit(P)

    @staticmethod
    def key(x: Mapping[str, Any]) -> str:
        """A text that two configurations share exactly when they are equal."""
        return json.dumps({k: [type(v).__name__, v] for k, v in sorted(x.items())}, default=repr)

    def copy_point(self, x: Mapping[str, Any]) -> dict[str, Any]:
        return dict(x)

    def stored_points(self, xs: Sequence[Any], us: Sequence[Any]) -> list[dict[str, Any]]:
        """The configurations decoded from the stored unit-cube points (so every choice is
        its own object again, whatever its JSON form in the store)."""
        return self.from_unit(self.stored_unit(xs, us))

    def stored_unit(self, xs: Sequence[Any], us: Sequence[Any]) -> np.ndarray:
        return np.array(us, dtype=float).reshape(-1, self.dim)

    def record(self, X: Any) -> Any:
        """``X`` as given (a configuration or a list of them); a study stores it as JSON."""
        return X

    def to_dict(self) -> dict[str, Any]:
        """JSON description (stored with a study; a resumed study must match it)."""
        out: list[dict[str, Any]] = []
        for name, p in self.params.items():
            if isinstance(p, Real):
                out.append({"name": name, "type": "real", "low": p.low, "high": p.high,
                            "log": p.log, "logit": p.logit})  # fmt: skip
            elif isinstance(p, Integer):
                out.append({"name": name, "type": "integer", "low": p.low, "high": p.high,
                            "log": p.log})  # fmt: skip
            else:
                choices = [stored_form(c) for c in p.choices]
                out.append({"name": name, "type": "categorical", "choices": choices})
        d: dict[str, Any] = {"params": out}
        if self.conditions:
            d["conditions"] = self.conditions.to_list(stored_form)
        if self.constraints:
            d["constraints"] = [c.to_dict() for c in self.constraints]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Space:
        """The space :meth:`to_dict` described. A categorical choice that is not JSON (an
        object, a tuple) comes back as its stored form (its ``repr``, a list).

        Raises:
            ValueError: ``d`` is not such a description.
        """
        try:
            params: list[tuple[str, Param]] = []
            for p in d["params"]:
                kind = p["type"]
                if kind == "real":
                    param: Param = Real(p["low"], p["high"], log=p["log"], logit=p["logit"])
                elif kind == "integer":
                    param = Integer(p["low"], p["high"], log=p["log"])
                elif kind == "categorical":
                    param = Categorical(p["choices"])
                else:
                    raise ValueError(f"unknown parameter type {kind!r}")
                params.append((p["name"], param))
            conditions = Conditions.from_list(d.get("conditions", []))
            constraints = [Linear.from_dict(c) for c in d.get("constraints", [])]
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a Space description ({err!r}): {d!r}") from None
        return cls(params, conditions, constraints)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Space)
            and self.params == other.params
            and self.conditions == other.conditions
            and self.constraints == other.constraints
        )

    __hash__ = None  # type: ignore[assignment]

    def _encode_one(self, name: str, p: Param, value: Any) -> np.ndarray:
        if isinstance(p, Categorical):
            try:
                i = p.index(value)
            except ValueError as err:
                raise ValueError(f"parameter {name!r}: {err}") from None
            hot = np.zeros(p.width)
            hot[i] = 1.0
            return hot
        if isinstance(p, Integer):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"parameter {name!r} takes integers, got {value!r}")
            if not p.low <= int(value) <= p.high:
                raise ValueError(f"parameter {name!r}: {value} is outside [{p.low}, {p.high}]")
            return np.array([int_to_unit(np.float64(int(value)), p.low, p.high, p.scale)])
        v = check_float(value, f"parameter {name!r}")
        if not p.low <= v <= p.high:
            raise ValueError(f"parameter {name!r}: {v} is outside [{p.low}, {p.high}]")
        return real_to_unit(np.array([v]), p.low, p.high, p.scale)

    def _points(self, U: np.ndarray) -> np.ndarray:
        U = np.atleast_2d(np.asarray(U, dtype=float))
        if U.ndim != 2 or U.shape[1] != self.dim:
            raise ValueError(f"encoded points must have shape (n, {self.dim}), got {U.shape}")
        return U

    def __repr__(self) -> str:
        cond = f", conditions={self.conditions.given()!r}" if self.conditions else ""
        lin = f", constraints={list(self.constraints)!r}" if self.constraints else ""
        return f"Space({self.params!r}{cond}{lin})"
