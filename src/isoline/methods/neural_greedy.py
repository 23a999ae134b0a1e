"""NeuralGreedy: fit a network to randomly perturbed observations, query its argmin.

Paria, Poczos, Ravikumar, Schneider & Suggala, "Be greedy: a simple algorithm for
blackbox optimization using neural networks", ICML 2022 workshop on Adaptive Experimental
Design; used as a baseline in the NeuralBO paper (§7).

Each iteration: perturb the standardized observations, ``y~_i = y_i + noise * xi_i`` with
fresh ``xi_i ~ N(0, 1)``; fit the network (the same ``sqrt(m) W_2 relu(W_1 x)`` as NeuralBO,
:mod:`isoline.models.neural`; width 500, two layers, Adam with step 1e-3 as the NeuralBO
authors' NeuralGreedy configuration) warm-started from the previous fit, for 100 epochs
(their configuration lists 20; with fewer than 50 points an epoch is one step, and 20
steps under-fit); return the network's
argmin, found over ``n_candidates`` scrambled Sobol points and polished by L-BFGS-B from
the ``n_refine`` best. The perturbation is the only exploration (the NeuralBO paper's
criticism of the method). Batches: ``q`` independent perturbations and fits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from isoline.designs import sobol
from isoline.methods.network import NetworkMethod, standardize, torch_generator
from isoline.methods.registry import register
from isoline.models.neural import (
    DTYPE,
    fit_network,
    network_forward,
    network_inputs,
    refine_minimizers,
)
from isoline.validation import check_positive

__all__ = ["NeuralGreedy"]


@register
class NeuralGreedy(NetworkMethod):
    """Greedy argmin of a network fitted to perturbed targets; see the module docstring.

    Options:
        width: hidden width ``m`` (500).
        depth: number of weight layers (2).
        lr: Adam step size (1e-3).
        epochs: training epochs per fit (100).
        train_batch_size: minibatch size (50).
        lam: pull ``m lam/2 ||theta - theta_0||^2`` towards the initial weights (0.01).
        noise: standard deviation of the target perturbation, in units of the
            standard deviation of ``y`` (0.1).
        n_candidates: Sobol candidates scanned for the argmin (10,000).
        n_refine: candidates polished by L-BFGS-B (5; 0 turns refinement off).
    """

    name = "neural-greedy"
    summary = "greedy argmin of a trained network"
    weight_stream = 0x4E47
    paper = "Paria et al., Be greedy (ICML 2022 AEDAR workshop); NeuralBO paper §7"

    def __init__(
        self,
        dim: int,
        *,
        noise: float = 0.1,
        epochs: int = 100,
        n_candidates: int = 10_000,
        **options: Any,
    ) -> None:
        self.noise = check_positive(noise, "noise")
        super().__init__(dim, epochs=epochs, n_candidates=n_candidates, **options)

    def propose(self, q: int) -> np.ndarray:
        X, y = self.data()
        Z = network_inputs(X)
        ys = standardize(y)
        cand = sobol(self.n_candidates, self.dim, seed=int(self.rng.integers(2**31)))
        Zc = network_inputs(cand)
        out = np.empty((q, self.dim))
        start = self._weights
        for j in range(q):
            target = ys + self.noise * self.rng.standard_normal(len(ys))
            weights, report = fit_network(
                start,
                self._weights0,
                Z,
                torch.as_tensor(target, dtype=DTYPE),
                lam=self.lam,
                lr=self.current_lr,
                epochs=self.epochs,
                batch_size=self.train_batch_size,
                generator=torch_generator(self.rng),
                optimizer="adam",
            )
            self.current_lr = report.lr
            self.n_divergences += report.n_failures
            if j == 0:
                self._weights = weights  # warm start of the next iteration
            out[j] = self._argmin(weights, cand, Zc, out[:j])
        return out

    def _argmin(
        self, weights: list[torch.Tensor], cand: np.ndarray, Zc: torch.Tensor, taken: np.ndarray
    ) -> np.ndarray:
        with torch.no_grad():
            pred = network_forward(weights, Zc).numpy()
        pred = np.where(np.isfinite(pred), pred, np.inf)
        for x in taken:  # do not repeat a point of this batch
            pred[np.all(cand == x, axis=1)] = np.inf
        top = np.argsort(pred, kind="stable")[: max(self.n_refine, 1)]
        best = cand[top[0]]
        if self.n_refine == 0:
            return best

        def net(Xb: torch.Tensor) -> torch.Tensor:
            return network_forward(weights, network_inputs(Xb))

        Xr, f = refine_minimizers(net, torch.as_tensor(cand[top], dtype=DTYPE))
        x = Xr.numpy()[int(torch.argmin(f))]
        if any(np.array_equal(x, p) for p in taken):
            return best
        return x
