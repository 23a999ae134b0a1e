"""The UCB move of MinUCB and LA-MinUCB, and the boxes their searches run in.

Fan et al., "Minimizing UCB: a better local search strategy in local Bayesian
optimization", NeurIPS 2024: the next iterate is ``argmin_x mu(x) + beta sigma(x)``
(Algorithm 1 line 8, Algorithm 2 line 6), with ``beta`` multiplying ``sigma`` directly
(eq. (3)). Everything is in the unit cube.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.acquisition.analytic import AnalyticAcquisitionFunction
from botorch.models.model import Model
from botorch.utils.transforms import t_batch_mode_transform
from torch.quasirandom import SobolEngine

from isoline.acquisition import maximize, y_unit
from isoline.models.gp import GP

__all__ = ["NegUCB", "box_around", "minimize_ucb", "sobol_box"]

DTYPE = torch.float64


def box_around(x: np.ndarray, delta: float) -> np.ndarray:
    """``(2, d)`` bounds of the box ``x +- delta`` intersected with the unit cube."""
    return np.stack([np.clip(x - delta, 0.0, 1.0), np.clip(x + delta, 0.0, 1.0)])


def sobol_box(n: int, B: np.ndarray, seed: int) -> np.ndarray:
    """``(n, d)`` scrambled Sobol points in the box ``B (2, d)``."""
    U = SobolEngine(B.shape[1], scramble=True, seed=seed).draw(n, dtype=DTYPE).numpy()
    return B[0] + (B[1] - B[0]) * U


def _score(acqf: AcquisitionFunction, X: np.ndarray, chunk: int = 256) -> np.ndarray:
    """Acquisition values ``(n,)`` of single points ``X (n, d)`` (non-finite -> -inf)."""
    out = []
    with torch.no_grad():
        for part in np.array_split(X, max(1, math.ceil(len(X) / chunk))):
            v = acqf(torch.as_tensor(part, dtype=DTYPE).unsqueeze(-2)).reshape(-1)
            out.append(v.numpy())
    v = np.concatenate(out)
    return np.where(np.isfinite(v), v, -np.inf)


def minimize_ucb(
    gp: GP,
    beta: float,
    anchors: np.ndarray,
    delta: float,
    seed: int,
    num_restarts: int,
    raw_samples: int,
) -> np.ndarray:
    """``argmin_x mu(x) + beta sigma(x)`` over the unit cube (MinUCB Alg. 1 line 8).

    Far from the data the UCB is the prior mean plus ``beta`` prior deviations, so the
    minimizer lies near the data: L-BFGS-B starts from the best of the ``anchors (m, d)``
    (current point, window points) and of ``raw_samples`` Sobol points in the boxes
    ``anchor +- delta``. Returns ``(d,)``.
    """
    acqf = NegUCB(gp.model, beta)
    d = anchors.shape[1]
    per = max(1, raw_samples // len(anchors))
    raw = [anchors]
    for i, a in enumerate(anchors):
        raw.append(sobol_box(per, box_around(a, delta), seed + i))
    cand = np.vstack(raw)
    vals = _score(acqf, cand)
    top = np.argsort(-vals, kind="stable")[:num_restarts]
    X, _ = maximize(acqf, d, 1, initial_conditions=cand[top][:, None, :])
    x = X.reshape(-1)
    if _score(acqf, x[None])[0] < vals[top[0]]:  # keep the best start if L-BFGS-B lost it
        x = cand[top[0]]
    return np.clip(x, 0.0, 1.0)


class NegUCB(AnalyticAcquisitionFunction):
    """``-(mu(x) + beta sigma(x))`` of the latent ``f`` (maximized = UCB minimized).

    ``beta`` multiplies ``sigma`` directly, as in the MinUCB paper (eq. (3)); BoTorch's
    ``UpperConfidenceBound`` uses ``sqrt(beta)`` and the other sign. Input ``(b, 1, d)``.
    """

    def __init__(self, model: Model, beta: float) -> None:
        super().__init__(model)
        self.beta = float(beta)
        self.min_var = 1e-12 * y_unit(model) ** 2  # BoTorch's floor, following y's scale

    @t_batch_mode_transform(expected_q=1)  # type: ignore[arg-type]  # typed for the base class
    def forward(self, X: torch.Tensor) -> torch.Tensor:
        mean, sigma = self._mean_and_sigma(X, min_var=self.min_var)  # (b, 1): one output
        assert sigma is not None
        return -(mean + self.beta * sigma).squeeze(-1)
