"""Batch kernel optimization (BKOP): sequential and batch selection with a constant weight.

Lyu, Yuan & Tsang, "Efficient Batch Black-box Optimization with Deterministic Regret
Bounds" (Lyu, Yuan & Tsang), §5-6.

The paper maximizes ``f``; isoline minimizes, so with ``m`` and ``C`` the posterior mean and
covariance of the objective ``y`` (= ``-f``) the batch ``X`` (``L x d``) minimizes

    a(X) = mean_i m(X_i) - w * (2 sqrt(tr C(X, X) / L) - sqrt(1^T C(X, X) 1 / L^2)),

which is the negation of Algorithm 2 (noise-free, Eq. 4 and 8) / Algorithm 4
(perturbation, Eq. 11 and 17) line 3. For ``L = 1`` the bracket is ``sigma(x)`` and the rule
is Algorithm 1 / 3 line 3, ``argmin m(x) - w sigma(x)``. The weight ``w`` stands for the
RKHS norm ``||f||``; the paper fixes ``w = 1`` (§10) in standardized units. (Scaling ``y``
scales ``m`` and ``sqrt(C)`` alike, so ``w`` is unit-free.)

The whole batch is chosen jointly over the ``L * d`` batch variables, either with CMA-ES
(pycma, ``optimizer="cma"``) as the paper does (§10), or with multi-start L-BFGS-B through
BoTorch and torch autograd (``optimizer="gradient"``, the default: on the same GP states
it reached higher acquisition values than CMA-ES in less time).

This module also holds what the batch baselines of §9-10 share (GP-BUCB, GP-UCB-PE, Bull's
non-adaptive batch): :class:`KernelBatchMethod` (GP fit in the noise-free or perturbation
setting, initial design, options) and :func:`cma_maximize`.
"""

from __future__ import annotations

import math
from typing import Any

import cma
import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction
from botorch.models.model import Model

from isoline.acquisition import gaussian_posterior, maximize, y_unit
from isoline.methods.base import Method
from isoline.methods.registry import register
from isoline.models.gp import GP, KERNELS, PRIORS, fit_gp
from isoline.validation import check_choice, check_float, check_int

__all__ = [
    "BatchKernelAcquisition",
    "BKOP",
    "KernelBatchMethod",
    "OPTIMIZERS",
    "SETTINGS",
    "cma_maximize",
    "default_init",
]

DTYPE = torch.float64
#: regularity settings of the paper: §5 (noise-free) and §6 (perturbation)
SETTINGS = ("noise-free", "perturbation")
#: acquisition optimizers: CMA-ES over all batch variables, or BoTorch multi-start L-BFGS-B
OPTIMIZERS = ("cma", "gradient")
#: nugget of the noise-free setting, as a fraction of var(y) (paper, remark of Corollary 5)
NOISE_FREE_NUGGET = 1e-6
_EPS = 1e-18


def default_init() -> str:
    """``"lattice"`` (paper §7, Alg. 5) when :mod:`isoline.designs.lattice` exists, else Sobol."""
    try:
        from isoline.designs.lattice import lattice_design  # noqa: F401
    except ImportError:
        return "sobol"
    return "lattice"


class BatchKernelAcquisition(AcquisitionFunction):
    """The BKOP batch acquisition of Algorithm 2/4, negated for minimization of ``y``.

    ``forward(X)`` with ``X`` ``(b, L, d)`` returns ``(b,)`` values (BoTorch maximizes):
    ``-mean_i m(X_i) + w (2 sqrt(tr C / L) - sqrt(1^T C 1 / L^2))`` with ``m``, ``C`` the
    posterior mean and covariance of ``y`` from ``model``. ``L = 1`` gives ``-m + w sigma``.
    """

    def __init__(self, model: Model, weight: float = 1.0) -> None:
        super().__init__(model)
        self.weight = float(weight)
        self.eps = _EPS * y_unit(model) ** 2  # the floor follows the scale of y

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        post = gaussian_posterior(self.model, X)
        mean = post.mean.squeeze(-1)  # (b, L)
        C = post.distribution.covariance_matrix  # (b, L, L)
        L = X.shape[-2]
        tr = torch.diagonal(C, dim1=-2, dim2=-1).sum(-1).clamp_min(self.eps)
        tot = C.sum(dim=(-2, -1)).clamp_min(self.eps)
        spread = 2.0 * torch.sqrt(tr / L) - torch.sqrt(tot) / L
        return -mean.mean(-1) + self.weight * spread


