"""The GP-sampled objective (DESIGN.md §4.2)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from isoline import problems
from isoline.problems.gp_sample import lengthscale_range


@pytest.mark.parametrize("dim,lo,hi", [(25, 0.52, 0.97), (50, 0.74, 1.37), (100, 1.05, 1.95)])
def test_lengthscale_ranges_match_the_papers(dim: int, lo: float, hi: float) -> None:
    a, b = lengthscale_range(dim)
    assert a == pytest.approx(lo, abs=0.006) and b == pytest.approx(hi, abs=0.006)


def test_interpolating_draw_is_seeded_and_interpolates_the_sample() -> None:
    p = problems.get("gp-sample", dim=6, seed=2, variant="interpolating")
    q = problems.get("gp-sample", dim=6, seed=2, variant="interpolating")
    r = problems.get("gp-sample", dim=6, seed=3, variant="interpolating")
    assert not np.array_equal(p.lengthscales, r.lengthscales)
    X = np.random.default_rng(0).random((20, 6))
    np.testing.assert_array_equal(p.evaluate_batch(X), q.evaluate_batch(X))
    assert not np.allclose(p.evaluate_batch(X), r.evaluate_batch(X))
    a, b = lengthscale_range(6)
    assert np.all((p.lengthscales >= a) & (p.lengthscales <= b))
    # unscrambled Sobol design: first point is the origin
    assert p.train_x.shape == (1000, 6) and np.all(p.train_x[0] == 0)
    # the posterior mean (tiny conditioning noise) reproduces the draw at the design
    np.testing.assert_allclose(p.evaluate_batch(p.train_x[:50]), p.train_y[:50], atol=5e-3)
    # a unit-variance GP draw
    assert 0.5 < p.train_y.std() < 1.5


def test_reference_variant_smooths_the_draw_and_shares_lengthscales_per_dimension() -> None:
    p = problems.get("gp-sample", dim=6, seed=2)
    r = problems.get("gp-sample", dim=6, seed=3)
    assert p.variant == "reference"
    np.testing.assert_array_equal(p.lengthscales, r.lengthscales)
    assert not np.array_equal(p.train_y, r.train_y)
    other_d = problems.get("gp-sample", dim=7, seed=2)
    assert not np.allclose(other_d.lengthscales[:6], p.lengthscales)
    # GPyTorch's default noise (ln 2) shrinks the mean towards 0: lower amplitude than the draw
    mean = p.evaluate_batch(p.train_x)
    assert 0.3 < mean.std() / p.train_y.std() < 0.95
    assert np.abs(mean - p.train_y).max() > 0.1


def test_default_noise_is_0_1_and_reports_noise_free() -> None:
    p = problems.get("gp-sample", dim=4, seed=0)
    assert p.noise_std == 0.1
    x = np.full(4, 0.5)
    y, info = p(x)
    assert info["noise_free"] == p.noise_free(x) and y != info["noise_free"]


def test_mean_is_differentiable_and_gradient_is_right() -> None:
    p = problems.get("gp-sample", dim=5, seed=1, noise_std=0.0)
    x = torch.full((5,), 0.4, dtype=torch.float64, requires_grad=True)
    p.mean(x).backward()
    g = x.grad.numpy()
    h = 1e-6
    x0 = np.full(5, 0.4)
    fd = [(p.noise_free(x0 + h * e) - p.noise_free(x0 - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


def test_optimum_is_below_every_sampled_point() -> None:
    p = problems.get("gp-sample", dim=8, seed=0, noise_std=0.0)
    f_star, x_star = p.optimum, p.optimum_x
    assert p.noise_free(x_star) == pytest.approx(f_star)
    X = np.random.default_rng(1).random((5000, 8))
    assert f_star <= p.evaluate_batch(X).min()
    assert f_star <= p.evaluate_batch(p.train_x).min()


def test_pickles() -> None:
    p = problems.get("gp-sample", dim=3, seed=5)
    q = pickle.loads(pickle.dumps(p))
    x = np.array([0.2, 0.7, 0.1])
    assert q.noise_free(x) == p.noise_free(x)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="n_points"):
        problems.get("gp-sample", dim=3, n_points=1)
    with pytest.raises(ValueError, match="posterior_noise"):
        problems.get("gp-sample", dim=3, posterior_noise=0.0)
    with pytest.raises(
        ValueError, match=r"variant must be one of \['interpolating', 'reference'\]"
    ):
        problems.get("gp-sample", dim=3, variant="smooth")


def test_instance_and_values_do_not_depend_on_the_callers_thread_count() -> None:
    """A Cholesky factor of a large kernel matrix differs in its last bits between one and
    two threads; a trust-region method fed those bits can take another path, so a run with
    one benchmark worker (the caller's threads) must see the same objective as with two."""
    old = torch.get_num_threads()
    x = np.full(50, 0.5)
    out = []
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            p = problems.get("gp-sample", dim=50, variant="interpolating", seed=0)
            out.append((p.train_y, p.noise_free(x), p.optimum))
    finally:
        torch.set_num_threads(old)
    (y1, f1, o1), (y2, f2, o2) = out
    assert np.array_equal(y1, y2) and f1 == f2 and o1 == o2
