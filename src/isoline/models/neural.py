"""Wide ReLU network of NeuralBO and its neural-tangent-kernel (NTK) variance.

Paper: Phan-Trong, Tran-The, Gupta, "NeuralBO: A black-box optimization algorithm using
deep neural networks", Neurocomputing 2023, §4, Algorithms 1-2.

Network (§4, eq. for ``h``): ``h(x; theta) = sqrt(m) W_L relu(W_{L-1} ... relu(W_1 x))``,
width ``m``, depth ``L`` (number of weight matrices), no biases. Initialization as §4:
entries of ``W_1 .. W_{L-1}`` i.i.d. ``N(0, 2/m)`` (He), ``W_L = 0`` so ``h(x; theta_0) = 0``.

Inputs. A bias-free ReLU network is positively homogeneous, ``h(c x) = c h(x)``, which on
``[0, 1]^d`` would force ``h(0) = 0`` and a ray-wise linear shape. As the authors' code
centres inputs (to ``[-1, 1]``) and the analysis assumes ``||x|| ~ 1``, a unit-cube point
``x`` enters the network as ``x~ = (2x - 1, 1) / sqrt(d/3 + 1)``: centred, with a constant
coordinate acting as first-layer bias, and ``E||x~||^2 = 1`` for uniform ``x``
(:func:`network_inputs`). With ``sphere=True`` every ``x~`` is scaled to unit norm (the
setting of NeuralUCB/NeuralTS, which the NeuralBO analysis relaxes to bounded norms): the
homogeneous network and its variance then depend on the direction of ``x~`` only, so points
far from the centre (largest ``||x~||``, up to ``sqrt(3)`` at the vertices) are no longer
favoured by an amplified prediction and variance.

Training (Algorithm 2, TrainNN): gradient steps on
``L(theta) = 1/2 sum_i (h(x_i; theta) - y_i)^2 + m lambda / 2 ||theta - theta_0||^2``.
We minimize ``L / t`` (same minimizer, step size independent of ``t``) with minibatch SGD
as in the paper's experiments (§7: SGD, batch 50, 50 epochs, lr 1e-3, lambda 0.01); a
minibatch ``B`` contributes ``1/(2|B|) sum_B (h - y)^2 + m lambda/(2t) ||theta - theta_0||^2``.
Divergence (non-finite or exploding loss) is detected and undone (:func:`fit_network`).

Variance (Algorithm 1, line 3): ``sigma_t^2(x) = lambda g(x; theta_0)^T U^{-1} g(x; theta_0) / m``
with ``U = lambda I + sum_i g(x_i; theta_0) g(x_i; theta_0)^T / m`` and ``g`` the gradient of
``h`` in all ``p`` weights. Two exact forms (:class:`NTKVariance`):

* primal: Cholesky of ``U`` restricted to the *active* weights (those whose gradient at
  ``theta_0`` is not identically zero; with ``W_L = 0`` only ``W_L`` is active, so
  ``p_eff = m``). On inactive weights ``U = lambda I`` and ``g = 0``, so nothing is lost.
  Per query ``O(p_eff^2)``.
* dual (Woodbury): ``U^{-1} = (I - G^T (lambda m I + G G^T)^{-1} G) / lambda`` gives
  ``sigma^2(x) = k(x, x) - k_x^T (K + lambda I)^{-1} k_x`` with the empirical NTK
  ``k(x, x') = <g(x), g(x')> / m``: a GP posterior variance with noise ``lambda``. The kernel is
  evaluated layer by layer without forming ``g``: for layer ``l``,
  ``<dh/dW_l(x), dh/dW_l(x')> = <delta_l(x), delta_l(x')> <a_{l-1}(x), a_{l-1}(x')>`` with
  ``delta_l`` the back-propagated output gradient and ``a_{l-1}`` the layer input. Per query
  ``O(t f + t^2)``, ``f`` = summed widths of the active layers.

``form="auto"`` takes the form with the smaller per-query cost (``p_eff^2`` vs
``t f + t^2``), never the primal one when ``p_eff^2`` would exceed :data:`MAX_PRIMAL_ENTRIES`.
The authors' code keeps the full ``p x p`` inverse (``p ~ 51,000`` at ``d = 100``: 20 GB);
both forms here need at most ``max(p_eff^2, t^2)`` numbers.

All tensors are float64 on the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from botorch.generation.gen import gen_candidates_scipy
from torch import Tensor

__all__ = [
    "DTYPE",
    "MAX_PRIMAL_ENTRIES",
    "FitReport",
    "NTKVariance",
    "fit_network",
    "init_weights",
    "network_forward",
    "network_inputs",
    "ntk_factors",
    "refine_minimizers",
    "train_network",
    "weight_gradients",
]

DTYPE = torch.float64
#: largest ``p_eff^2`` for which the primal (``p_eff x p_eff``) form may be chosen
MAX_PRIMAL_ENTRIES = 25_000_000
#: a training run whose loss grows above this multiple of its first loss has diverged
_BLOWUP = 1e4

Weights = list[Tensor]


def network_inputs(X: Tensor | np.ndarray, sphere: bool = False, scaled: bool = True) -> Tensor:
    """Map ``(n, d)`` unit-cube points to ``(n, d + 1)`` network inputs.

    ``x~ = (2x - 1, 1) / sqrt(d/3 + 1)`` (centred, constant coordinate as bias, unit mean
    square norm for uniform ``x``); with ``sphere``, ``x~ / ||x~||``; with ``scaled=False``
    ``(2x - 1, 1)`` itself, inputs in ``[-1, 1]`` as the authors' code. See the module
    docstring.
    """
    X = torch.as_tensor(X, dtype=DTYPE)
    d = X.shape[-1]
    ones = torch.ones(*X.shape[:-1], 1, dtype=DTYPE)
    Z = torch.cat([2.0 * X - 1.0, ones], dim=-1)
    if sphere:
        return Z / Z.norm(dim=-1, keepdim=True)
    if not scaled:
        return Z
    return Z / math.sqrt(d / 3.0 + 1.0)


def init_weights(
    d_in: int,
    width: int,
    depth: int,
    generator: torch.Generator,
    zero_last: bool = True,
    bias: bool = False,
) -> Weights:
    """Paper §4 initialization: ``W_l ~ N(0, 2/m)`` for ``l < L``, ``W_L = 0``.

    Returns ``depth`` matrices: ``W_1`` ``(m, d_in)``, ``W_2..W_{L-1}`` ``(m, m)``, ``W_L``
    ``(1, m)`` (``(1, d_in)`` when ``depth == 1``). With ``zero_last=False`` ``W_L`` is drawn
    from ``N(0, 1/m)`` instead (used by tests that need every layer active). With ``bias``
    every layer after the first gets one more column, its bias (initialized at 0; the first
    layer's bias is the constant input coordinate of :func:`network_inputs`); the other
    entries are drawn exactly as without biases.
    """
    std = math.sqrt(2.0 / width)
    weights: Weights = []
    fan_in = d_in
    for layer in range(depth - 1):
        W = torch.randn(width, fan_in, generator=generator, dtype=DTYPE) * std
        weights.append(_with_bias(W) if bias and layer > 0 else W)
        fan_in = width
    if zero_last:
        last = torch.zeros(1, fan_in, dtype=DTYPE)
    else:
        last = torch.randn(1, fan_in, generator=generator, dtype=DTYPE) / math.sqrt(width)
    weights.append(_with_bias(last) if bias and depth > 1 else last)
    return weights


def _with_bias(W: Tensor) -> Tensor:
    return torch.cat([W, torch.zeros(W.shape[0], 1, dtype=W.dtype)], dim=1)


def _augment(a: Tensor, W: Tensor) -> Tensor:
    """``a`` with a constant 1 appended when ``W`` has a bias column (one more than ``a``)."""
    if W.shape[1] == a.shape[-1] + 1:
        return torch.cat([a, torch.ones(*a.shape[:-1], 1, dtype=a.dtype)], dim=-1)
    return a


def network_forward(weights: Sequence[Tensor], Z: Tensor) -> Tensor:
    """``h(z; theta) = sqrt(m) W_L relu(... relu(W_1 z))`` for ``(..., d_in)`` inputs -> ``(...)``."""
    a = Z
    for W in weights[:-1]:
        a = torch.relu(_augment(a, W) @ W.T)
    return math.sqrt(_width(weights)) * (_augment(a, weights[-1]) @ weights[-1].T).squeeze(-1)


def _width(weights: Sequence[Tensor]) -> int:
    # the width m: rows of W_1 for depth >= 2; for a linear model (depth 1) use d_in
    return int(weights[0].shape[0] if len(weights) > 1 else weights[0].shape[1])


def _active_layers(weights: Sequence[Tensor]) -> list[int]:
    """Indices ``l`` whose gradient ``dh/dW_l`` is not identically zero.

    ``delta_l`` is a product through ``W_{l+1} .. W_L``; if any of them is the zero matrix,
    ``dh/dW_l = 0`` at every input.
    """
    active: list[int] = []
    zero_above = False
    for k in range(len(weights) - 1, -1, -1):
        if not zero_above:
            active.append(k)
        zero_above = zero_above or not bool(torch.any(weights[k] != 0))
    return sorted(active)


def ntk_factors(weights: Sequence[Tensor], Z: Tensor) -> list[tuple[Tensor, Tensor]]:
    """Per active layer ``l``: ``(delta_l (n, out_l), a_{l-1} (n, in_l))`` with
    ``dh/dW_l(z) = delta_l(z) a_{l-1}(z)^T``; differentiable in ``Z``.
    """
    active = _active_layers(weights)
    acts = [Z]  # the input of each layer, with the constant 1 of a bias column appended
    pre: list[Tensor] = []
    for W in weights[:-1]:
        acts[-1] = _augment(acts[-1], W)
        pre.append(acts[-1] @ W.T)
        acts.append(torch.relu(pre[-1]))
    acts[-1] = _augment(acts[-1], weights[-1])
    L = len(weights)
    deltas: dict[int, Tensor] = {
        L - 1: torch.full((Z.shape[0], 1), math.sqrt(_width(weights)), dtype=Z.dtype)
    }
    for k in range(L - 2, active[0] - 1, -1):  # back-propagate only as far as needed
        W_above = weights[k + 1][:, : pre[k].shape[-1]]  # without the bias column
        deltas[k] = torch.where(pre[k] > 0, deltas[k + 1] @ W_above, 0.0)
    return [(deltas[k], acts[k]) for k in active]


def weight_gradients(weights: Sequence[Tensor], Z: Tensor) -> Tensor:
    """``(n, p_eff)`` explicit gradients ``g(z)`` restricted to the active layers."""
    parts = [
        (d[:, :, None] * a[:, None, :]).reshape(Z.shape[0], -1) for d, a in ntk_factors(weights, Z)
    ]
    return torch.cat(parts, dim=1)


class NTKVariance:
    """``sigma_t^2(x)`` of NeuralBO Algorithm 1 line 3, exact, without a ``p x p`` matrix.

    Args:
        weights0: the initial weights ``theta_0`` (fixed features).
        Z_train: ``(t, d_in)`` network inputs of the observed points (they make ``U``).
        lam: the regularization ``lambda > 0``.
        form: ``"auto"``, ``"primal"`` (``p_eff x p_eff`` Cholesky of ``U``) or ``"dual"``
            (``t x t`` Woodbury / empirical-NTK form); see the module docstring.

    Calling the object on ``(n, d_in)`` inputs returns the ``(n,)`` variances; it is
    differentiable in the inputs (used by the local refinement of Thompson samples).
    """

    def __init__(
        self, weights0: Sequence[Tensor], Z_train: Tensor, lam: float, form: str = "auto"
    ) -> None:
        if form not in ("auto", "primal", "dual"):
            raise ValueError(f"form must be 'auto', 'primal' or 'dual', got {form!r}")
        if not lam > 0:
            raise ValueError(f"lam must be > 0, got {lam!r}")
        self.weights0 = [w.detach() for w in weights0]
        self.lam = float(lam)
        self.m = _width(self.weights0)
        t = Z_train.shape[0]
        facs = ntk_factors(self.weights0, Z_train[:1])
        p_eff = sum(d.shape[1] * a.shape[1] for d, a in facs)
        f = sum(d.shape[1] + a.shape[1] for d, a in facs)
        self.p_eff, self.t = p_eff, t
        if form == "auto":
            primal_ok = p_eff * p_eff <= MAX_PRIMAL_ENTRIES
            form = "primal" if primal_ok and p_eff * p_eff < t * f + t * t else "dual"
        self.form = form
        with torch.no_grad():
            if form == "primal":
                G = weight_gradients(self.weights0, Z_train)
                U = G.T @ G / self.m
                U.diagonal().add_(self.lam)
                self._chol = torch.linalg.cholesky(U)
            else:
                self._train_factors = ntk_factors(self.weights0, Z_train)
                K = self._kernel(self._train_factors, self._train_factors)
                K.diagonal().add_(self.lam)
                self._chol = torch.linalg.cholesky(K)

    def _kernel(self, F1: list[tuple[Tensor, Tensor]], F2: list[tuple[Tensor, Tensor]]) -> Tensor:
        """Empirical NTK ``<g(x), g(x')> / m`` from layer factors: ``(n1, n2)``."""
        out: Tensor | None = None
        for (d1, a1), (d2, a2) in zip(F1, F2):
            term = (d1 @ d2.T) * (a1 @ a2.T)
            out = term if out is None else out + term
        assert out is not None, "a network has at least one layer"
        return out / self.m

    def __call__(self, Z: Tensor, chunk: int = 8192) -> Tensor:
        if Z.shape[0] > chunk and not Z.requires_grad:
            return torch.cat([self(Z[i : i + chunk], chunk) for i in range(0, Z.shape[0], chunk)])
        if self.form == "primal":
            G = weight_gradients(self.weights0, Z)  # (n, p_eff)
            V = torch.linalg.solve_triangular(self._chol, G.T, upper=False)
            return self.lam / self.m * (V * V).sum(0)
        F = ntk_factors(self.weights0, Z)
        kxx = sum((d * d).sum(1) * (a * a).sum(1) for d, a in F) / self.m
        kx = self._kernel(self._train_factors, F)  # (t, n)
        V = torch.linalg.solve_triangular(self._chol, kx, upper=False)
        return (kxx - (V * V).sum(0)).clamp_min(0.0)


# -- TrainNN (Algorithm 2) -----------------------------------------------------------------


@dataclass
class FitReport:
    """What :func:`fit_network` did: final loss, step size used, failed attempts."""

    loss: float
    lr: float
    n_failures: int
    reinitialized: bool


def train_network(
    weights: Sequence[Tensor],
    weights0: Sequence[Tensor],
    Z: Tensor,
    y: Tensor,
    *,
    lam: float,
    lr: float,
    epochs: int,
    batch_size: int,
    generator: torch.Generator,
    optimizer: str = "sgd",
) -> tuple[Weights, list[float], bool]:
    """Algorithm 2 (TrainNN) from ``weights`` with the regularizer towards ``weights0``.

    Minimizes ``L(theta) / t`` (module docstring) by minibatch ``optimizer`` (``"sgd"`` as
    the paper, or ``"adam"``). ``Z`` ``(t, d_in)``, ``y`` ``(t,)``.

    Returns ``(weights, epoch_losses, diverged)``; on divergence (non-finite loss or
    weights, or loss above ``1e4`` times the first one) training stops early and
    ``diverged`` is True; the returned weights are then not to be used.
    """
    t = Z.shape[0]
    params = [w.detach().clone().requires_grad_(True) for w in weights]
    anchors = [w.detach() for w in weights0]
    m = _width(anchors)
    reg = m * lam / t
    opt_cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[optimizer]
    opt = opt_cls(params, lr=lr, foreach=True)
    bs = min(batch_size, t)
    return _train_loop(params, anchors, opt, Z, y, reg, epochs, bs, generator)


def _train_loop(
    params: Weights,
    anchors: Weights,
    opt: torch.optim.Optimizer,
    Z: Tensor,
    y: Tensor,
    reg: float,
    epochs: int,
    bs: int,
    generator: torch.Generator,
) -> tuple[Weights, list[float], bool]:
    t = Z.shape[0]
    losses: list[float] = []
    for _ in range(epochs):
        perm = torch.randperm(t, generator=generator)
        total = 0.0
        for start in range(0, t, bs):
            idx = perm[start : start + bs]
            opt.zero_grad()
            resid = network_forward(params, Z[idx]) - y[idx]
            penalty = sum(((p - p0) ** 2).sum() for p, p0 in zip(params, anchors))
            loss = 0.5 * (resid**2).mean() + 0.5 * reg * penalty
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx) / t
        losses.append(total)
        if not math.isfinite(total) or total > _BLOWUP * max(losses[0], 1e-12):
            return [p.detach() for p in params], losses, True
    out = [p.detach() for p in params]
    if not all(bool(torch.isfinite(w).all()) for w in out):
        return out, losses, True
    return out, losses, False


def fit_network(
    weights: Sequence[Tensor],
    weights0: Sequence[Tensor],
    Z: Tensor,
    y: Tensor,
    *,
    lam: float,
    lr: float,
    epochs: int,
    batch_size: int,
    generator: torch.Generator,
    optimizer: str = "sgd",
    max_retries: int = 3,
) -> tuple[Weights, FitReport]:
    """:func:`train_network` with divergence recovery; never returns non-finite weights.

    On divergence the step size is divided by 10 and training restarts from ``weights``
    (up to ``max_retries`` times); if that keeps failing, from ``weights0`` with a step
    ten times smaller again. If everything fails ``weights0`` itself is returned (the
    prior network, ``h = 0`` with the paper's init), so suggestions stay finite.
    """
    failures = 0
    for start, reinit in ((weights, False), (weights0, True)):
        tries = max_retries if not reinit else 1
        for _ in range(tries):
            new, losses, diverged = train_network(
                start,
                weights0,
                Z,
                y,
                lam=lam,
                lr=lr,
                epochs=epochs,
                batch_size=batch_size,
                generator=generator,
                optimizer=optimizer,
            )
            if not diverged:
                return new, FitReport(losses[-1] if losses else float("nan"), lr, failures, reinit)
            failures += 1
            lr = lr / 10.0
    return [w.detach().clone() for w in weights0], FitReport(float("nan"), lr, failures, True)


# -- local refinement of a candidate search ------------------------------------------------


class _Negated:
    """Maximization wrapper for BoTorch's ``gen_candidates_scipy``: ``(b, 1, d) -> (b,)``."""

    def __init__(self, fn: Callable[[Tensor], Tensor]) -> None:
        self.fn = fn

    def __call__(self, X: Tensor) -> Tensor:
        return -self.fn(X.squeeze(-2))


def refine_minimizers(
    fn: Callable[[Tensor], Tensor], X0: Tensor, maxiter: int = 100
) -> tuple[Tensor, Tensor]:
    """Locally minimize a differentiable ``fn: (b, d) -> (b,)`` from ``X0`` ``(b, d)`` in ``[0,1]^d``.

    Runs L-BFGS-B through BoTorch's ``gen_candidates_scipy`` (all starts as one separable
    problem; ``fn`` may treat batch rows differently). Returns ``(X (b, d), fn(X) (b,))``;
    a row keeps its start when the optimizer does not improve it or fails numerically.
    """
    X0 = X0.detach().to(DTYPE)
    with torch.no_grad():
        f0 = fn(X0)
    try:
        X, neg = gen_candidates_scipy(
            X0.unsqueeze(-2),
            cast(Any, _Negated(fn)),  # a callable serves as acqf
            lower_bounds=0.0,
            upper_bounds=1.0,
            options={"maxiter": maxiter},
            use_parallel_mode=False,
        )
        X = X.squeeze(-2).detach().clamp(0.0, 1.0)
        with torch.no_grad():
            f = fn(X)
    except (RuntimeError, ValueError):  # scipy/torch numerical failure: keep the starts
        return X0, f0
    better = torch.isfinite(f) & (f < f0)
    return torch.where(better[:, None], X, X0), torch.where(better, f, f0)
