"""Optuna's samplers (TPE, GP, CMA-ES) as peers, through ``Study.ask``/``tell``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from isoline.methods.peers.base import PeerMethod, register_peer
from isoline.params import Categorical, Integer


class _OptunaPeer(PeerMethod):
    packages: ClassVar[tuple[str, ...]] = ("optuna",)
    takes_budget = False
    sampler_class: ClassVar[str] = ""

    def _start(self) -> None:
        import optuna

        sampler = getattr(optuna.samplers, self.sampler_class)(seed=self.seed, **self.options)
        self._study = optuna.create_study(direction="minimize", sampler=sampler)
        D = optuna.distributions
        self._dists: dict[str, optuna.distributions.BaseDistribution] = {}
        for n, p in self._params.items():
            if isinstance(p, Categorical):
                self._dists[n] = D.CategoricalDistribution(p.choices)
            elif isinstance(p, Integer):
                self._dists[n] = D.IntDistribution(p.low, p.high, log=p.log)
            else:
                self._dists[n] = D.FloatDistribution(p.low, p.high, log=p.log)

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        trial = self._study.ask(self._dists)
        return trial.params, trial

    def _tell_one(self, handle: Any, y: float) -> None:
        from optuna.trial import TrialState

        if np.isfinite(y):
            self._study.tell(handle, y)
        else:
            self._study.tell(handle, state=TrialState.FAIL)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        from optuna.trial import TrialState, create_trial

        kw: dict[str, Any] = {"value": y} if np.isfinite(y) else {"state": TrialState.FAIL}
        self._study.add_trial(create_trial(params=dict(values), distributions=self._dists, **kw))


@register_peer
class OptunaTPE(_OptunaPeer):
    name = "optuna-tpe"
    paper = "Optuna TPESampler"
    sampler_class = "TPESampler"


@register_peer
class OptunaGP(_OptunaPeer):
    name = "optuna-gp"
    paper = "Optuna GPSampler"
    sampler_class = "GPSampler"


@register_peer
class OptunaCmaEs(_OptunaPeer):
    name = "optuna-cmaes"
    paper = "Optuna CmaEsSampler"
    packages = ("optuna", "cmaes")
    sampler_class = "CmaEsSampler"