class _Randn:
    """Picklable normal sampler handed to pycma so that it never touches ``np.random``."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, *shape: int) -> np.ndarray:
        return self.rng.standard_normal(shape)


def _values(acqf: AcquisitionFunction, X: np.ndarray) -> np.ndarray:
    """``acqf`` at ``X`` ``(b, q, d)`` as a ``(b,)`` numpy array; non-finite -> ``-inf``."""
    with torch.no_grad():
        v = acqf(torch.as_tensor(X, dtype=DTYPE)).reshape(-1).numpy()
    return np.where(np.isfinite(v), v, -np.inf)


def cma_maximize(
    acqf: AcquisitionFunction,
    d: int,
    q: int,
    rng: np.random.Generator,
    *,
    max_evals: int | None = None,
    raw_samples: int = 256,
    sigma0: float = 0.2,
    starts: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Maximize ``acqf`` over ``q`` points in ``[0, 1]^d`` jointly with CMA-ES (pycma).

    CMA-ES (Hansen et al. 2003) runs over the ``q * d`` flattened batch variables with
    pycma's bound handling; each generation is scored in one batched call ``(pop, q, d)``.
    It starts from the best of ``raw_samples`` uniform batches (plus any ``starts``
    ``(k, q, d)``). All randomness comes from ``rng``.

    Args:
        max_evals: acquisition evaluations for CMA-ES; default ``100 * q * d + 1000``.

    Returns:
        ``X (q, d)`` and its acquisition value.
    """
    n = q * d
    max_evals = 100 * n + 1000 if max_evals is None else int(max_evals)
    raw = rng.random((raw_samples, q, d))
    if starts is not None:
        raw = np.concatenate([np.asarray(starts, dtype=float).reshape(-1, q, d), raw])
    vals = _values(acqf, raw)
    i = int(np.argmax(vals))
    best_x, best_v = raw[i].copy(), float(vals[i])
    es = cma.CMAEvolutionStrategy(
        best_x.reshape(-1),
        sigma0,
        {
            "bounds": [0.0, 1.0],
            "maxfevals": max_evals,
            "randn": _Randn(rng),
            "seed": math.nan,
            "verbose": -9,
            "verb_log": 0,
            "verb_disp": 0,
            "tolfun": 1e-10,
            "tolx": 1e-8,
        },
    )
    while not es.stop():
        P = np.clip(np.asarray(es.ask(), dtype=float), 0.0, 1.0)
        v = _values(acqf, P.reshape(-1, q, d))
        j = int(np.argmax(v))
        if v[j] > best_v:
            best_x, best_v = P[j].reshape(q, d).copy(), float(v[j])
        finite = np.where(np.isfinite(v), v, np.min(v[np.isfinite(v)], initial=0.0) - 1e10)
        es.tell(list(P), (-finite).tolist())  # pycma minimizes
    return best_x, best_v


