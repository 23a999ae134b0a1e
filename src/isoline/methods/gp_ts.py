"""GP Thompson sampling (gp-ts), on the GP and options of :mod:`isoline.methods.gp_bo`."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from botorch.acquisition.objective import LinearMCObjective
from botorch.acquisition.thompson_sampling import PathwiseThompsonSampling
from torch.quasirandom import SobolEngine

from isoline.acquisition import maximize
from isoline.methods.gp_bo import _GPMethod
from isoline.methods.registry import register
from isoline.validation import check_bool, check_int

__all__ = ["GPTS"]


@register
class GPTS(_GPMethod):
    """GP Thompson sampling (Thompson 1933; GP-TS of Chowdhury & Gopalan 2017).

    Each of the ``q`` batch points minimizes its own posterior sample of ``f``, drawn
    as a pathwise (Matheron-rule, random-Fourier-feature) sample (Wilson et al. 2020,
    BoTorch ``PathwiseThompsonSampling``). A sample is maximized over ``n_candidates``
    scrambled Sobol points, then refined by L-BFGS-B from the best candidate
    (``refine=True``). Points repeated within a batch are replaced by that sample's
    best unused candidate.

    One objective without constraints only (it refuses others): constrained Thompson
    sampling over the whole cube adds nothing that turbo's SCBO (Eriksson & Poloczek,
    AISTATS 2021), constrained Thompson sampling inside a trust region, or gp-ei's
    constrained noisy log EI does not already offer, through BoTorch.

    On a space with known linear constraints the candidates are the feasible points of
    the Sobol sequence (hit-and-run polytope samples when few are feasible,
    :meth:`~isoline.input_constraints.UnitConstraints.sample`), so each sample's argmax
    is feasible, and the refinement searches under the same constraints (a refined point
    replaces the candidate only if it is feasible and no worse on that sample).

    Options:
        n_candidates: Sobol candidates per proposal.
        refine: polish each sample's best candidate with L-BFGS-B (integer and
            categorical columns held at the candidate's values, so ``discrete_search``
            must stay ``"held"`` and ``start_at_best`` off).
    """

    name = "gp-ts"
    summary = "GP Thompson sampling"
    paper = "Chowdhury & Gopalan, ICML 2017 (GP-TS); Wilson et al., ICML 2020 (pathwise)"
    supports_input_constraints = True

    def __init__(
        self,
        dim: int,
        *,
        n_candidates: int = 5000,
        refine: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(dim, **options)
        self.n_candidates = check_int(n_candidates, "n_candidates", 1)
        self.refine = check_bool(refine, "refine")
        if self.discrete_search != "held" or self.start_at_best:
            raise ValueError(
                "gp-ts refines each sample's best candidate from that point: discrete_search "
                f"must be 'held' and start_at_best False, got {self.discrete_search!r} and "
                f"{self.start_at_best!r}"
            )

    def propose(self, q: int) -> np.ndarray:
        with self.torch_rng():
            gp, _ = self._fit()
            # sample paths of f, negated: maximizing one minimizes that sample of f
            acqf = PathwiseThompsonSampling(
                gp.model, objective=LinearMCObjective(-torch.ones(1, dtype=torch.float64))
            )
            C = torch.as_tensor(self._candidates(int(torch.randint(2**31 - 1, (1,)))))
            with torch.no_grad():
                # (N, q): value of sample path j at candidate i; the first call draws
                # q independent sample paths
                vals = acqf._pathwise_forward(C.unsqueeze(1).expand(-1, q, -1))
            order = torch.argsort(vals, dim=0, descending=True)  # per path, best first
            X0 = C[order[0]]  # (q, d)
            if self.refine:
                X, _ = maximize(
                    acqf, self.dim, q, initial_conditions=X0.unsqueeze(0).numpy(),
                    discrete=None if self.space is None else self.space.discrete_columns,
                    constraints=self.input_constraints,
                )  # fmt: skip
                if self.input_constraints is not None:  # a solver's slack or a fallback
                    X = self.input_constraints.repair(X)
                # keep a refined point only if its own path value did not get worse
                with torch.no_grad():
                    v_new = acqf._pathwise_forward(torch.as_tensor(X).unsqueeze(0)).reshape(-1)
                    v_old = acqf._pathwise_forward(X0.unsqueeze(0)).reshape(-1)
                X = np.where((v_new >= v_old).numpy()[:, None], X, X0.numpy())
            else:
                X = X0.numpy().copy()
            return _dedupe(X, C.numpy(), order.numpy())

    def _candidates(self, seed: int) -> np.ndarray:
        """``(n_candidates, d)`` scrambled Sobol points seeded by ``seed``: the first ones,
        or the first feasible ones on a space with linear constraints."""

        def draw(m: int) -> np.ndarray:
            engine = SobolEngine(self.dim, scramble=True, seed=seed)
            return engine.draw(m, dtype=torch.float64).numpy()

        if self.input_constraints is None:
            return draw(self.n_candidates)
        return self.input_constraints.sample(draw, self.n_candidates, seed, thinning=1)


def _dedupe(X: np.ndarray, C: np.ndarray, order: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Replace points of ``X (q, d)`` repeating an earlier one by the next best candidate.

    ``order[:, j]`` ranks the candidates ``C`` for sample path ``j``.
    """
    X = X.copy()
    for j in range(1, len(X)):
        rank = 0
        while np.any(np.max(np.abs(X[:j] - X[j]), axis=1) <= tol) and rank + 1 < len(C):
            rank += 1
            X[j] = C[order[rank, j]]
    return X
