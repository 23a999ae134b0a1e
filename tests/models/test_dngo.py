"""DNGO surrogate (isoline.models.dngo): BLR evidence, fit quality, BoTorch posterior."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import torch
from scipy.stats import multivariate_normal

from isoline.models.dngo import DNGO, DTYPE, blr_log_marginal_likelihood


def test_blr_evidence_equals_gaussian_marginal() -> None:
    # y ~ N(0, Phi Phi^T / alpha + I / beta) when w ~ N(0, I / alpha)
    rng = np.random.default_rng(0)
    Phi, y = rng.standard_normal((12, 4)), rng.standard_normal(12)
    alpha, beta = 0.7, 3.0
    cov = Phi @ Phi.T / alpha + np.eye(12) / beta
    expected = multivariate_normal(np.zeros(12), cov).logpdf(y)
    got = blr_log_marginal_likelihood(
        torch.tensor(Phi),
        torch.tensor(y),
        torch.tensor(math.log(alpha), dtype=DTYPE),
        torch.tensor(-math.log(beta), dtype=DTYPE),
    )
    assert float(got) == pytest.approx(expected, rel=1e-10)


@pytest.fixture(scope="module")
def fitted() -> tuple[DNGO, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    X = rng.random((30, 1))
    y = np.sin(6 * X[:, 0]) + 0.01 * rng.standard_normal(30)
    model = DNGO(X, y, epochs=300, generator=torch.Generator().manual_seed(0))
    return model, X, y


def test_dngo_fits_a_smooth_function(fitted) -> None:
    model, X, y = fitted
    assert model.train_losses[-1] < 0.1 * model.train_losses[0]
    Xt = np.linspace(0.05, 0.95, 50)[:, None]
    mean, var = model.predict(Xt)
    assert np.sqrt(np.mean((mean - np.sin(6 * Xt[:, 0])) ** 2)) < 0.15
    assert np.all(var > 0)
    # evidence maximization found a small noise for nearly noise-free data
    assert math.exp(model.log_noise) < 0.05
    assert -10 <= model.log_alpha <= 10


def test_botorch_posterior_shapes_and_consistency(fitted) -> None:
    model, _, _ = fitted
    X = torch.rand(4, 3, 1, dtype=DTYPE, generator=torch.Generator().manual_seed(0))
    post = model.posterior(X)
    assert post.mean.shape == (4, 3, 1) and post.variance.shape == (4, 3, 1)
    cov = post.distribution.covariance_matrix
    assert cov.shape == (4, 3, 3)
    assert torch.all(torch.linalg.eigvalsh(cov) > 0)
    mean, var = model.predict(X[0].numpy())
    np.testing.assert_allclose(post.mean[0, :, 0].detach().numpy(), mean, rtol=1e-10)
    # the posterior adds a 1e-10 (standardized units) jitter to its covariance
    np.testing.assert_allclose(post.variance[0, :, 0].detach().numpy(), var, rtol=1e-6, atol=1e-9)
    noisy = model.posterior(X, observation_noise=True).variance
    assert torch.all(noisy > post.variance)


def test_same_generator_same_model_and_picklable(fitted) -> None:
    model, X, y = fitted
    again = DNGO(X, y, epochs=300, generator=torch.Generator().manual_seed(0))
    Xt = np.linspace(0, 1, 7)[:, None]
    np.testing.assert_array_equal(again.predict(Xt)[0], model.predict(Xt)[0])
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.predict(Xt)[0], model.predict(Xt)[0])
