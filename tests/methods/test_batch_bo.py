"""BKOP, GP-BUCB, GP-UCB-PE and Bull's non-adaptive batch (BKOP paper §5-6, §9-10)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import isoline as iso
from isoline.designs import sobol
from isoline.methods.bkop import BKOP, BatchKernelAcquisition, cma_maximize
from isoline.methods.bull import Bull
from isoline.methods.gp_bucb import GPBUCB, HallucinatedUCB
from isoline.methods.gp_ucb_pe import GPUCBPE, LowerBound
from isoline.threads import single_threaded

D = 3


def bowl(U: np.ndarray) -> np.ndarray:
    """A smooth function of unit-cube points with its minimum 0 at 0.3."""
    return np.sum((np.atleast_2d(U) - 0.3) ** 2, axis=1)


def told(cls: type, n: int = 15, seed: int = 0, **kw: object):
    """A method of ``cls`` told ``n`` uniform points of :func:`bowl`."""
    m = cls(D, seed=seed, n_init=0, **kw)
    U = np.random.default_rng(seed).random((n, D))
    m.tell(U, bowl(U))
    return m


# -- the BKOP acquisition (Algorithm 2/4) --------------------------------------------------
def test_batch_acquisition_matches_the_formula_on_the_gp_covariance() -> None:
    m = told(BKOP)
    gp = m.fit()
    acqf = BatchKernelAcquisition(gp.model, weight=0.7)
    X = np.random.default_rng(1).random((4, D))
    C = gp.covariance(X)
    mean, _ = gp.posterior(X)
    L = len(X)
    expected = -mean.mean() + 0.7 * (2 * np.sqrt(np.trace(C) / L) - np.sqrt(C.sum()) / L)
    got = float(acqf(torch.as_tensor(X)[None]))
    assert got == pytest.approx(expected, rel=1e-6)


def test_batch_acquisition_of_one_point_is_mean_minus_weighted_sigma() -> None:
    gp = told(BKOP).fit()
    x = np.array([[0.9, 0.1, 0.5]])
    mean, var = gp.posterior(x)
    got = float(BatchKernelAcquisition(gp.model, 2.0)(torch.as_tensor(x)[None]))
    assert got == pytest.approx(-mean[0] + 2.0 * np.sqrt(var[0]), rel=1e-6)


def test_batch_acquisition_rewards_spread_over_repeats() -> None:
    gp = told(BKOP).fit()
    acqf = BatchKernelAcquisition(gp.model, 1.0)
    x = np.array([0.9, 0.9, 0.9])
    same = np.repeat(x[None], 3, axis=0)
    spread = np.array([x, [0.9, 0.1, 0.9], [0.1, 0.9, 0.9]])
    with torch.no_grad():
        v_same, v_spread = (float(acqf(torch.as_tensor(Z)[None])) for Z in (same, spread))
    _, var = gp.posterior(x[None])
    mean_same = gp.posterior(same)[0].mean()
    # identical points: the bracket collapses to one sigma (paper §5.2)
    assert v_same == pytest.approx(-mean_same + np.sqrt(var[0]), rel=1e-5)
    assert v_spread > v_same


@pytest.mark.parametrize("optimizer", ["gradient", "cma"])
def test_bkop_batch_beats_random_batches_on_its_acquisition(optimizer: str) -> None:
    m = told(BKOP, batch_size=4, optimizer=optimizer, max_evals=3000)
    with m.torch_rng(), single_threaded():
        gp = m.fit()
        X, v = m.optimize(m.acquisition(gp), 4)
        acqf = m.acquisition(gp)
        with torch.no_grad():
            v_X = float(acqf(torch.as_tensor(X)[None]))
            rand = acqf(torch.rand(2000, 4, D, dtype=torch.float64)).max()
    assert v == pytest.approx(v_X, rel=1e-9)
    assert v_X > float(rand)
    assert len({tuple(np.round(x, 9)) for x in X}) == 4


def test_cma_maximize_finds_a_known_batch_optimum() -> None:
    from botorch.acquisition import AcquisitionFunction

    target = torch.tensor([[0.2, 0.7], [0.9, 0.4]], dtype=torch.float64)

    class Neg(AcquisitionFunction):
        def forward(self, X: torch.Tensor) -> torch.Tensor:
            return -((X - target) ** 2).sum(dim=(-2, -1))

    acqf = Neg(told(BKOP).fit().model)
    X, v = cma_maximize(acqf, 2, 2, np.random.default_rng(0), max_evals=4000)
    np.testing.assert_allclose(X, target.numpy(), atol=1e-4)
    assert v == pytest.approx(0.0, abs=1e-7)


def test_bkop_same_seed_same_batch_and_lattice_default_init() -> None:
    from isoline.designs.lattice import lattice_design

    a, b = (BKOP(D, seed=5, batch_size=3, n_init=6) for _ in range(2))
    np.testing.assert_array_equal(a._init_points, lattice_design(6, D, seed=5))
    for m in (a, b):
        for _ in range(2):
            U = m.ask()
            m.tell(U, bowl(U))
    np.testing.assert_array_equal(a.ask(), b.ask())


def test_bkop_moves_towards_the_minimum() -> None:
    """Three BKOP batches improve on the best of 15 random points on a smooth bowl."""
    for seed in range(2):
        m = told(BKOP, seed=seed, batch_size=4)
        start = np.min(m.y)
        for _ in range(3):
            U = m.ask()
            m.tell(U, bowl(U))
        assert np.min(m.y) < 0.25 * start


def test_perturbation_setting_learns_noise_and_noise_free_interpolates() -> None:
    rng = np.random.default_rng(0)
    U = rng.random((30, D))
    y = bowl(U) + 0.05 * rng.standard_normal(30)
    free, pert = BKOP(D, n_init=0), BKOP(D, n_init=0, setting="perturbation")
    for m in (free, pert):
        m.tell(U, y)
    with free.torch_rng():
        g_free = free.fit()
    with pert.torch_rng():
        g_pert = pert.fit()
    assert g_free.noise == pytest.approx(1e-6 * np.var(y), rel=1e-3)
    assert g_pert.noise > 100 * g_free.noise
    fixed = BKOP(D, n_init=0, setting="perturbation", noise=0.01)
    fixed.tell(U, y)
    assert fixed.fit().noise == pytest.approx(0.01, rel=1e-3)
    np.testing.assert_allclose(g_free.posterior(U)[0], y, atol=1e-3)


def test_optuna_priors_change_the_gp_and_keep_the_noise_free_nugget() -> None:
    rng = np.random.default_rng(1)
    U = rng.random((20, D))
    y = bowl(U)
    fits = {}
    for priors in ("botorch", "optuna"):
        m = BKOP(D, n_init=0, priors=priors, seed=0)
        m.tell(U, y)
        with m.torch_rng():
            fits[priors] = m.fit()
    assert fits["optuna"].noise == pytest.approx(1e-6 * np.var(y), rel=1e-3)
    assert not np.allclose(fits["optuna"].lengthscales, fits["botorch"].lengthscales)
    batches = []
    for priors in ("botorch", "optuna"):
        m = BKOP(D, n_init=0, priors=priors, seed=0, batch_size=3)
        m.tell(U, y)
        batches.append(m.ask())
    assert not np.allclose(*batches)


@pytest.mark.parametrize(
    "cls,kw,match",
    [
        (BKOP, {"setting": "noisy"}, "setting must be one of"),
        (BKOP, {"noise": 0.1}, "noise is only used with setting='perturbation'"),
        (BKOP, {"setting": "perturbation", "noise": -1.0}, "noise must be"),
        (BKOP, {"optimizer": "adam"}, "optimizer must be one of"),
        (BKOP, {"kernel": "cubic"}, "kernel must be one of"),
        (BKOP, {"priors": "sklearn"}, "priors must be one of"),
        (BKOP, {"weight": -1.0}, "weight must be"),
        (BKOP, {"max_evals": 0}, "max_evals must be"),
        (GPBUCB, {"beta": "huge"}, "beta must be"),
        (GPBUCB, {"delta": 1.5}, "delta must be"),
        (GPUCBPE, {"region_width": 0.0}, "region_width must be"),
        (Bull, {"period": 1}, "period must be"),
    ],
)
def test_bad_options_are_named(cls: type, kw: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        cls(D, **kw)


def test_batch_size_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        iso.Optimizer(iso.Box([0.0] * D, [1.0] * D), "bkop", batch_size=0)


# -- GP-BUCB -----------------------------------------------------------------------------
def test_gp_bucb_hallucination_keeps_the_mean_and_shrinks_the_variance() -> None:
    m = told(GPBUCB)
    gp = m.fit()
    P = np.array([[0.8, 0.8, 0.8]])
    fake = gp.condition_on(P, gp.posterior(P)[0])
    acqf = HallucinatedUCB(gp.model, fake.model, beta=4.0)
    Z = np.random.default_rng(2).random((50, D))
    with torch.no_grad():
        got = acqf(torch.as_tensor(Z)[:, None]).numpy()
    mean, _ = gp.posterior(Z)
    _, var_h = fake.posterior(Z)
    np.testing.assert_allclose(got, -mean + 2.0 * np.sqrt(var_h), rtol=1e-6, atol=1e-9)
    assert fake.posterior(P)[1][0] < 1e-3 * gp.posterior(P)[1][0]


def test_gp_bucb_batch_points_differ_and_the_first_is_the_ucb_point() -> None:
    m = told(GPBUCB, batch_size=3, beta=4.0)
    X = m.ask()
    assert len({tuple(np.round(x, 6)) for x in X}) == 3
    gp = m.fit()
    acqf = HallucinatedUCB(gp.model, gp.model, beta=4.0)
    with torch.no_grad():
        first = float(acqf(torch.as_tensor(X[:1])[None]))
        rand = float(acqf(torch.rand(4000, 1, D, dtype=torch.float64)).max())
    assert first >= rand


# -- GP-UCB-PE ---------------------------------------------------------------------------
def test_gp_ucb_pe_exploration_points_lie_in_the_relevant_region() -> None:
    beta = 4.0
    m = told(GPUCBPE, batch_size=4, beta=beta)
    X = m.ask()
    gp = m.fit()
    mean, var = gp.posterior(X)
    lcb_wide = mean - 2.0 * np.sqrt(beta) * np.sqrt(var)
    # u* = min UCB: no point of a dense random set can have a lower UCB than u* - tol
    Z = np.vstack([np.random.default_rng(3).random((4000, D)), m.X])
    mz, vz = gp.posterior(Z)
    u_star_upper = np.min(mz + np.sqrt(beta) * np.sqrt(vz))
    assert np.all(lcb_wide[1:] <= u_star_upper + 1e-9)
    assert len({tuple(np.round(x, 6)) for x in X}) == 4
    with torch.no_grad():
        lower = LowerBound(gp.model, beta)(torch.as_tensor(Z[:100])[:, None]).numpy()
    np.testing.assert_allclose(lower, -(mz[:100] + np.sqrt(beta) * np.sqrt(vz[:100])), rtol=1e-6)


# -- Bull --------------------------------------------------------------------------------
def test_bull_batches_are_fixed_design_points_plus_one_mean_minimizer() -> None:
    m = told(Bull, batch_size=4, seed=2)
    design = sobol(20, D, seed=2)
    X1 = m.ask()
    m.tell(X1, bowl(X1))
    X2 = m.ask()
    np.testing.assert_array_equal(X1[:3], design[:3])
    np.testing.assert_array_equal(X2[:3], design[3:6])
    # the last point of a batch minimizes the posterior mean (kernel interpolant)
    gp = m.fit()
    mean_last = gp.posterior(X2[3:])[0][0]
    Z = np.vstack([np.random.default_rng(0).random((3000, D)), m.X])
    assert mean_last <= gp.posterior(Z)[0].min() + 1e-6


def test_bull_sequential_alternates_design_and_exploitation() -> None:
    m = told(Bull, seed=1)
    assert m.period == 2
    X = []
    for _ in range(4):
        U = m.ask()
        m.tell(U, bowl(U))
        X.append(U[0])
    design = sobol(2, D, seed=1)
    np.testing.assert_array_equal(X[0], design[0])
    np.testing.assert_array_equal(X[2], design[1])