class KernelBatchMethod(Method):
    """What BKOP and its batch baselines share: the GP, the setting and the optimizer.

    The GP (:func:`isoline.models.gp.fit_gp`, ARD Matern-5/2 as in the paper §10) is fitted
    to ``y`` (minimization) with marginal-likelihood lengthscales. Failed evaluations are
    imputed with the worst value seen.

    Options:
        setting: ``"noise-free"`` (paper §5: kernel interpolation with a nugget of
            ``1e-6 var(y)``, the practical form of the remark after Corollary 5) or
            ``"perturbation"`` (§6: regularization ``sigma^2 I`` in Eq. 11-12 / 17).
        noise: perturbation setting only: ``sigma^2`` in ``y`` units, or ``None`` to
            learn it by marginal likelihood.
        kernel: ``"matern52"`` or ``"rbf"`` (ARD).
        priors: the GP's hyperparameter priors, BoTorch's ``"botorch"`` (the default) or
            Optuna GPSampler's ``"optuna"`` (a learned signal variance, lengthscales kept
            near 1 unless the data insist; :func:`isoline.models.gp.fit_gp`). The
            noise-free setting keeps its nugget either way.
        optimizer: ``"gradient"`` (BoTorch multi-start L-BFGS-B with torch autograd; the
            default, it reached higher acquisition values than CMA-ES in our measurement)
            or ``"cma"`` (CMA-ES via pycma, as the paper).
        max_evals: acquisition evaluations per CMA-ES run (default ``100 q d + 1000``).
        num_restarts: L-BFGS-B starts (gradient optimizer).
        raw_samples: random batches scored to pick the starts (both optimizers).
    """

    family = "batch kernel BO"
    paper = "Lyu, Yuan & Tsang, Efficient Batch Black-box Optimization (BKOP), §5-6, §9-10"

    def __init__(
        self,
        dim: int,
        *,
        setting: str = "noise-free",
        noise: float | None = None,
        kernel: str = "matern52",
        priors: str = "botorch",
        optimizer: str = "gradient",
        max_evals: int | None = None,
        num_restarts: int = 20,
        raw_samples: int = 1024,
        **common: Any,
    ) -> None:
        if common.get("init") is None:
            common["init"] = default_init()
        super().__init__(dim, **common)
        self.setting = check_choice(setting, "setting", SETTINGS)
        self.kernel = check_choice(kernel, "kernel", KERNELS)
        self.priors = check_choice(priors, "priors", PRIORS)
        self.optimizer = check_choice(optimizer, "optimizer", OPTIMIZERS)
        if noise is not None and setting != "perturbation":
            raise ValueError("noise is only used with setting='perturbation'; leave it None")
        self.noise = None if noise is None else check_float(noise, "noise", 0.0)
        self.max_evals = None if max_evals is None else check_int(max_evals, "max_evals", 1)
        self.num_restarts = check_int(num_restarts, "num_restarts", 1)
        self.raw_samples = check_int(raw_samples, "raw_samples", 1)

    def fit(self) -> GP:
        """GP of ``y`` (failures imputed) in the configured setting.

        Call inside :meth:`torch_rng` (the hyperparameter fit may draw restarts).
        """
        X, y = self.data()
        if self.setting == "noise-free":
            noise: float | None = NOISE_FREE_NUGGET * float(np.var(y))
        else:
            noise = self.noise
        return fit_gp(X, y, kernel=self.kernel, noise=noise, priors=self.priors)

    def optimize(
        self, acqf: AcquisitionFunction, q: int, starts: np.ndarray | None = None
    ) -> tuple[np.ndarray, float]:
        """Maximize ``acqf`` over ``q`` points jointly with the configured optimizer.

        Call inside :meth:`torch_rng` (the gradient optimizer samples from torch).
        """
        if self.optimizer == "cma":
            return cma_maximize(
                acqf, self.dim, q, self.rng,
                max_evals=self.max_evals, raw_samples=self.raw_samples, starts=starts,
            )  # fmt: skip
        ics = None
        if starts is not None:
            # given starts first, then the best raw batches scored on the acquisition
            raw = self.rng.random((max(self.raw_samples, self.num_restarts), q, self.dim))
            raw = np.concatenate([np.asarray(starts, dtype=float).reshape(-1, q, self.dim), raw])
            order = np.argsort(-_values(acqf, raw), kind="stable")
            ics = raw[order[: self.num_restarts]]
        return maximize(
            acqf, self.dim, q,
            num_restarts=self.num_restarts, raw_samples=self.raw_samples,
            initial_conditions=ics,
        )  # fmt: skip


@register
class BKOP(KernelBatchMethod):
    """BKOP: sequential (Alg. 1/3) for ``q = 1``, joint batch selection (Alg. 2/4) for ``q > 1``.

    Each ``ask(q)`` fits the GP and returns ``argmin_X a(X)`` over all ``q`` points jointly
    (see the module docstring; ``a`` is the negated Algorithm 2/4 objective). The default
    initial design is rank-1 lattice points (§7, Alg. 5), or Sobol points while
    :mod:`isoline.designs.lattice` is unavailable; its size is isoline's default
    ``min(2d, 20)`` (the paper's experiments use ``n_init=20``).

    Options:
        weight: ``w``, the constant weight of the exploration term (paper: 1).
        (and the options of :class:`KernelBatchMethod`)

    Typed spaces: the method's theory is continuous, so it searches the relaxed encoding;
    :meth:`~isoline.methods.base.Method.ask` rounds each point to its configuration.
    """

    name = "bkop"
    summary = "GP batch chosen jointly (BKOP)"

    def __init__(
        self,
        dim: int,
        *,
        weight: float = 1.0,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        self.weight = check_float(weight, "weight", 0.0)

    def acquisition(self, gp: GP) -> BatchKernelAcquisition:
        """The Algorithm 2/4 acquisition (maximized form) on the fitted ``gp``."""
        return BatchKernelAcquisition(gp.model, self.weight)

    def propose(self, q: int) -> np.ndarray:
        with self.torch_rng():
            gp = self.fit()
            X, _ = self.optimize(self.acquisition(gp), q)
        return X
