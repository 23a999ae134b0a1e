"""Nevergrad's NGOpt portfolio (or another optimizer of its registry) as a peer."""

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

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        cand = self._opt.ask()
        return cand.value, cand

    def _tell_one(self, handle: Any, y: float) -> None:
        # a sequential optimizer of the portfolio waits for every tell: a failure before
        # any success is told as inf (which Nevergrad accepts with a warning)
        v = self._imputed(y)
        self._opt.tell(handle, math.inf if v is None else v)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        self._tell_one(self._opt.parametrization.spawn_child(new_value=dict(values)), y)


def _nevergrad_param(ng: Any, p: Param) -> Any:
    if isinstance(p, Categorical):
        return ng.p.Choice(list(p.choices))
    if p.log:
        out = ng.p.Log(lower=p.low, upper=p.high)
    else:
        out = ng.p.Scalar(lower=p.low, upper=p.high)
    return out.set_integer_casting() if isinstance(p, Integer) else out
