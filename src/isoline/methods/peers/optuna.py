"""Optuna's samplers (TPE, GP, CMA-ES, NSGA-II) as peers, through ``Study.ask``/``tell``.

On a conditional space TPE and GP run define-by-run, as an Optuna user writes such a
study: each trial suggests a parameter only when its parent's value activates it (parents
first), so the sampler sees the tree (TPE's ``group=True`` splits it by the sets of
parameters asked together; GP models the intersection of the trials' parameters and
leaves the rest to its independent sampler, as it does for any define-by-run study).
CMA-ES sees the space flat.

Several objectives become a study with one ``"minimize"`` direction per objective, and
black-box constraints the sampler's own ``constraints_func`` (Optuna's convention, ``<= 0``
feasible, as isoline's), reading the values each trial carries in its user attribute
``constraints``. CmaEsSampler takes neither, and refuses them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from isoline.methods.peers.base import PeerMethod, register_peer
from isoline.params import Categorical, Integer

#: the user attribute of a trial holding its constraint values
CONSTRAINTS_ATTR = "constraints"


def trial_constraints(trial: Any) -> Sequence[float]:
    """Optuna ``constraints_func``: the constraint values a trial carries (``<= 0``
    feasible)."""
    return list(trial.user_attrs[CONSTRAINTS_ATTR])


class _OptunaPeer(PeerMethod):
    packages: ClassVar[tuple[str, ...]] = ("optuna",)
    takes_budget = False
    sampler_class: ClassVar[str] = ""
    max_objectives: ClassVar[int] = 100
    supports_constraints: ClassVar[bool] = True

    def _start(self) -> None:
        import optuna

        options = dict(self.options)
        if self.n_constraints:
            options["constraints_func"] = trial_constraints
        sampler = getattr(optuna.samplers, self.sampler_class)(seed=self.seed, **options)
        self._study = optuna.create_study(
            directions=["minimize"] * self.n_objectives, sampler=sampler
        )
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
        if not self._conditions:
            trial = self._study.ask(self._dists)
            return trial.params, trial
        trial = self._study.ask()
        values: dict[str, Any] = {}
        for key in self._order:
            cond = self._conditions.get(key)
            if cond is None or (cond[0] in values and values[cond[0]] in cond[1]):
                values[key] = _suggest(trial, key, self._dists[key])
        return values, trial

    def _tell_one(self, handle: Any, y: Any) -> None:
        from optuna.trial import TrialState

        row = np.atleast_1d(np.asarray(y, dtype=float))
        if not np.all(np.isfinite(row)):
            self._study.tell(handle, state=TrialState.FAIL)
            return
        if self.n_constraints:
            handle.set_user_attr(CONSTRAINTS_ATTR, row[self.n_objectives :].tolist())
        values = row[: self.n_objectives].tolist()
        self._study.tell(handle, values[0] if len(values) == 1 else values)

    def _tell_new(self, values: Mapping[str, Any], y: Any) -> None:
        from optuna.trial import TrialState, create_trial

        dists = {n: self._dists[n] for n in values}
        if self.n_outputs > 1:  # through ask, so the sampler records the constraints
            self._study.enqueue_trial(dict(values), skip_if_exists=False)
            self._tell_one(self._study.ask(dists), y)
            return
        kw: dict[str, Any] = {"value": y} if np.isfinite(y) else {"state": TrialState.FAIL}
        self._study.add_trial(create_trial(params=dict(values), distributions=dists, **kw))


def _suggest(trial: Any, name: str, dist: Any) -> Any:
    """Suggest ``name`` from its distribution through the trial's public API."""
    from optuna.distributions import CategoricalDistribution, IntDistribution

    if isinstance(dist, CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, log=dist.log)
    return trial.suggest_float(name, dist.low, dist.high, log=dist.log)


@register_peer
class OptunaTPE(_OptunaPeer):
    name = "optuna-tpe"
    paper = "Optuna TPESampler"
    sampler_class = "TPESampler"
    native_conditions = True


@register_peer
class OptunaGP(_OptunaPeer):
    name = "optuna-gp"
    paper = "Optuna GPSampler"
    sampler_class = "GPSampler"
    native_conditions = True


@register_peer
class OptunaCmaEs(_OptunaPeer):
    name = "optuna-cmaes"
    paper = "Optuna CmaEsSampler"
    packages = ("optuna", "cmaes")
    sampler_class = "CmaEsSampler"
    max_objectives = 1
    supports_constraints = False


@register_peer
class OptunaNSGA2(_OptunaPeer):
    name = "optuna-nsga2"
    paper = "Optuna NSGAIISampler (Deb et al., IEEE TEVC 2002)"
    sampler_class = "NSGAIISampler"
