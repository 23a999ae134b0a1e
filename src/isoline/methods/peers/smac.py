"""SMAC3's BlackBox and HyperparameterOptimization facades as peers (ask/tell).

A conditional space is given to SMAC3 with ConfigSpace's conditions (an ``EqualsCondition``
for one parent value, an ``InCondition`` for several; nested as the space nests), so it
proposes and models configurations of active parameters only.

Several objectives: the scenario's ``objectives`` and SMAC's ParEGO scalarization
(``smac.multi_objective.parego.ParEGO``; Knowles, "ParEGO: a hybrid algorithm with on-line
landscape approximation for expensive multiobjective optimization problems", IEEE TEVC
2006), as SMAC's multi-objective example does. SMAC has no black-box constraints: a
constrained specification is refused.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from isoline.methods.peers.base import DEFAULT_BUDGET, PeerMethod, plain, register_peer
from isoline.params import Categorical, Integer


class _SmacPeer(PeerMethod):
    packages = ("smac",)
    facade: ClassVar[str] = ""
    max_objectives: ClassVar[int] = 100

    def _start(self) -> None:
        import smac
        from ConfigSpace import Categorical as CSCategorical
        from ConfigSpace import ConfigurationSpace, Float
        from ConfigSpace import Integer as CSInteger

        cs = ConfigurationSpace(seed=self.seed)
        hps: list[Any] = []
        for n, p in self._params.items():
            if isinstance(p, Categorical):
                hps.append(CSCategorical(n, [str(c) for c in p.choices]))
            elif isinstance(p, Integer):
                hps.append(CSInteger(n, (p.low, p.high), log=p.log))
            else:
                hps.append(Float(n, (p.low, p.high), log=p.log))
        cs.add(hps)
        cs.add(_cs_conditions(cs, self._conditions, self._params))
        self._tmp = tempfile.TemporaryDirectory(prefix="isoline-smac-")
        several = self.n_objectives > 1
        objectives = [f"loss{i}" for i in range(self.n_objectives)] if several else "cost"
        scenario = smac.Scenario(
            cs, deterministic=True, seed=self.seed, n_trials=self.budget or DEFAULT_BUDGET,
            output_directory=Path(self._tmp.name), objectives=objectives,
        )  # fmt: skip
        cls = getattr(smac, self.facade)
        options = dict(self.options)
        if several:
            from smac.multi_objective.parego import ParEGO

            options.setdefault("multi_objective_algorithm", ParEGO(scenario))
        self._smac = cls(
            scenario, lambda config, seed=0: 0.0, overwrite=True, logging_level=False,
            **options,
        )  # fmt: skip
        self._cs = cs

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        info = self._smac.ask()
        active = dict(info.config)
        return {n: active[n] for n in self._params if n in active}, info

    def _tell_one(self, handle: Any, y: Any) -> None:
        from smac.runhistory.dataclasses import TrialValue
        from smac.runhistory.enumerations import StatusType

        if self.n_objectives > 1:  # a failure is told each objective's worst value
            ok = bool(np.all(np.isfinite(y)))
            row = self._imputed_row(y)
            if row is None:
                return
            cost: Any = row.tolist()
        else:
            cost, ok = self._imputed(y), bool(np.isfinite(y))
            if cost is None:
                return
        status = StatusType.SUCCESS if ok else StatusType.CRASHED
        self._smac.tell(handle, TrialValue(cost=cost, status=status), save=False)

    def _tell_new(self, values: Mapping[str, Any], y: Any) -> None:
        from ConfigSpace import Configuration
        from smac.runhistory.dataclasses import TrialInfo

        typed = {n: str(v) if isinstance(self._params[n], Categorical) else plain(v)
                 for n, v in values.items()}  # fmt: skip
        config = Configuration(self._cs, values=typed)
        self._tell_one(TrialInfo(config=config, seed=self.seed), y)


@register_peer
class SmacBlackBox(_SmacPeer):
    name = "smac-bb"
    paper = "SMAC3 BlackBoxFacade (Lindauer et al., JMLR 2022)"
    facade = "BlackBoxFacade"
    supports_batch = False
    native_conditions = True


@register_peer
class SmacHPO(_SmacPeer):
    name = "smac-hpo"
    paper = "SMAC3 HyperparameterOptimizationFacade (Lindauer et al., JMLR 2022)"
    facade = "HyperparameterOptimizationFacade"
    supports_batch = False
    native_conditions = True


def _cs_conditions(
    cs: Any, conditions: dict[str, tuple[str, tuple[Any, ...]]], params: dict[str, Any]
) -> list[Any]:
    """ConfigSpace conditions of the peer's ``{child: (parent, values)}``."""
    from ConfigSpace import EqualsCondition, InCondition

    out: list[Any] = []
    for child, (parent, values) in conditions.items():
        typed = [str(v) if isinstance(params[parent], Categorical) else v for v in values]
        if len(typed) == 1:
            out.append(EqualsCondition(cs[child], cs[parent], typed[0]))
        else:
            out.append(InCondition(cs[child], cs[parent], typed))
    return out
