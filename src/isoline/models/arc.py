"""The arc kernel: a GP kernel on a conditional space that compares only what is active.

Swersky, Duvenaud, Snoek, Hutter & Osborne, "Raiders of the lost architecture: kernels
for Bayesian optimization in conditional parameter spaces", NIPS 2013 workshop on
Bayesian optimization (arXiv:1409.4011). The paper embeds each parameter ``i`` of a point
``x`` on a cylinder: ``g_i(x) = (0, 0)`` where ``i`` is inactive, and
``g_i(x) = omega_i (sin(pi rho_i x_i), cos(pi rho_i x_i))`` where it is active (``x_i``
scaled to ``[0, 1]``; with ``rho_i <= 1`` the arc spans at most half the circle and never
wraps), and substitutes the distances ``|g_i(x) - g_i(x')|`` into a kernel on
Euclidean space. Two points where ``i`` is inactive agree in it whatever their encoded
value; an active and an inactive point are ``omega_i`` apart, a learned distance; two
active values ``omega_i (2 - 2 cos(pi rho_i (x_i - x'_i)))^(1/2)`` apart.

Here (:class:`ArcKernel`) the embedding is applied to every encoded column of a
conditional parameter of an :class:`isoline.params.Space` (each column of a
Categorical's one-hot block on its own), with activity read from the point's parent
columns (:func:`isoline.models.rounding.activity`); the columns of unconditional
parameters enter as ``x_j / l_j``, as in the ARD kernel of the imputing treatment
(:mod:`isoline.conditions`), so the two treatments differ only in conditional columns.
The house Matern-5/2 or RBF kernel (GPyTorch's, unit lengthscale) is applied to the
Euclidean distance of the concatenated embedding; with RBF this is the product over
columns of per-column kernels ``exp(-d_j^2 / 2)``.

Parametrization: each conditional column keeps an ARD lengthscale ``l_j`` and has an
angle ``rho_j`` in ``[0.1, 1]`` (bounded, no prior); its radius is
``omega_j = 1 / (pi rho_j l_j)``. Then two close active values are ``|x_j - x'_j| / l_j``
apart to first order, as in the imputing kernel, so every lengthscale keeps its meaning and
the prior and constraint of the kernel :func:`isoline.models.gp.fit_gp` would build
(BoTorch's dimension-scaled log-normal, or Optuna GPSampler's); ``(l_j, rho_j)`` and the
paper's ``(omega_j, rho_j)`` determine each other, so the family is the paper's. A small
``rho_j`` puts inactive points far from active ones (little is shared); ``rho_j = 1``
puts them at ``1 / (pi l_j)``, half the widest active span.

GPyTorch's own ``ArcKernel`` embeds every column it is given and divides ``x_j`` by a
lengthscale inside the angle, so its arc can wrap past half a circle; it is not used.
Only the paper's abstract was at hand when this was written: the embedding above is its
published definition as restated by GPyTorch's ``ArcKernel`` documentation and GPflow's
hierarchical-kernel notebook; the angle's bounds and the parametrization are isoline's.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from gpytorch.constraints import Interval
from gpytorch.kernels import Kernel, MaternKernel, RBFKernel, ScaleKernel

from isoline.models.rounding import activity
from isoline.params import Space

__all__ = ["ANGLE_BOUNDS", "ArcKernel", "arc_kernel"]

#: the interval of each angle ``rho_j``
ANGLE_BOUNDS = (0.1, 1.0)


class ArcKernel(Kernel):
    """Matern-5/2 (``kernel="matern52"``) or RBF kernel on the arc embedding of the
    conditional columns of ``space`` (see the module docstring).

    Args:
        space: a :class:`~isoline.params.Space` with conditions; inputs are its encoding.
        kernel: ``"matern52"`` or ``"rbf"``.
        kw: GPyTorch's ``lengthscale_prior`` and ``lengthscale_constraint`` of the ARD
            lengthscales (one per encoded column).

    Attributes:
        lengthscale: ``(*batch, 1, dim)`` ARD lengthscales (``batch_shape`` in ``kw``: one
            kernel per output of a batch of GPs).
        angle: ``(*batch, n)`` angle ``rho_j`` of each of the ``n`` conditional columns.
        columns: the conditional columns, ascending.
    """

    has_lengthscale = True

    def __init__(self, space: Space, kernel: str = "matern52", **kw: Any) -> None:
        if not isinstance(space, Space) or not space.conditions:
            raise ValueError("the arc kernel needs an isoline.Space with conditions")
        super().__init__(ard_num_dims=space.dim, **kw)
        self.space = space
        #: each conditional parameter (parents before children) and its columns
        self.conditional = [n for n in space.conditions.order if n in space.conditions.parent]
        owner = [(c, i) for i, n in enumerate(self.conditional) for c in _cols(space, n)]
        owner.sort()
        self.columns = [c for c, _ in owner]
        self.register_buffer("_cond", torch.tensor(self.columns, dtype=torch.long))
        self.register_buffer("_owner", torch.tensor([i for _, i in owner], dtype=torch.long))
        plain = [c for c in range(space.dim) if c not in set(self.columns)]
        self.register_buffer("_plain", torch.tensor(plain, dtype=torch.long))
        # untransformed, as BoTorch's lengthscales: L-BFGS-B holds the angle in its bounds
        start = torch.full((*self.batch_shape, len(self.columns)), sum(ANGLE_BOUNDS) / 2)
        self.register_parameter("raw_angle", torch.nn.Parameter(start))
        self.register_constraint("raw_angle", Interval(*ANGLE_BOUNDS, transform=None))
        unit = RBFKernel() if kernel == "rbf" else MaternKernel(nu=2.5)
        unit.lengthscale = 1.0
        unit.raw_lengthscale.requires_grad_(False)
        self.unit = unit

    @property
    def angle(self) -> torch.Tensor:
        return self.raw_angle_constraint.transform(self.raw_angle)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """``(..., dim)`` encoded points -> ``(..., dim + n)`` coordinates in lengthscale
        units: unconditional columns ``x_j / l_j``, then the sine and the cosine
        coordinates of each conditional column (zero where it is inactive)."""
        on = activity(self.space, x)
        mask = torch.stack([on[n] for n in self.conditional], dim=-1)[..., self._owner]
        ls = self.lengthscale  # (*batch, 1, dim)
        rho = self.angle.unsqueeze(-2)  # (*batch, 1, n)
        theta = math.pi * rho * x[..., self._cond]
        radius = mask.to(x.dtype) / (math.pi * rho * ls[..., self._cond])
        parts = [x[..., self._plain] / ls[..., self._plain], radius * torch.sin(theta)]
        return torch.cat([*parts, radius * torch.cos(theta)], dim=-1)

    def forward(
        self, x1: torch.Tensor, x2: torch.Tensor, diag: bool = False, **params: Any
    ) -> torch.Tensor:
        return self.unit.forward(self.embed(x1), self.embed(x2), diag=diag, **params)


def _cols(space: Space, name: str) -> range:
    s = space.blocks[name]
    return range(s.start, s.stop)


def arc_kernel(reference: Kernel, space: Space, kernel: str) -> Kernel:
    """``reference`` (an ARD kernel, or a ``ScaleKernel`` around one, as
    :func:`isoline.models.gp.fit_gp` builds it) with its ARD kernel replaced by an
    :class:`ArcKernel` over ``space`` that takes over its lengthscale prior, constraint
    and starting lengthscales.

    Raises:
        ValueError: the space has no conditions, does not match the kernel's columns, or
            the lengthscales are fixed (the arc kernel learns them).
    """
    base = reference.base_kernel if isinstance(reference, ScaleKernel) else reference
    if not base.raw_lengthscale.requires_grad:
        raise ValueError("the arc kernel learns its lengthscales: leave lengthscale None")
    if base.ard_num_dims != getattr(space, "dim", None):
        raise ValueError(
            f"the arc kernel's space encodes {getattr(space, 'dim', None)} columns, "
            f"the data has {base.ard_num_dims}"
        )
    prior = getattr(base, "lengthscale_prior", None)
    arc = ArcKernel(
        space, kernel, lengthscale_prior=prior,
        lengthscale_constraint=base.raw_lengthscale_constraint, batch_shape=base.batch_shape,
    )  # fmt: skip
    with torch.no_grad():
        arc.raw_lengthscale.copy_(base.raw_lengthscale.detach())
    arc = arc.to(base.raw_lengthscale.dtype)
    if isinstance(reference, ScaleKernel):
        reference.base_kernel = arc
        return reference
    return arc
