"""The arc kernel for conditional spaces and gp-ei's ``inactive="arc"`` option."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gpytorch.kernels import RBFKernel

import isoline as iso
from isoline.methods.registry import make_method
from isoline.models.arc import ArcKernel
from isoline.models.gp import fit_gp
from isoline.models.rounding import activity, space_rounding
from isoline.params import Categorical, Real, Space
from isoline.testing import conditional_bowl, conditional_space


def svm() -> Space:
    return conditional_space()


def kernel(seed: int = 0) -> ArcKernel:
    """An arc kernel with random (not default) lengthscales and angles."""
    k = ArcKernel(svm(), "matern52").to(torch.float64)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        k.raw_lengthscale.copy_(0.1 + torch.rand(k.raw_lengthscale.shape, generator=g))
        k.raw_angle.copy_(torch.randn(k.raw_angle.shape, generator=g, dtype=torch.float64))
    return k


def points(n: int, seed: int = 0) -> torch.Tensor:
    space = svm()
    return torch.as_tensor(space.round(np.random.default_rng(seed).random((n, space.dim))))


def cov(k: ArcKernel, a: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
    with torch.no_grad():
        return k(a, a if b is None else b).to_dense()


def test_kernel_is_symmetric_and_positive_semidefinite() -> None:
    for seed in range(3):
        X = points(40, seed)
        K = cov(kernel(seed), X)
        torch.testing.assert_close(K, K.T, rtol=0, atol=1e-12)
        assert torch.linalg.eigvalsh(K).min() > -1e-10
        torch.testing.assert_close(torch.diagonal(K), torch.ones(40, dtype=torch.float64))


def test_a_parameter_inactive_in_both_points_does_not_count() -> None:
    space, k = svm(), kernel(1)
    a = space.encode({"kernel": "linear", "c": 1.0})
    b = space.encode({"kernel": "linear", "c": -1.0})
    g = space.blocks["gamma"].start
    a2, b2 = a.copy(), b.copy()
    a2[g], b2[g] = 0.9, 0.2  # gamma differs, inactive in both
    same = cov(k, torch.tensor(a[None]), torch.tensor(b[None]))
    assert torch.equal(cov(k, torch.tensor(a2[None]), torch.tensor(b2[None])), same)
    a3, b3 = a.copy(), b.copy()
    a3[g] = b3[g] = 0.6  # the same points with gamma equal
    assert torch.equal(cov(k, torch.tensor(a3[None]), torch.tensor(b3[None])), same)
    # the imputing kernel would see a difference in the gamma column
    assert not np.array_equal(a2, b2)


def test_an_active_parameter_counts_and_activity_is_a_learned_distance_away() -> None:
    space, k = svm(), kernel(2)
    base = {"kernel": "rbf", "c": 1.0}
    near = cov(k, torch.tensor(space.encode([{**base, "gamma": 1e-2}, {**base, "gamma": 1.2e-2}])))
    far = cov(k, torch.tensor(space.encode([{**base, "gamma": 1e-2}, {**base, "gamma": 0.5}])))
    assert 1.0 > near[0, 1] > far[0, 1]
    # active (rbf, gamma) against inactive (linear): the distance grows as the angle shrinks
    pair = torch.tensor(space.encode([{**base, "gamma": 1e-2}, {"kernel": "linear", "c": 1.0}]))
    values = []
    for rho in (0.95, 0.5, 0.15):
        with torch.no_grad():
            k.raw_angle.copy_(
                k.raw_angle_constraint.inverse_transform(torch.full_like(k.angle, rho))
            )
        values.append(float(cov(k, pair)[0, 1]))
    assert values[0] > values[1] > values[2]


def test_activity_follows_the_space() -> None:
    space = svm()
    U = np.random.default_rng(3).random((30, space.dim))
    on = activity(space, torch.as_tensor(U))
    configs = space.decode(U)
    for name in ("gamma", "degree", "coef"):
        assert on[name].tolist() == [name in c for c in configs]


def test_fit_gp_with_the_arc_kernel_keeps_the_priors() -> None:
    space = svm()
    U = points(25, 4).numpy()
    y = np.sin(3 * U.sum(1))
    for priors in ("botorch", "optuna"):
        plain = fit_gp(U, y, kernel="rbf", priors=priors, fit=False)
        gp = fit_gp(
            U, y, kernel="rbf", priors=priors, arc=space, input_transform=space_rounding(space)
        )
        prior = [
            p for n, _, p, _, _ in plain.model.covar_module.named_priors() if "lengthscale" in n
        ]
        arc = [p for n, _, p, _, _ in gp.model.covar_module.named_priors() if "lengthscale" in n]
        assert len(arc) == 1 and type(arc[0]) is type(prior[0])
        assert np.all(np.isfinite(gp.posterior(U)[0]))
        with pytest.raises(ValueError, match="gradient_posterior needs the stationary"):
            gp.gradient_posterior(U[0])  # its derivatives are not the ARD kernel's
    with pytest.raises(ValueError, match="learns its lengthscales"):
        fit_gp(U, y, arc=space, lengthscale=0.5)
    with pytest.raises(ValueError, match="needs an isoline.Space with conditions"):
        fit_gp(U[:, :4], y, arc=Space({k: svm().params[k] for k in ("kernel", "c")}))


def test_gp_ei_with_the_arc_kernel_runs_and_repeats_with_its_seed() -> None:
    cheap = {"num_restarts": 2, "raw_samples": 64, "acq_maxiter": 30, "fit_ftol": 1e-6}
    runs = [
        iso.minimize(
            conditional_bowl,
            svm(),
            "gp-ei",
            budget=8,
            seed=5,
            n_init=5,
            inactive="arc",
            kernel="rbf",
            priors="botorch",
            **cheap,
        )  # fmt: skip
        for _ in range(2)
    ]
    assert runs[0].n_failed == 0 and len(runs[0].x_iters) == 8
    assert runs[0].x_iters == runs[1].x_iters


def test_gp_ei_refuses_the_arc_kernel_without_conditions() -> None:
    flat = Space({"C": Real(1e-3, 1e3, log=True), "k": Categorical(["a", "b"])})
    with pytest.raises(ValueError, match="inactive='arc' needs a space with conditions"):
        iso.minimize(lambda c: 0.0, flat, "gp-ei", budget=3, inactive="arc")
    with pytest.raises(ValueError, match="inactive"):
        iso.minimize(conditional_bowl, svm(), "gp-ei", budget=3, inactive="zero")


def test_gp_ei_fits_the_arc_kernel_only_when_asked() -> None:
    space = svm()
    U = points(8, 6).numpy()
    y = np.array([conditional_bowl(c) for c in space.decode(U)])
    for inactive, cls in (("arc", ArcKernel), ("impute", RBFKernel)):
        m = make_method("gp-ei", space.dim, space=space, inactive=inactive, kernel="rbf",
                        priors="botorch", seed=0)  # fmt: skip
        m.tell(U, y)
        gp, _ = m._fit()
        assert type(gp.model.covar_module) is cls
