"""Nevergrad's NGOpt portfolio (or another optimizer of its registry) as a peer.

Several objectives are told as Nevergrad's loss vector, the optimizer being told their
number before it starts (its ``num_objectives``): NGOpt then hands the run to its
differential evolution at once, which it scalarizes by the hypervolume of its own Pareto
front, the reference point inferred from the first losses (Nevergrad's auto-bound).
Black-box constraints are told through ``tell``'s ``constraint_violation`` (Nevergrad's
convention, a value ``> 0`` violates, as isoline's), which Nevergrad turns into a penalty
on the scalar loss it optimizes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from isoline.methods.peers.base import DEFAULT_BUDGET, PeerMethod, register_peer
from isoline.params import Categorical, Integer, Param


@register_peer
class NevergradPeer(PeerMethod):
    name = "nevergrad"
    paper = "Nevergrad NGOpt (Meunier et al., IEEE TEVC 2022)"
    packages = ("nevergrad",)
    # its scipy-based members run in a thread and warn between asks
    quiet_messages = ("COBYLA: Invalid RHOEND",)
    max_objectives = 100
    supports_constraints = True

    def _start(self) -> None:
        import nevergrad as ng

        opts = dict(self.options)
        name = opts.pop("optimizer", "NGOpt")
        if name not in ng.optimizers.registry:
            raise ValueError(f"optimizer {name!r} is not in Nevergrad's registry")
        param = ng.p.Dict(**{n: _nevergrad_param(ng, p) for n, p in self._params.items()})
        param.random_state = np.random.RandomState(self.seed)
        factory: Callable[..., Any] = ng.optimizers.registry[name]
        self._opt = factory(
            parametrization=param, budget=self.budget or DEFAULT_BUDGET,
            num_workers=self.batch_size, **opts,
        )  # fmt: skip
        if self.n_objectives > 1:
            self._opt.num_objectives = self.n_objectives
        #: handles of failures told before any success with several objectives: told the
        #: worst row once there is one (a loss vector cannot be made up before)
        self._waiting: list[Any] = []

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        cand = self._opt.ask()
        return cand.value, cand

    def _tell_one(self, handle: Any, y: Any) -> None:
        if self.n_outputs == 1:
            # a sequential optimizer of the portfolio waits for every tell: a failure
            # before any success is told as inf (which Nevergrad accepts with a warning)
            v = self._imputed(y)
            self._opt.tell(handle, math.inf if v is None else v)
            return
        row = self._imputed_row(y)
        if row is None:
            if self.n_objectives > 1:  # differential evolution does not wait for it
                self._waiting.append(handle)
            else:  # one objective: as above, the constraints unknown
                self._opt.tell(handle, math.inf)
            return
        self._tell_row(handle, row)
        assert self._worst_row is not None
        for waiting in self._waiting:
            self._tell_row(waiting, self._worst_row)
        self._waiting.clear()

    def _tell_row(self, handle: Any, row: np.ndarray) -> None:
        k = self.n_objectives
        loss: Any = float(row[0]) if k == 1 else row[:k].tolist()
        violation = row[k:].tolist() if self.n_constraints else None
        self._opt.tell(handle, loss, constraint_violation=violation)

    def _tell_new(self, values: Mapping[str, Any], y: Any) -> None:
        self._tell_one(self._opt.parametrization.spawn_child(new_value=dict(values)), y)


def _nevergrad_param(ng: Any, p: Param) -> Any:
    if isinstance(p, Categorical):
        return ng.p.Choice(list(p.choices))
    if p.log:
        out = ng.p.Log(lower=p.low, upper=p.high)
    else:
        out = ng.p.Scalar(lower=p.low, upper=p.high)
    return out.set_integer_casting() if isinstance(p, Integer) else out
