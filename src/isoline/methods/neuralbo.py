"""NeuralBO: Thompson sampling with a wide ReLU network and its NTK variance.

Phan-Trong, Tran-The & Gupta, "NeuralBO: A black-box optimization algorithm using deep
neural networks", Neurocomputing 2023, Algorithm 1 (NeuralBO) and
Algorithm 2 (TrainNN); model pieces in :mod:`isoline.models.neural`.

One iteration (Algorithm 1, lines 3-7, for ``t`` observations):

1. TrainNN (Alg. 2): fit ``h(x; theta)`` to the standardized observations with the
   regularizer ``m lambda/2 ||theta - theta_0||^2`` by minibatch SGD. Training continues from
   the previous ``theta_{t-1}`` (as the authors' code does) rather than from ``theta_0``;
   the regularizer still pulls towards ``theta_0``. A diverging run is undone and redone
   with a smaller step (:func:`isoline.models.neural.fit_network`).
2. Line 3: ``sigma_t^2(x) = lambda g(x; theta_0)^T U^{-1} g(x; theta_0) / m``, ``U`` built from
   every evaluated point (line 7), computed exactly in the cheaper of the primal and the
   Woodbury/empirical-NTK forms (:class:`isoline.models.neural.NTKVariance`).
3. Lines 4-5: draw ``f~(x) ~ N(h(x; theta_t), nu^2 sigma_t^2(x))`` independently at
   ``n_candidates`` scrambled Sobol points (authors: 50,000) and take its optimum.
   isoline minimizes, so ``h`` is fitted to ``y`` itself and the sample's *argmin* is taken:
   this is the paper's ``argmax`` of the sample for ``-f`` (the Gaussian is symmetric).
4. Local refinement (not in the paper's pseudocode): the ``n_refine`` best candidates of the
   sample are polished by L-BFGS-B on ``h(x) + nu eps_k sigma_t(x)``, the sample with the
   candidate's standard-normal draw ``eps_k`` frozen (a lower-confidence bound with a
   random weight); the best polished point is proposed.

Batches: the ``q`` points are argmins of ``q`` independent samples over the same candidate
set (a candidate is never taken twice).
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
    NTKVariance,
    fit_network,
    network_forward,
    network_inputs,
    refine_minimizers,
)
from isoline.validation import check_choice, check_positive

__all__ = ["INPUT_MAPS", "SPHERE_FROM_DIM", "NeuralBO"]

#: network input maps of :class:`NeuralBO` (see :func:`isoline.models.neural.network_inputs`)
INPUT_MAPS = ("auto", "scaled", "sphere")
#: ``inputs="auto"`` takes "sphere" from this dimension on, "scaled" below it
SPHERE_FROM_DIM = 50


@register
class NeuralBO(NetworkMethod):
    """NeuralBO (Algorithms 1-2 of the NeuralBO paper); see the module docstring.

    Options (paper defaults, §7):
        width: hidden width ``m`` (500).
        depth: number of weight layers ``L`` (2: ``h = sqrt(m) W_2 relu(W_1 x)``).
        lr: SGD step size ``eta`` (1e-3).
        epochs: training epochs per iteration (50).
        train_batch_size: SGD minibatch size (50).
        lam: regularization ``lambda`` (0.01), also the ridge of ``U``.
        nu: exploration scale ``nu`` (paper: grid search over {0.1, 1, 10} per problem;
            default 0.1). The targets are standardized, so ``nu`` is scale-free. With
            ``nu = 1`` the NTK variance dominates the sample and many proposals sit on the
            box's boundary (evidence: ``benchmarks/results/defaults.md``).
        n_candidates: Sobol candidates per iteration (50,000 as the authors' code).
        n_refine: candidates per sample polished by L-BFGS-B (0 turns refinement off).
        inputs: ``"scaled"`` (network inputs of bounded norm, as the paper's analysis),
            ``"sphere"`` (unit-norm inputs; see :mod:`isoline.models.neural`) or ``"auto"``
            (default: "sphere" for ``dim >= 50``, "scaled" below). With "scaled" inputs in
            high dimensions the minimizers of the sample crowd the box's vertices
            (evidence: ``benchmarks/results/defaults.md``).
    """

    name = "neuralbo"
    weight_stream = 0x4E42
    paper = "Phan-Trong, Tran-The & Gupta, NeuralBO, Neurocomputing 2023 (Alg. 1-2)"

    def __init__(
        self,
        dim: int,
        *,
        nu: float = 0.1,
        inputs: str = "auto",
        **options: Any,
    ) -> None:
        self.nu = check_positive(nu, "nu")
        check_choice(inputs, "inputs", INPUT_MAPS)
        super().__init__(dim, **options)
        if inputs == "auto":
            inputs = "sphere" if self.dim >= SPHERE_FROM_DIM else "scaled"
        #: the input map in use ("scaled" or "sphere"; "auto" resolved by dimension)
        self.inputs = inputs

    def propose(self, q: int) -> np.ndarray:
        X, y = self.data()
        Z = self._network_inputs(X)
        ys = torch.as_tensor(standardize(y), dtype=DTYPE)
        # Algorithm 2 (TrainNN), warm-started, with divergence recovery
        self._weights, report = fit_network(
            self._weights,
            self._weights0,
            Z,
            ys,
            lam=self.lam,
            lr=self.current_lr,
            epochs=self.epochs,
            batch_size=self.train_batch_size,
            generator=torch_generator(self.rng),
        )
        self.current_lr = report.lr
        self.n_divergences += report.n_failures
        # Algorithm 1, line 3 (U from all evaluated points, line 7)
        variance = NTKVariance(self._weights0, Z, self.lam)
        cand = sobol(self.n_candidates, self.dim, seed=int(self.rng.integers(2**31)))
        Zc = self._network_inputs(cand)
        with torch.no_grad():
            mu = _finite(network_forward(self._weights, Zc).numpy(), 0.0)
            sd = np.sqrt(_finite(variance(Zc).numpy(), 0.0))
        chosen: list[int] = []
        out = np.empty((q, self.dim))
        for j in range(q):
            eps = self.rng.standard_normal(len(cand))
            sample = mu + self.nu * sd * eps  # lines 4-5: one Thompson sample, minimized
            sample[chosen] = np.inf
            k = min(max(self.n_refine, 1), len(cand) - len(chosen))
            if k <= 0:  # more points asked than candidates: fill with random points
                out[j] = self.rng.random(self.dim)
                continue
            top = np.argsort(sample, kind="stable")[:k]
            chosen.append(int(top[0]))
            out[j] = cand[top[0]]
            if self.n_refine > 0:
                x = self._refine(cand[top], eps[top], variance)
                if x is not None and not any(np.array_equal(x, p) for p in out[:j]):
                    out[j] = x
        return out

    def mean(self, U: np.ndarray) -> np.ndarray:
        """Network mean ``h(u; theta_t)`` ``(n,)`` at unit-cube points ``U`` ``(n, d)``.

        ``theta_t`` is the fit of the last :meth:`propose` (``h = 0`` before the first), in
        the standardized units of the targets it was trained on (isoline minimizes: low is
        good). For inspecting the surrogate, e.g. ``benchmarks/neuralbo/surrogate_quality.py``.
        """
        U = np.asarray(U, dtype=float)
        if U.ndim != 2 or U.shape[1] != self.dim:
            raise ValueError(f"U must have shape (n, {self.dim}), got {U.shape}")
        with torch.no_grad():
            return network_forward(self._weights, self._network_inputs(U)).numpy()

    def _network_inputs(self, X: np.ndarray | torch.Tensor) -> torch.Tensor:
        return network_inputs(X, sphere=self.inputs == "sphere")

    def _refine(
        self, starts: np.ndarray, eps: np.ndarray, variance: NTKVariance
    ) -> np.ndarray | None:
        """Polish starts on ``h(x) + nu eps_k sigma(x)`` (frozen draw); best point or None."""
        weights, nu = self._weights, self.nu
        e = torch.as_tensor(eps, dtype=DTYPE)

        def frozen_sample(Xb: torch.Tensor) -> torch.Tensor:
            Zb = self._network_inputs(Xb)
            sd = (variance(Zb) + 1e-12).sqrt()
            return network_forward(weights, Zb) + nu * e * sd

        X, f_t = refine_minimizers(frozen_sample, torch.as_tensor(starts, dtype=DTYPE))
        f = f_t.numpy()
        if not np.isfinite(f).any():
            return None
        return X.numpy()[int(np.nanargmin(np.where(np.isfinite(f), f, np.nan)))]


def _finite(a: np.ndarray, fill: float) -> np.ndarray:
    return np.where(np.isfinite(a), a, fill)
