"""Acquisition search over a typed space's mixed encoding: :func:`maximize_mixed`.

Alternates a discrete local search (each Integer column stepped to its neighbouring
values, each Categorical tried at every other choice) with L-BFGS-B over the continuous
columns, from several starts, through BoTorch's ``optimize_acqf_mixed_alternating``.
Optuna's GPSampler searches its acquisition in the same alternating way. Integers with
more values than the layout lists are searched as relaxed continuous columns (the
model's rounding makes the acquisition constant on each integer's cell).

BoTorch's search wants each categorical parameter as one column of choice indices, while
isoline encodes it one-hot (:mod:`isoline.encoding`), so the search runs on a reduced
space: the columns that are not one-hot, followed by one index column per Categorical.
:class:`ReducedSpace` maps between the two; :class:`OnReduced` evaluates an acquisition
of the full encoding at reduced points.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import torch
from botorch.acquisition import AcquisitionFunction
from botorch.optim.optimize_mixed import optimize_acqf_mixed_alternating

from isoline.encoding import DiscreteLayout

__all__ = ["OnReduced", "ReducedSpace", "maximize_mixed"]


class ReducedSpace:
    """The reduced coordinates of a ``d``-column encoding with discrete ``layout``.

    Column ``j`` of the reduced space is column :attr:`kept` ``[j]`` of the encoding for
    ``j < len(kept)``, then the choice index of one-hot block ``j - len(kept)``.
    """

    def __init__(self, d: int, layout: DiscreteLayout) -> None:
        in_blocks = {c for a, b in layout.one_hot for c in range(a, b)}
        self.d = d
        self.layout = layout
        #: encoded columns carried over one to one
        self.kept = [c for c in range(d) if c not in in_blocks]
        #: reduced column of each kept encoded column
        self.position = {c: j for j, c in enumerate(self.kept)}
        #: reduced column of each one-hot block's index
        self.block_columns = [len(self.kept) + i for i in range(len(layout.one_hot))]
        self.dim = len(self.kept) + len(layout.one_hot)

    def expand(self, Xr: torch.Tensor) -> torch.Tensor:
        """``(..., dim)`` reduced points to ``(..., d)`` encoded points."""
        X = Xr.new_zeros(*Xr.shape[:-1], self.d)
        X[..., self.kept] = Xr[..., : len(self.kept)]
        for (a, b), j in zip(self.layout.one_hot, self.block_columns):
            idx = Xr[..., j].round().clamp(0, b - a - 1).long()
            X[..., a:b] = torch.nn.functional.one_hot(idx, b - a).to(Xr)
        return X

    def reduce(self, X: torch.Tensor) -> torch.Tensor:
        """``(..., d)`` encoded points to ``(..., dim)`` reduced points (argmax choices)."""
        parts = [X[..., self.kept]]
        parts += [X[..., a:b].argmax(-1, keepdim=True).to(X) for a, b in self.layout.one_hot]
        return torch.cat(parts, dim=-1)

    def bounds(self, B: torch.Tensor) -> torch.Tensor:
        """``(2, dim)`` reduced bounds of the encoded box ``B``: each ordinal column spans
        its first to last value (as BoTorch's search requires), an index column ``0`` to
        the number of choices minus one."""
        Br = torch.empty(2, self.dim, dtype=B.dtype)
        Br[:, : len(self.kept)] = B[:, self.kept]
        for c, values in self.layout.ordinal.items():
            Br[0, self.position[c]], Br[1, self.position[c]] = values[0], values[-1]
        for (a, b), j in zip(self.layout.one_hot, self.block_columns):
            Br[0, j], Br[1, j] = 0.0, float(b - a - 1)
        return Br


class OnReduced(AcquisitionFunction):
    """``acqf`` of the full encoding evaluated at reduced points.

    Pending points set during the search (a greedy batch) are reduced points; they are
    expanded and appended to the pending points ``acqf`` had when wrapped.
    """

    def __init__(self, acqf: AcquisitionFunction, space: ReducedSpace) -> None:
        super().__init__(model=acqf.model)
        self.acqf = acqf
        self.space = space
        self._base_pending: torch.Tensor | None = getattr(acqf, "X_pending", None)
        self._pending: torch.Tensor | None = None

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.acqf(self.space.expand(X))

    def set_X_pending(self, X_pending: torch.Tensor | None = None) -> None:
        self._pending = X_pending
        parts = [p for p in (self._base_pending, X_pending) if p is not None]
        if X_pending is not None:
            parts[-1] = self.space.expand(X_pending.detach())
        self.acqf.set_X_pending(torch.cat(parts, dim=-2) if parts else None)

    @property  # type: ignore[override]
    def X_pending(self) -> torch.Tensor | None:
        return self._pending

    @X_pending.setter
    def X_pending(self, value: torch.Tensor | None) -> None:
        self._pending = value

    @property
    def X_baseline(self) -> torch.Tensor:
        """The model's training inputs, reduced (centres of BoTorch's spray points)."""
        return self.space.reduce(cast(torch.Tensor, self.model.train_inputs[0]))  # type: ignore[index]


def maximize_mixed(
    acqf: AcquisitionFunction,
    B: torch.Tensor,
    q: int,
    layout: DiscreteLayout,
    *,
    num_restarts: int,
    raw_samples: int,
    fixed_features: Mapping[int, float] | None = None,
) -> torch.Tensor:
    """The best ``(q, d)`` batch found by alternating discrete and continuous search.

    Args:
        acqf: an acquisition function of the ``d``-column encoding (maximized).
        B: ``(2, d)`` box inside the unit cube; it bounds the continuous columns (an
            ordinal column spans all its values, a one-hot block all its choices).
        q: points, chosen greedily one after another (each pending for the next).
        layout: the encoding's discrete columns (:meth:`isoline.params.Space.discrete_layout`).
        num_restarts: starts of the alternating search.
        raw_samples: candidate points the starts are picked from.
        fixed_features: ``{column: value}`` of continuous or ordinal columns held fixed.
    """
    space = ReducedSpace(B.shape[1], layout)
    ff: dict[int, float] = {}
    for c, v in (fixed_features or {}).items():
        if c not in space.position:
            raise ValueError(f"fixed_features: column {c} is inside a one-hot block")
        ff[space.position[c]] = float(v)
    ordinal = {}
    for c, values in layout.ordinal.items():
        j = space.position[c]
        if j in ff:
            continue
        if len(values) == 1:
            ff[j] = values[0]
        else:
            ordinal[j] = list(values)
    choices = {
        j: [float(i) for i in range(b - a)]
        for (a, b), j in zip(layout.one_hot, space.block_columns)
        if b - a > 1
    }
    for (a, b), j in zip(layout.one_hot, space.block_columns):
        if b - a == 1:
            ff[j] = 0.0
    Xr, _ = optimize_acqf_mixed_alternating(
        OnReduced(acqf, space),
        bounds=space.bounds(B),
        discrete_dims=ordinal,
        cat_dims=choices,
        q=q,
        num_restarts=num_restarts,
        raw_samples=raw_samples,
        fixed_features=ff or None,
    )
    return space.expand(Xr.detach().reshape(q, space.dim))
