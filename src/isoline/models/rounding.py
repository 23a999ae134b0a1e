"""A GP input transform that rounds encoded points to the configuration they decode to.

With it the kernel compares the configurations that are actually evaluated, not their
continuous relaxations: ``k(T(u), T(u'))`` with ``T`` the rounding of
:meth:`isoline.params.Space.round`. An acquisition is then constant on the cell of each
configuration, and is optimized through straight-through gradients (BoTorch's
``RoundSTE`` for integers, ``OneHotArgmaxSTE`` for one-hot categoricals). On a conditional space the columns of each
parameter inactive at the rounded point take the constant of :mod:`isoline.conditions`.

Garrido-Merchan & Hernandez-Lobato, "Dealing with categorical and integer-valued variables
in Bayesian optimization with Gaussian processes", Neurocomputing 380 (2020).
"""

from __future__ import annotations

import torch
from botorch.models.transforms.input import InputTransform
from botorch.utils.rounding import OneHotArgmaxSTE, RoundSTE

from isoline.conditions import INACTIVE
from isoline.encoding import int_from_unit, int_to_unit
from isoline.params import Categorical, Integer, Space

__all__ = ["SpaceRounding", "activity", "space_rounding"]


class SpaceRounding(InputTransform):
    """Round ``(..., n, dim)`` encoded inputs of ``space``; real columns pass unchanged.

    Applied at evaluation and inside fantasies, not to the training inputs: a method's
    observations are rounded already (:meth:`isoline.methods.base.Method.tell` stores
    them rounded), so rounding them again at every likelihood evaluation would only cost.
    """

    def __init__(self, space: Space) -> None:
        super().__init__()
        self.space = space
        self.transform_on_train = False
        self.transform_on_eval = True
        self.transform_on_fantasize = True

    def transform(self, X: torch.Tensor) -> torch.Tensor:
        R = X.clone()
        for name, p in self.space.params.items():
            s = self.space.blocks[name]
            if isinstance(p, Integer):
                k = int_from_unit(X[..., s.start], p.low, p.high, p.scale, torch, RoundSTE.apply)
                R[..., s.start] = int_to_unit(k, p.low, p.high, p.scale, torch)
            elif isinstance(p, Categorical):
                R[..., s] = OneHotArgmaxSTE.apply(X[..., s])
        # inactive parameters take the constant of isoline.conditions (zero gradient there)
        for name, on in activity(self.space, X).items():
            s = self.space.blocks[name]
            R[..., s] = torch.where(on[..., None], R[..., s], torch.full_like(R[..., s], INACTIVE))
        return R

    def equals(self, other: InputTransform) -> bool:
        return isinstance(other, SpaceRounding) and other.space == self.space


def activity(space: Space, X: torch.Tensor) -> dict[str, torch.Tensor]:
    """``{child: (...) bool}``: where each conditional parameter of ``space`` is active in
    the encoded points ``X (..., dim)`` (each parent read as the value its columns decode
    to, :meth:`isoline.conditions.Conditions.masks`); no gradient flows through it."""
    codes: dict[str, torch.Tensor] = {}
    for name, p in space.params.items():
        s = space.blocks[name]
        if isinstance(p, Integer):
            k = int_from_unit(X[..., s.start].detach(), p.low, p.high, p.scale, torch, torch.round)
            codes[name] = k.long() - p.low
        elif isinstance(p, Categorical):
            codes[name] = X[..., s].detach().argmax(dim=-1)
    return space.conditions.masks(codes, torch)


def space_rounding(space: Space | None) -> SpaceRounding | None:
    """The rounding transform of a space with integer or categorical parameters, else
    ``None`` (nothing to round)."""
    return SpaceRounding(space) if space is not None and space.discrete else None
