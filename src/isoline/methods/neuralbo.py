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

import math
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
from isoline.validation import check_choice, check_int, check_positive

__all__ = ["INPUT_MAPS", "SPHERE_FROM_DIM", "NeuralBO", "adaptive_nu", "authors_preset"]

#: network input maps of :class:`NeuralBO` (see :func:`isoline.models.neural.network_inputs`)
INPUT_MAPS = ("auto", "scaled", "sphere", "centered")
#: ``inputs="auto"`` takes "sphere" from this dimension on, "scaled" below it
SPHERE_FROM_DIM = 50


def adaptive_nu(t: int) -> float:
    """The authors' exploration schedule ``nu_t = sqrt(t / log(t+1) * log(1 + t^2 / log(t+1)))``.

    Their configs select it with ``nu: 0``; about 1.1 at ``t = 1``, 13 at ``t = 100``, 59 at
    ``t = 2000``, on the scale of the raw targets.
    """
    lt = math.log(t + 1.0)
    return math.sqrt(t / lt * math.log(1.0 + t * t / lt))


def authors_preset(dim: int) -> dict[str, Any]:
    """The settings the NeuralBO authors' run configs used (``phantrdat/neuralbo``, Levy).

    Depth 3, width 50, ``lambda`` 2e-4, Adam with step 1e-4 on full batches (the 100 most
    recent points), 50 epochs per update and an update every 10 proposals at ``d <= 20``,
    20 epochs and every proposal above; raw targets; the adaptive ``nu_t``; variance
    features at the current weights; their 2023 acquisition search (512 candidates, the 25
    lowest moved along the network mean, then re-sampled). Not expressible here, so not
    reproduced: their biases and initialization, weight decay towards zero (isoline pulls
    towards ``theta_0``) and Adam state kept across updates.
    """
    small = dim <= 20
    return {
        "depth": 3,
        "width": 50,
        "lam": 2e-4,
        "optimizer": "adam",
        "lr": 1e-4,
        "epochs": 50 if small else 20,
        "train_batch_size": 100,
        "window": 100,
        "update_cycle": 10 if small else 1,
        "targets": "raw",
        "nu": "adaptive",
        "features": "dynamic",
        "search": "mean-steps",
        "n_candidates": 512,
        "n_refine": 25,
        "inputs": "scaled",
    }


#: choices of NeuralBO's options
OPTIMIZERS = ("sgd", "adam")
TARGETS = ("standardized", "raw")
FEATURES = ("initial", "dynamic")
SEARCHES = ("candidates", "mean-steps")
#: the 2023 search: Adam steps on the network mean and their step size
MEAN_STEPS, MEAN_STEP_LR = 200, 1e-3


