"""Tests of the shared GP layer (isoline.models.gp)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from gpytorch.kernels import MaternKernel, ScaleKernel
from gpytorch.mlls import ExactMarginalLogLikelihood

import isoline.models.gp as gpmod
import isoline.models.gp_fit as gp_fit
import isoline.models.linalg as linalg
from isoline.models.gp import GPFitError, fit_gp
from isoline.models.kernels import InverseSquaredLengthscalePrior


def _kernel(kind: str, A: np.ndarray, B: np.ndarray, ls: float, var: float) -> np.ndarray:
    r = np.sqrt((((A[:, None, :] - B[None, :, :]) / ls) ** 2).sum(-1))
    if kind == "rbf":
        return var * np.exp(-0.5 * r**2)
    s5 = np.sqrt(5.0) * r
    return var * (1.0 + s5 + s5**2 / 3.0) * np.exp(-s5)


def _data(n: int = 25, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, np.sin(5 * X).sum(1) + 0.3 * X[:, 0] ** 2


@pytest.mark.parametrize("kind", ["rbf", "matern52"])
def test_posterior_matches_closed_form(kind: str) -> None:
    """Fixed hyperparameters (in y units) give the textbook posterior, R&W eq. 2.23-2.24."""
    rng = np.random.default_rng(1)
    X, Xs = rng.random((5, 2)), rng.random((4, 2))
    y = 40.0 + 7.0 * rng.standard_normal(5)
    ls, var, noise = 0.4, 30.0, 0.5
    gp = fit_gp(
        X, y, kernel=kind, lengthscale=ls, outputscale=var, noise=noise, mean="zero", fit=False
    )
    K = _kernel(kind, X, X, ls, var) + noise * np.eye(5)
    Ks = _kernel(kind, Xs, X, ls, var)
    m0 = y.mean()  # zero mean on standardized outputs = mean of y
    mean = m0 + Ks @ np.linalg.solve(K, y - m0)
    cov = _kernel(kind, Xs, Xs, ls, var) - Ks @ np.linalg.solve(K, Ks.T)
    mu, v = gp.posterior(Xs)
    np.testing.assert_allclose(mu, mean, rtol=1e-8)
    np.testing.assert_allclose(v, np.diag(cov), rtol=1e-7)
    np.testing.assert_allclose(gp.covariance(Xs), cov, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(
        gp.posterior(Xs, observation_noise=True)[1], np.diag(cov) + noise, rtol=1e-7
    )
    assert gp.noise == pytest.approx(noise) and gp.outputscale == pytest.approx(var)
    np.testing.assert_allclose(gp.lengthscales, [ls, ls])


@pytest.mark.parametrize("kind", ["rbf", "matern52"])
def test_gradient_posterior_matches_finite_differences(kind: str) -> None:
    X, y = _data()
    gp = fit_gp(X, y, kernel=kind)
    for x in (np.array([0.3, 0.55, 0.7]), X[4].copy()):  # also exactly at a data point
        g_mean, g_cov = gp.gradient_posterior(x)
        h = 1e-5
        fd = np.array(
            [
                (gp.posterior(x + h * e)[0] - gp.posterior(x - h * e)[0])[0] / (2 * h)
                for e in np.eye(3)
            ]
        )
        np.testing.assert_allclose(g_mean, fd, rtol=1e-5, atol=1e-6)
        # Cov(df/dx_i, df/dx_j) = d^2 k_n(x, x') / dx_i dx'_j by central differences
        h = 1e-3
        P = np.vstack([x + h * e for e in np.eye(3)] + [x - h * e for e in np.eye(3)])
        C = gp.covariance(P)
        fd_cov = (C[:3, :3] - C[:3, 3:] - C[3:, :3] + C[3:, 3:]) / (4 * h * h)
        scale = np.abs(g_cov).max()
        np.testing.assert_allclose(g_cov, fd_cov, atol=2e-3 * scale)
        assert np.all(np.linalg.eigvalsh(g_cov) > -1e-9 * scale)


def test_gradient_prior_far_from_data_is_kernel_curvature() -> None:
    """With one far-away datum the gradient covariance is ~ c * var / l^2 (c=5/3 Matern)."""
    gp = fit_gp(
        np.zeros((1, 2)),
        np.array([1.0]),
        kernel="matern52",
        lengthscale=[0.05, 0.1],
        outputscale=2.0,
        noise=1e-3,
        fit=False,
    )
    _, cov = gp.gradient_posterior(np.array([0.9, 0.9]))
    np.testing.assert_allclose(
        cov, np.diag([5 / 3 * 2 / 0.05**2, 5 / 3 * 2 / 0.1**2]), rtol=1e-9, atol=1e-12
    )


def test_condition_on_hallucinated_points_shrinks_only_the_covariance() -> None:
    X, y = _data(12, 2)
    gp = fit_gp(X, y)
    Z = np.array([[0.2, 0.8], [0.6, 0.1]])
    T = np.array([[0.25, 0.75], [0.5, 0.5], [0.9, 0.9]])
    gz = gp.condition_on(Z, gp.posterior(Z)[0])
    np.testing.assert_allclose(gz.posterior(T)[0], gp.posterior(T)[0], rtol=1e-6, atol=1e-8)
    A = gp.covariance(np.vstack([T, Z]))
    Ktt, Ktz, Kzz = A[:3, :3], A[:3, 3:], A[3:, 3:] + gp.noise * np.eye(2)
    expected = Ktt - Ktz @ np.linalg.solve(Kzz, Ktz.T)
    np.testing.assert_allclose(gz.covariance(T), expected, rtol=1e-6, atol=1e-10)
    assert gz.posterior(Z)[1].max() < gp.posterior(Z)[1].min()


@pytest.mark.parametrize(
    "case",
    ["one_point", "two_points", "duplicates", "constant", "huge", "tiny_spread", "noisefree_dups"],
)
def test_robust_fits_give_finite_posteriors(case: str) -> None:
    X, y = _data(15, 2)
    kw: dict = {}
    if case == "one_point":
        X, y = X[:1], y[:1]
    elif case == "two_points":
        X, y = X[:2], y[:2]
    elif case == "duplicates":
        X, y = np.vstack([X, X, X[:3]]), np.concatenate([y, y + 0.01, y[:3]])
    elif case == "constant":
        y = np.full(len(y), 3.5)
    elif case == "huge":
        y = 1e12 * y
    elif case == "tiny_spread":
        y = 5.0 + 1e-10 * y
    elif case == "noisefree_dups":
        X, y = np.vstack([X, X]), np.concatenate([y, y])
        kw = dict(noise=0.0, lengthscale=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no fallback needed here
        gp = fit_gp(X, y, **kw)
    T = np.vstack([X[:2], [[0.5, 0.5]]])
    m, v = gp.posterior(T)
    assert np.all(np.isfinite(m)) and np.all(np.isfinite(v)) and np.all(v >= 0)
    gm, gc = gp.gradient_posterior(np.array([0.4, 0.6]))
    assert np.all(np.isfinite(gm)) and np.all(np.isfinite(gc))
    if case in ("constant",):
        np.testing.assert_allclose(m, 3.5, rtol=1e-9)
    if case in ("huge", "tiny_spread", "two_points"):
        # the model interpolates (nearly) at data on any y scale
        spread = y.std() if len(y) > 1 else 1.0
        assert np.all(np.abs(m[:2] - y[:2]) < 0.2 * spread)


def test_failed_fit_falls_back_to_starting_hyperparameters(monkeypatch) -> None:
    from botorch.exceptions.errors import ModelFittingError

    def broken(mll, **kw):
        with __import__("torch").no_grad():
            mll.model.covar_module.raw_lengthscale.fill_(float("nan"))
        raise ModelFittingError("All attempts to fit the model have failed.")

    X, y = _data(10, 2)
    default = fit_gp(X, y, fit=False).lengthscales
    monkeypatch.setattr(gp_fit, "fit_gpytorch_mll", broken)
    with pytest.warns(RuntimeWarning, match="fit failed"):
        gp = fit_gp(X, y)
    np.testing.assert_allclose(gp.lengthscales, default)
    assert np.all(np.isfinite(gp.posterior(X)[0]))


def test_unusable_model_raises_clear_error(monkeypatch) -> None:
    monkeypatch.setattr(linalg, "JITTERS", (0.0,))
    X = np.vstack([np.full((3, 2), 0.5)])
    with pytest.raises(GPFitError, match="positive definite"):
        # exactly repeated points, no noise, huge lengthscale: K is singular
        fit_gp(
            X, np.array([1.0, 1.0, 1.0]), noise=0.0, lengthscale=1e3, outputscale=1e16, fit=False
        )


def test_warm_start_state_roundtrip() -> None:
    X, y = _data(20, 3)
    gp = fit_gp(X, y)
    again = fit_gp(X, y, init=gp.state(), fit=False)
    np.testing.assert_allclose(again.lengthscales, gp.lengthscales)
    np.testing.assert_allclose(again.posterior(X[:3])[0], gp.posterior(X[:3])[0])


def _neg_mll(gp: gpmod.GP) -> float:
    import torch
    from gpytorch.mlls import ExactMarginalLogLikelihood

    model = gp.model
    model.train()
    with torch.no_grad():
        out = model(*model.train_inputs)
        value = -float(
            ExactMarginalLogLikelihood(model.likelihood, model)(out, model.train_targets)
        )
    model.eval()
    return value


@pytest.mark.parametrize("kind", ["rbf", "matern52"])
def test_log_params_reach_the_same_optimum_with_the_same_bounds(kind: str) -> None:
    X, y = _data(30, 4)
    raw, logged = fit_gp(X, y, kernel=kind), fit_gp(X, y, kernel=kind, log_params=True)
    assert _neg_mll(logged) == pytest.approx(_neg_mll(raw), abs=1e-3)
    np.testing.assert_allclose(logged.lengthscales, raw.lengthscales, rtol=0.05)
    lik = logged.model.likelihood.noise_covar
    assert float(lik.raw_noise_constraint.lower_bound) == pytest.approx(1e-4)
    # the prior mode is the starting point, as without the transform
    unfitted = fit_gp(X, y, kernel=kind, log_params=True, fit=False)
    np.testing.assert_allclose(
        unfitted.lengthscales, fit_gp(X, y, kernel=kind, fit=False).lengthscales
    )
    # a warm start from a log-space fit reproduces it
    again = fit_gp(X, y, kernel=kind, log_params=True, init=logged.state(), fit=False)
    np.testing.assert_allclose(again.lengthscales, logged.lengthscales)


def test_optuna_priors_are_optunas_map_objective() -> None:
    X, y = _data(25, 3)
    gp = fit_gp(X, y, kernel="matern52", priors="optuna")
    k = gp.model.covar_module
    assert isinstance(k, ScaleKernel) and isinstance(k.base_kernel, MaternKernel)
    prior = k.base_kernel.lengthscale_prior
    assert isinstance(prior, InverseSquaredLengthscalePrior)
    ls = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    lam = ls**-2
    np.testing.assert_allclose(prior.log_prob(ls).numpy(), (-(0.1 / lam + 0.1 * lam)).numpy())
    assert int(torch.argmax(prior.log_prob(torch.linspace(0.2, 5, 49)))) == 8  # l = 1
    assert float(gp.model.likelihood.noise_covar.raw_noise_constraint.lower_bound) == pytest.approx(
        1e-6
    )
    # the fit is a MAP estimate: moving any hyperparameter lowers the objective
    mll = ExactMarginalLogLikelihood(gp.model.likelihood, gp.model)
    gp.model.train()
    with torch.no_grad():
        base = float(mll(gp.model(*gp.model.train_inputs), gp.model.train_targets))
        k.base_kernel.lengthscale = k.base_kernel.lengthscale * 1.2
        moved = float(mll(gp.model(*gp.model.train_inputs), gp.model.train_targets))
    assert moved < base


def test_optuna_priors_with_a_fixed_nugget_keep_it_and_learn_the_rest() -> None:
    X, y = _data(25, 3)
    nugget = 1e-6 * float(np.var(y))
    gp = fit_gp(X, y, kernel="matern52", noise=nugget, priors="optuna")
    k = gp.model.covar_module
    assert isinstance(k.base_kernel.lengthscale_prior, InverseSquaredLengthscalePrior)
    assert not gp.model.likelihood.noise_covar.raw_noise.requires_grad
    scale = float(gp.model.outcome_transform.stdvs.squeeze()) ** 2
    assert float(gp.model.likelihood.noise) * scale == pytest.approx(nugget, rel=1e-6)
    free = fit_gp(X, y, kernel="matern52", priors="optuna")
    assert float(free.model.likelihood.noise) > 10 * float(gp.model.likelihood.noise)
    assert not np.allclose(
        gp.lengthscales, fit_gp(X, y, kernel="matern52", noise=nugget).lengthscales
    )


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(priors="gpytorch"), ValueError, "priors must be one of"),
        (dict(priors="optuna", log_params=True), ValueError, "priors='optuna'"),
        (dict(priors="optuna", outputscale=2.0), ValueError, "priors='optuna'"),
        (dict(log_params="yes"), TypeError, "log_params"),
        (dict(kernel="matern32"), ValueError, "kernel must be one of"),
        (dict(mean="linear"), ValueError, "mean must be one of"),
        (dict(noise=-1.0), ValueError, "noise"),
        (dict(noise="high"), TypeError, "noise"),
        (dict(outputscale=0.0), ValueError, "outputscale"),
        (dict(lengthscale=[0.1, 0.2]), ValueError, "lengthscale"),
        (dict(lengthscale=-0.1), ValueError, "lengthscale"),
        (dict(fit="yes"), TypeError, "fit"),
        (dict(init=[1, 2]), TypeError, "init"),
    ],
)
def test_bad_arguments(kwargs: dict, exc: type, match: str) -> None:
    X, y = _data(6, 3)
    with pytest.raises(exc, match=match):
        fit_gp(X, y, **kwargs)


def test_bad_data() -> None:
    X, y = _data(6, 2)
    with pytest.raises(ValueError, match="rows"):
        fit_gp(X, y[:5])
    with pytest.raises(ValueError, match="finite"):
        fit_gp(X, np.where(np.arange(6) == 2, np.nan, y))
    with pytest.raises(ValueError, match="non-empty"):
        fit_gp(np.empty((0, 2)), np.empty(0))
    gp = fit_gp(X, y)
    with pytest.raises(ValueError, match="shape"):
        gp.gradient_posterior(np.zeros(3))
    with pytest.raises(ValueError, match="columns"):
        gp.posterior(np.zeros((2, 3)))
