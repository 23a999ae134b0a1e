"""Ax's ``Client`` with its default generation strategy as a peer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from isoline.methods.peers.base import PeerMethod, plain, register_peer
from isoline.params import Categorical, Integer, Real


@register_peer
class AxPeer(PeerMethod):
    """Ax's ``Client`` with the generation strategy it chooses by default.

    Ax rejects a range narrower than its own limit (``100 * ax.core.parameter.EPS``)
    even on a log scale (bayesmark's MLP ``epsilon`` spans 1e-9 to 1e-6), and advises to
    reparameterize: such a log-scaled real is given to Ax as its ``log10`` on a linear
    scale, which is what Ax's log transform models anyway.

    A conditional space is given to Ax as its hierarchical search space (a choice
    parameter's ``dependent_parameters``) when Ax accepts it: every parent a Categorical,
    every child active for one value of its parent (Ax refuses a child reachable from two
    values, such as an SVM's ``gamma`` for the rbf and poly kernels, as a cycle). Otherwise
    Ax sees the space flat.

    With ``batch_size > 1`` the generation strategy is configured with Ax's
    ``allow_exceeding_initialization_budget=True``: the default one proposes its few Sobol
    points and then refuses (``DataRequiredError``) until results arrive, so a first
    batch larger than its initialization budget could not be served.
    """

    name = "ax"
    paper = "Ax Client, default generation strategy"
    packages = ("ax",)
    takes_budget = False
    native_conditions = True
    max_objectives = 100
    supports_constraints = True

    def _start(self) -> None:
        from ax import ChoiceParameterConfig, Client, RangeParameterConfig
        from ax.core.parameter import EPS

        self._client = Client(random_seed=self.seed, **self.options)
        if not all(len(v) == 1 and isinstance(self._params[p], Categorical)
                   for p, v in self._conditions.values()):  # fmt: skip
            self._conditions = {}  # a space Ax does not accept as a tree: flat
        dependents: dict[str, dict[Any, list[str]]] = {}
        for child, (parent, (value,)) in self._conditions.items():
            dependents.setdefault(parent, {}).setdefault(str(value), []).append(child)
        params: list[Any] = []
        #: log-scaled reals too narrow for Ax, given to it as their log10
        self._log10 = {n for n, p in self._params.items()
                       if isinstance(p, Real) and p.log and p.high - p.low < 100 * EPS}  # fmt: skip
        for n, p in self._params.items():
            if isinstance(p, Categorical):
                values = [str(c) for c in p.choices]
                params.append(ChoiceParameterConfig(name=n, values=values, parameter_type="str",
                                                    dependent_parameters=dependents.get(n)))  # fmt: skip
            elif n in self._log10:
                bounds = (float(np.log10(p.low)), float(np.log10(p.high)))
                params.append(RangeParameterConfig(name=n, parameter_type="float", bounds=bounds))
            else:
                params.append(RangeParameterConfig(
                    name=n, parameter_type="int" if isinstance(p, Integer) else "float",
                    bounds=(p.low, p.high), scaling="log" if p.log else "linear",
                ))  # fmt: skip
        self._client.configure_experiment(parameters=params)
        self._metrics = (["loss"] if self.n_objectives == 1
                         else [f"loss{i}" for i in range(self.n_objectives)])  # fmt: skip
        self._metrics += [f"c{i}" for i in range(self.n_constraints)]
        objective = ", ".join(f"-{m}" for m in self._metrics[: self.n_objectives])
        self._client.configure_optimization(
            objective=objective,
            outcome_constraints=[f"{m} <= 0" for m in self._metrics[self.n_objectives :]] or None,
        )
        if self.batch_size > 1:
            self._client.configure_generation_strategy(allow_exceeding_initialization_budget=True)
        self._ready: list[tuple[int, Mapping[str, Any]]] = []

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        if not self._ready:
            self._ready = list(self._client.get_next_trials(max_trials=1).items())
            if not self._ready:
                raise RuntimeError(
                    "ax: the generation strategy proposes no further trial before more "
                    "results arrive; use a smaller batch_size"
                )
        index, params = self._ready.pop(0)
        return {n: 10.0**v if n in self._log10 else v for n, v in params.items()}, index

    def _tell_one(self, handle: Any, y: Any) -> None:
        row = np.atleast_1d(np.asarray(y, dtype=float))
        if np.all(np.isfinite(row)):
            data = {m: float(v) for m, v in zip(self._metrics, row)}
            self._client.complete_trial(handle, raw_data=data)
        else:
            self._client.mark_trial_failed(handle)

    def _tell_new(self, values: Mapping[str, Any], y: Any) -> None:
        typed = {n: str(v) if isinstance(self._params[n], Categorical)
                 else float(np.log10(v)) if n in self._log10 else plain(v)
                 for n, v in values.items()}  # fmt: skip
        self._tell_one(self._client.attach_trial(typed), y)