@register
class NeuralBO(NetworkMethod):
    """NeuralBO (Algorithms 1-2 of the NeuralBO paper); see the module docstring.

    Options (paper defaults, §7):
        width: hidden width ``m`` (500).
        depth: number of weight layers ``L`` (2: ``h = sqrt(m) W_2 relu(W_1 x)``).
        lr: step size ``eta`` of the optimizer (1e-3).
        epochs: training epochs per update (50).
        train_batch_size: minibatch size (50).
        lam: regularization ``lambda`` (0.01), also the ridge of ``U``.
        nu: exploration scale ``nu`` (paper: grid search over {0.1, 1, 10} per problem;
            default 0.1), or ``"adaptive"`` for :func:`adaptive_nu` of the proposal count.
            With standardized targets ``nu`` is scale-free. With ``nu = 1`` the NTK
            variance dominates the sample and many proposals sit on the box's boundary.
        n_candidates: Sobol candidates per proposal (50,000 as the authors' 2024 code).
        n_refine: candidates per sample polished by L-BFGS-B (0: the candidates' argmin,
            as the authors' 2024 code); with ``search="mean-steps"``, the lowest
            candidates moved along the network mean.
        inputs: ``"scaled"`` (network inputs of bounded norm, as the paper's analysis),
            ``"sphere"`` (unit-norm inputs; see :mod:`isoline.models.neural`),
            ``"centered"`` (``2x - 1`` in ``[-1, 1]``, unscaled, as the authors' code) or
            ``"auto"`` (default: "sphere" for ``dim >= 50``, "scaled" below). With "scaled" inputs in
            high dimensions the minimizers of the sample crowd the box's vertices.
        optimizer: ``"sgd"`` (the paper) or ``"adam"`` (the authors' configs).
        update_cycle: train the network before every ``update_cycle``-th proposal only
            (1: every proposal, the paper; the authors' configs: 10 at ``d <= 20``).
        window: train on the last ``window`` observations only (``None``: all); ``U``
            always holds every evaluated point (Algorithm 1, line 7).
        targets: ``"standardized"`` ``y`` or ``"raw"`` ``y`` (the authors' configs).
        features: gradients for the variance at ``"initial"`` weights ``theta_0`` (the
            paper) or at the ``"dynamic"`` current weights (the authors' configs, NeuralTS).
        search: ``"candidates"``: the sample's argmin over ``n_candidates`` Sobol points,
            polished per ``n_refine``; ``"mean-steps"``: the authors' 2023 search, the
            ``n_refine`` lowest candidates take 200 Adam steps (step 1e-3) down the network
            mean, a fresh sample is drawn at the moved points and its argmin taken.
        preset: ``"authors"`` takes the settings of :func:`authors_preset` for every option
            not given explicitly.

    Typed spaces: the method's theory is continuous, so it searches the relaxed encoding;
    :meth:`~isoline.methods.base.Method.ask` rounds each point to its configuration.
    """

    name = "neuralbo"
    summary = "network Thompson sampling (NTK)"
    weight_stream = 0x4E42
    paper = "Phan-Trong, Tran-The & Gupta, NeuralBO, Neurocomputing 2023 (Alg. 1-2)"
    presets = {"authors": authors_preset}

    def __init__(
        self,
        dim: int,
        *,
        nu: float | str = 0.1,
        inputs: str = "auto",
        optimizer: str = "sgd",
        update_cycle: int = 1,
        window: int | None = None,
        targets: str = "standardized",
        features: str = "initial",
        search: str = "candidates",
        **options: Any,
    ) -> None:
        self.nu: float | str = (
            check_choice(nu, "nu", ("adaptive",))
            if isinstance(nu, str)
            else check_positive(nu, "nu")
        )
        check_choice(inputs, "inputs", INPUT_MAPS)
        self.optimizer = check_choice(optimizer, "optimizer", OPTIMIZERS)
        self.update_cycle = check_int(update_cycle, "update_cycle", 1)
        self.window = None if window is None else check_int(window, "window", 2)
        self.targets = check_choice(targets, "targets", TARGETS)
        self.features = check_choice(features, "features", FEATURES)
        self.search = check_choice(search, "search", SEARCHES)
        super().__init__(dim, **options)
        if inputs == "auto":
            inputs = "sphere" if self.dim >= SPHERE_FROM_DIM else "scaled"
        #: the input map in use ("scaled" or "sphere"; "auto" resolved by dimension)
        self.inputs = inputs
        #: model-based proposals so far (the ``t`` of the adaptive ``nu_t``)
        self.n_proposals = 0

    def propose(self, q: int) -> np.ndarray:
        X, y = self.data()
        Z = self._network_inputs(X)
        if self.n_proposals % self.update_cycle == 0:
            self._train(Z, y)
        self.n_proposals += 1
        nu = adaptive_nu(self.n_proposals) if self.nu == "adaptive" else float(self.nu)
        # Algorithm 1, line 3 (U from all evaluated points, line 7)
        features = self._weights0 if self.features == "initial" else self._weights
        variance = NTKVariance(features, Z, self.lam)
        if self.search == "mean-steps":
            return self._mean_steps(q, variance, nu)
        cand = sobol(self.n_candidates, self.dim, seed=int(self.rng.integers(2**31)))
        Zc = self._network_inputs(cand)
        with torch.no_grad():
            mu = _finite(network_forward(self._weights, Zc).numpy(), 0.0)
            sd = np.sqrt(_finite(variance(Zc).numpy(), 0.0))
        chosen: list[int] = []
        out = np.empty((q, self.dim))
        for j in range(q):
            eps = self.rng.standard_normal(len(cand))
            sample = mu + nu * sd * eps  # lines 4-5: one Thompson sample, minimized
            sample[chosen] = np.inf
            k = min(max(self.n_refine, 1), len(cand) - len(chosen))
            if k <= 0:  # more points asked than candidates: fill with random points
                out[j] = self.rng.random(self.dim)
                continue
            top = np.argsort(sample, kind="stable")[:k]
            chosen.append(int(top[0]))
            out[j] = cand[top[0]]
            if self.n_refine > 0:
                x = self._refine(cand[top], eps[top], variance, nu)
                if x is not None and not any(np.array_equal(x, p) for p in out[:j]):
                    out[j] = x
        return out

    def _train(self, Z: torch.Tensor, y: np.ndarray) -> None:
        """Algorithm 2 (TrainNN), warm-started, with divergence recovery."""
        if self.window is not None:
            Z, y = Z[-self.window :], y[-self.window :]
        targets = standardize(y) if self.targets == "standardized" else y
        self._weights, report = fit_network(
            self._weights,
            self._weights0,
            Z,
            torch.as_tensor(targets, dtype=DTYPE),
            lam=self.lam,
            lr=self.current_lr,
            epochs=self.epochs,
            batch_size=self.train_batch_size,
            generator=torch_generator(self.rng),
            optimizer=self.optimizer,
        )
        self.current_lr = report.lr
        self.n_divergences += report.n_failures

    def _mean_steps(self, q: int, variance: NTKVariance, nu: float) -> np.ndarray:
        """The authors' 2023 search: sample, keep the lowest, descend the mean, re-sample."""
        cand = sobol(self.n_candidates, self.dim, seed=int(self.rng.integers(2**31)))
        out = np.empty((q, self.dim))
        for j in range(q):
            mu, sd = self._moments(cand, variance)
            sample = mu + nu * sd * self.rng.standard_normal(len(cand))
            starts = cand[np.argsort(sample, kind="stable")[: max(self.n_refine, 1)]]
            moved = self._descend_mean(starts)
            mu, sd = self._moments(moved, variance)
            fresh = mu + nu * sd * self.rng.standard_normal(len(moved))
            for k in np.argsort(fresh, kind="stable"):  # the lowest point not yet in the batch
                if not any(np.array_equal(moved[k], p) for p in out[:j]):
                    out[j] = moved[k]
                    break
            else:
                out[j] = self.rng.random(self.dim)
        return out

    def _moments(self, U: np.ndarray, variance: NTKVariance) -> tuple[np.ndarray, np.ndarray]:
        """Network mean and NTK standard deviation at unit-cube points ``U (n, d)``."""
        Zu = self._network_inputs(U)
        with torch.no_grad():
            mu = _finite(network_forward(self._weights, Zu).numpy(), 0.0)
            sd = np.sqrt(_finite(variance(Zu).numpy(), 0.0))
        return mu, sd

    def _descend_mean(self, starts: np.ndarray) -> np.ndarray:
        """``MEAN_STEPS`` projected Adam steps down the network mean from each start."""
        X = torch.as_tensor(starts, dtype=DTYPE).clone().requires_grad_(True)
        opt = torch.optim.Adam([X], lr=MEAN_STEP_LR)
        for _ in range(MEAN_STEPS):
            opt.zero_grad()
            network_forward(self._weights, self._network_inputs(X)).sum().backward()
            opt.step()
            with torch.no_grad():
                X.clamp_(0.0, 1.0)
        return X.detach().numpy().copy()

    def mean(self, U: np.ndarray) -> np.ndarray:
        """Network mean ``h(u; theta_t)`` ``(n,)`` at unit-cube points ``U`` ``(n, d)``.

        ``theta_t`` is the fit of the last :meth:`propose` (``h = 0`` before the first), in
        the standardized units of the targets it was trained on (isoline minimizes: low is
        good). For inspecting the surrogate.
        """
        U = np.asarray(U, dtype=float)
        if U.ndim != 2 or U.shape[1] != self.dim:
            raise ValueError(f"U must have shape (n, {self.dim}), got {U.shape}")
        with torch.no_grad():
            return network_forward(self._weights, self._network_inputs(U)).numpy()

    def _network_inputs(self, X: np.ndarray | torch.Tensor) -> torch.Tensor:
        return network_inputs(X, sphere=self.inputs == "sphere", scaled=self.inputs == "scaled")

    def _refine(
        self, starts: np.ndarray, eps: np.ndarray, variance: NTKVariance, nu: float
    ) -> np.ndarray | None:
        """Polish starts on ``h(x) + nu eps_k sigma(x)`` (frozen draw); best point or None."""
        weights = self._weights
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
