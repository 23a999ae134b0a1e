"""scikit-optimize's ``gp_minimize`` as a peer, through ``skopt.Optimizer``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from isoline.methods.peers.base import PeerMethod, plain, register_peer
from isoline.params import Categorical, Integer


@register_peer
class SkoptGP(PeerMethod):
    """``skopt.Optimizer`` configured as ``gp_minimize`` configures it (GP with Gaussian
    noise, ``gp_hedge``, 10 random initial points, L-BFGS acquisition search)."""

    name = "skopt-gp"
    paper = "scikit-optimize gp_minimize"
    packages = ("skopt",)
    takes_budget = False

    def _start(self) -> None:
        from skopt import Optimizer
        from skopt import space as sk
        from skopt.utils import cook_estimator

        o = {"n_initial_points": 10, "initial_point_generator": "random",
             "acq_func": "gp_hedge", "acq_optimizer": "auto", "n_points": 10000,
             "n_restarts_optimizer": 5, "xi": 0.01, "kappa": 1.96, "noise": "gaussian",
             **self.options}  # fmt: skip
        dims: list[Any] = []
        for p in self._params.values():
            prior = "log-uniform" if getattr(p, "log", False) else "uniform"
            if isinstance(p, Categorical):
                dims.append(sk.Categorical(list(p.choices)))
            elif isinstance(p, Integer):
                dims.append(sk.Integer(p.low, p.high, prior=prior))
            else:
                dims.append(sk.Real(p.low, p.high, prior=prior))
        rng = np.random.RandomState(self.seed)
        est = cook_estimator(
            "GP", space=sk.Space(dims), random_state=rng.randint(0, np.iinfo(np.int32).max),
            noise=o.pop("noise"),
        )  # fmt: skip
        self._opt = Optimizer(
            dims, est, random_state=rng,
            acq_optimizer_kwargs={"n_points": o.pop("n_points"), "n_jobs": 1,
                                  "n_restarts_optimizer": o.pop("n_restarts_optimizer")},
            acq_func_kwargs={"xi": o.pop("xi"), "kappa": o.pop("kappa")}, **o,
        )  # fmt: skip
        self._pending: list[list[float]] = []

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        # skopt proposes a batch with a constant liar only through ask(n_points); one at a
        # time it would repeat a point until told, so pending points get the lie here
        if self._pending:
            x = self._opt.ask(n_points=len(self._pending) + 1, strategy="cl_min")[-1]
        else:
            x = self._opt.ask()
        self._pending.append(list(x))
        return dict(zip(self._params, x)), list(x)

    def _tell_one(self, handle: Any, y: float) -> None:
        self._pending.remove(handle)
        self._tell_new(dict(zip(self._params, handle)), y)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        v = self._imputed(y)
        if v is not None:
            self._opt.tell([plain(values[n]) for n in self._params], v)
