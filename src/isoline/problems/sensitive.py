"""Sensitive samples for detecting model tampering (stand-in for NeuralBO §7.2.1).

He et al. (VeriDeep, 2018) verify a deployed model ``f_theta`` with inputs whose outputs
are most sensitive to its weights: ``v = argmax_x ||d f_theta(x) / d theta||_F``. The
NeuralBO paper searches such inputs for an MNIST model over downscaled 7x7 images
(49 variables) upscaled back to 28x28. MNIST cannot be downloaded here, so this stand-in
uses scikit-learn's bundled 8x8 digits: a 64-32-10 tanh network trained on them (seeded),
and inputs searched either at full resolution (``dim=64``) or as 4x4 images upscaled by
pixel repetition (``dim=16``). Pixels lie in ``[0, 1]``.

The objective is ``-||J||_F`` with ``J`` the Jacobian of the softmax output (10) with
respect to all 2410 weights (isoline minimizes; the paper maximizes ``||J||_F``).
:meth:`SensitiveSamples.detection_rate` reproduces the paper's Fig. 3 measure: the
fraction of tampered copies of the model (every weight perturbed by Gaussian noise of
``tamper_scale`` times its layer's weight standard deviation, seeded) for which at least
one of the given samples changes its top-1 label.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, jacrev

from isoline.problems.base import Info, Problem
from isoline.problems.hpo import digits_split, seeded_single_thread

__all__ = ["SensitiveSamples"]


class SensitiveSamples(Problem):
    """``-||d softmax(f_theta(x)) / d theta||_F`` for a digits classifier (minimize).

    Args:
        dim: 64 (8x8 image) or 16 (4x4 image upscaled to 8x8).
        noise_std: observation noise (default 0).
        seed: seeds the data split, the training and the tampering.
        hidden: hidden units of the classifier.
        epochs: Adam epochs of the classifier's training.
        tamper_scale: weight noise of the tampered models, relative to each parameter
            tensor's standard deviation (used by :meth:`detection_rate`).

    Attributes:
        accuracy: validation accuracy of the trained classifier.
    """

    name = "sensitive-samples"
    description = "sensitive samples detecting a tampered digits classifier (NeuralBO stand-in)"

    def __init__(
        self,
        dim: int = 64,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        hidden: int = 32,
        epochs: int = 30,
        tamper_scale: float = 0.05,
    ) -> None:
        if dim not in (16, 64):
            raise ValueError(f"dim of 'sensitive-samples' must be 64 (8x8) or 16 (4x4), got {dim}")
        for v, n in ((hidden, "hidden"), (epochs, "epochs")):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{n} must be an integer >= 1, got {v!r}")
        if not (isinstance(tamper_scale, (int, float)) and tamper_scale > 0):
            raise ValueError(f"tamper_scale must be > 0, got {tamper_scale!r}")
        side = int(round(dim**0.5))
        super().__init__(
            dim,
            [0.0] * dim,
            [1.0] * dim,
            noise_std=noise_std,
            seed=seed,
            names=[f"p{r}_{c}" for r in range(side) for c in range(side)],
        )
        self.tamper_scale = float(tamper_scale)
        Xtr, ytr, Xva, yva = digits_split(seed)
        with seeded_single_thread(seed):
            self.net = nn.Sequential(nn.Linear(64, hidden), nn.Tanh(), nn.Linear(hidden, 10))
            self.net = self.net.to(torch.float64)
            X = torch.as_tensor(Xtr.reshape(-1, 64), dtype=torch.float64)
            y = torch.as_tensor(ytr)
            opt = torch.optim.Adam(self.net.parameters(), lr=1e-2)
            gen = torch.Generator().manual_seed(seed)
            for _ in range(epochs):
                for batch in torch.randperm(len(y), generator=gen).split(64):
                    opt.zero_grad()
                    nn.functional.cross_entropy(self.net(X[batch]), y[batch]).backward()
                    opt.step()
            with torch.no_grad():
                logits = self.net(torch.as_tensor(Xva.reshape(-1, 64), dtype=torch.float64))
        self.accuracy = float((logits.argmax(1) == torch.as_tensor(yva)).double().mean())
        self.params = {k: v.detach() for k, v in self.net.named_parameters()}

    def image(self, x: np.ndarray) -> np.ndarray:
        """The ``(8, 8)`` image a point ``x (d,)`` encodes (4x4 inputs are upscaled 2x)."""
        x = np.asarray(x, dtype=float)
        if self.dim == 64:
            return x.reshape(8, 8)
        return np.kron(x.reshape(4, 4), np.ones((2, 2)))

    def _probs(self, params: dict[str, torch.Tensor], images: torch.Tensor) -> torch.Tensor:
        return torch.softmax(functional_call(self.net, params, (images,)), dim=-1)

    def _evaluate(self, x: np.ndarray) -> tuple[float, Info]:
        img = torch.as_tensor(self.image(x).reshape(64), dtype=torch.float64)
        with seeded_single_thread(self.seed):
            J = jacrev(self._probs)(self.params, img)
            norm = torch.sqrt(sum((j**2).sum() for j in J.values()))
            label = int(self._probs(self.params, img).argmax())
        return -float(norm), {"label": label}

    def tampered(self, index: int) -> dict[str, torch.Tensor]:
        """Parameters of tampered model number ``index`` (deterministic per seed and index)."""
        rng = np.random.default_rng([self.seed, index, 0x74616D70])
        return {
            k: v + self.tamper_scale * v.std() * torch.as_tensor(rng.standard_normal(v.shape))
            for k, v in self.params.items()
        }

    def detection_rate(self, X: np.ndarray, n_models: int = 100) -> float:
        """Fraction of ``n_models`` tampered models detected by the samples ``X (n, d)``: at
        least one sample's top-1 label differs from the original model's."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim or len(X) == 0:
            raise ValueError(f"X must have shape (n >= 1, {self.dim}), got {X.shape}")
        images = torch.as_tensor(
            np.stack([self.image(x).reshape(64) for x in X]), dtype=torch.float64
        )
        with torch.no_grad():
            ref = self._probs(self.params, images).argmax(1)
            hits = [
                bool((self._probs(self.tampered(m), images).argmax(1) != ref).any())
                for m in range(n_models)
            ]
        return float(np.mean(hits))
