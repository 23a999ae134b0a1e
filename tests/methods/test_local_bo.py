"""Tests of the local BO methods: gibo, mpd, minucb, la-minucb, turbo (and methods/local.py).

The acquisition functions are checked against independent computations through the
shared GP layer (conditioning, gradient posterior) and BoTorch's ``fantasize``.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
import torch
from botorch.sampling.normal import SobolQMCNormalSampler

import isoline as iso
from isoline.methods.registry import make_method
from isoline.methods.ucb_move import NegUCB
from isoline.models.derivatives import GradientPosterior, JointPosterior
from isoline.models.gp import fit_gp

local = importlib.import_module("isoline.methods.local")
mpd = importlib.import_module("isoline.methods.mpd")
la = importlib.import_module("isoline.methods.la_minucb")

LOCAL = ["gibo", "mpd", "minucb", "la-minucb"]
FIXED = dict(lengthscale=0.3, outputscale=1.0, noise=0.01)


def toy_gp(kernel: str = "rbf", fixed: bool = True, n: int = 25, d: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.sin(3 * X).sum(1) * 2 + 1
    kw = dict(FIXED, mean="zero") if fixed else {}
    return fit_gp(X, y, kernel=kernel, **kw), rng


def bowl(X: np.ndarray) -> np.ndarray:
    """Smooth bowl with minimum 0 at 0.3 in every coordinate."""
    return ((np.atleast_2d(X) - 0.3) ** 2).sum(-1)


# -- shared GP machinery -------------------------------------------------------------------
@pytest.mark.parametrize("kernel", ["rbf", "matern52"])
@pytest.mark.parametrize("fixed", [True, False])
def test_fast_posteriors_match_gp_layer(kernel: str, fixed: bool) -> None:
    gp, rng = toy_gp(kernel, fixed)
    x = rng.random(3)
    m1, S1 = gp.gradient_posterior(x)
    m2, S2 = GradientPosterior(gp.model)(x)
    np.testing.assert_allclose(m2, m1, atol=1e-10)
    np.testing.assert_allclose(S2, S1, atol=1e-10)
    P = torch.as_tensor(rng.random((2, 5, 3)))
    post = gp.model.posterior(P)
    mean, cov = JointPosterior(gp.model)(P)
    torch.testing.assert_close(mean, post.mean.squeeze(-1), atol=1e-10, rtol=0)
    torch.testing.assert_close(cov, post.distribution.covariance_matrix, atol=1e-10, rtol=0)


@pytest.mark.parametrize("kernel", ["rbf", "matern52"])
def test_gradient_information_is_trace_reduction(kernel: str) -> None:
    """alpha(z) = tr Sigma_grad(x | D) - tr Sigma_grad(x | D + z)  (MinUCB eq. (5))."""
    gp, rng = toy_gp(kernel)
    x, Z = rng.random(3), rng.random((4, 3))
    acqf = local.GradientInformation(gp.model, x)
    vals = acqf(torch.as_tensor(Z).unsqueeze(1)).detach().numpy()
    before = np.trace(gp.gradient_posterior(x)[1])
    for z, v in zip(Z, vals):
        after = np.trace(
            gp.condition_on(z[None], gp.posterior(z[None])[0]).gradient_posterior(x)[1]
        )
        assert v == pytest.approx(before - after, rel=1e-6, abs=1e-9)


def test_descent_information_is_expected_quadratic_form() -> None:
    """MPD criterion = E[mu'^T Sigma'^-1 mu'] - mu^T Sigma^-1 mu after observing z."""
    gp, rng = toy_gp()
    x = rng.random(3)
    mu, S = gp.gradient_posterior(x)
    acqf = mpd.DescentInformation(gp.model, x, mu)
    for z in rng.random((3, 3)):
        g1 = gp.condition_on(z[None], gp.posterior(z[None])[0])
        S1 = g1.gradient_posterior(x)[1]
        A = S - S1  # = c c^T / s, the covariance of the updated gradient mean
        expected = mu @ np.linalg.solve(S1, mu) + np.trace(np.linalg.solve(S1, A))
        value = float(acqf(torch.as_tensor(z)[None, None]))
        assert value + mu @ np.linalg.solve(S, mu) == pytest.approx(expected, rel=1e-6)


def test_most_probable_descent_direction_and_probability() -> None:
    mu = np.array([1.0, 0.0])
    v, p = mpd.most_probable_descent(mu, np.eye(2))
    np.testing.assert_allclose(v, [-1.0, 0.0])
    assert p == pytest.approx(0.5 * (1 + math.erf(1 / math.sqrt(2))))
    # anisotropic: v* follows Sigma^-1 mu, not -mu, and beats -mu's descent probability
    mu, S = np.array([1.0, 1.0]), np.diag([0.01, 4.0])
    v, p = mpd.most_probable_descent(mu, S)
    w = np.linalg.solve(S, mu)
    np.testing.assert_allclose(v, -w / np.linalg.norm(w))
    g = -mu / np.linalg.norm(mu)
    p_grad = 0.5 * (1 + math.erf(-(g @ mu) / math.sqrt(g @ S @ g) / math.sqrt(2)))
    assert p > p_grad
    assert p == pytest.approx(0.5 * (1 + math.erf(math.sqrt(mu @ w) / math.sqrt(2))))


@pytest.mark.parametrize("fixed", [True, False])
def test_lookahead_ucb_equals_botorch_fantasize(fixed: bool) -> None:
    """One-shot value = mean over BoTorch fantasy models of -(mu_i + beta sigma_i)(x_i)."""
    gp, rng = toy_gp(fixed=fixed)
    F, n, beta = 5, 2, 3.0
    eps = torch.randn(F, n, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    acqf = la.LookaheadUCB(gp.model, beta, eps, gp.noise)
    X = torch.as_tensor(rng.random((1, n + F, 3)))
    sampler = SobolQMCNormalSampler(sample_shape=torch.Size([F]))
    Z = X[0, :n]
    sampler._construct_base_samples(gp.model.posterior(Z, observation_noise=True))
    sampler.base_samples = eps.reshape(sampler.base_samples.shape)
    fantasy = gp.model.fantasize(Z, sampler=sampler)
    post = fantasy.posterior(X[0, n:].unsqueeze(1))  # fantasy i at its own x_i
    ref = -(post.mean.reshape(-1) + beta * post.variance.reshape(-1).sqrt()).mean()
    assert float(acqf(X).detach()) == pytest.approx(float(ref.detach()), rel=1e-8)


# -- the methods -----------------------------------------------------------------------------
def test_gibo_iteration_structure_and_step() -> None:
    """One iteration = x_t + b samples in x_t +- delta, then x - lr l g/||g|| (Alg. 3)."""
    m = make_method("gibo", 4, seed=0, n_init=1, n_samples=5, delta=0.1, lr=0.3, **FIXED)
    X0 = m.ask()
    m.tell(X0, bowl(X0))
    X1 = np.vstack([m.ask() for _ in range(5)])  # x_1 was evaluated by the design
    assert np.all(np.abs(X1 - X0[0]) <= 0.1 + 1e-12) and len(np.unique(X1, axis=0)) == 5
    m.tell(X1, bowl(X1))
    gp = m.local.fit(m.X, m.y)
    g = gp.gradient_posterior(X0[0])[0]
    step = X0[0] - 0.3 * gp.lengthscales * g / np.linalg.norm(g)
    X2 = m.ask()  # next iteration starts by evaluating x_2
    np.testing.assert_allclose(X2[0], np.clip(step, 0, 1), atol=1e-12)
    assert bowl(X2)[0] < bowl(X0)[0]


def _ucb_is_minimal_at_center(m, X: np.ndarray, y: np.ndarray) -> None:
    """The move's UCB is no larger than the UCB at any point the move saw as data."""
    gp = m.local.fit(X, y)
    acqf = NegUCB(gp.model, m.beta)
    with torch.no_grad():
        at_center = float(acqf(torch.as_tensor(m.center)[None, None]))
        at_data = acqf(torch.as_tensor(X).unsqueeze(1)).numpy()
    assert at_center >= at_data.max() - 1e-9


def test_minucb_repeats_and_ucb_move() -> None:
    """Alg. 1: b1 evaluations of x_t and b2 samples, then x_{t+1} = argmin UCB."""
    m = make_method("minucb", 3, seed=1, n_init=1, b1=2, b2=3, **FIXED)
    X = m.ask()
    m.tell(X, bowl(X))
    first = [m.ask()[0] for _ in range(4)]  # x_1 counted once by the design: 1 + 3 more
    assert np.array_equal(first[0], X[0]) and m.iteration == 0
    m.tell(np.array(first), bowl(np.array(first)))
    nxt = np.vstack([m.ask() for _ in range(5)])  # iteration 1: 2 repeats + 3 samples
    assert m.iteration == 1
    np.testing.assert_array_equal(nxt[:2], [m.center, m.center])
    assert not np.any(np.all(nxt[2:] == m.center, axis=1))
    _ucb_is_minimal_at_center(m, m.X, m.y)


def test_la_minucb_alternates_lookahead_and_move() -> None:
    """Alg. 2: b look-ahead points, then the UCB move x_{t+1}, evaluated."""
    m = make_method("la-minucb", 3, seed=0, n_init=1, b=3, num_fantasies=4, **FIXED)
    for _ in range(1 + 3):  # x_1, then Z_1
        X = m.ask()
        m.tell(X, bowl(X))
    assert m.iteration == 0
    X = m.ask()  # the move x_2 = argmin UCB
    assert m.iteration == 1 and np.array_equal(X[0], m.center)
    _ucb_is_minimal_at_center(m, m.X, m.y)
    m.tell(X, bowl(X))


def test_la_minucb_batches_hold_move_and_lookahead() -> None:
    m = make_method("la-minucb", 3, seed=0, batch_size=3, n_init=3, b=2, num_fantasies=4, **FIXED)
    for _ in range(3):
        X = m.ask()
        assert X.shape == (3, 3) and len(np.unique(X, axis=0)) == 3
        m.tell(X, bowl(X))
    assert m.iteration >= 1
    assert any(np.array_equal(x, m.center) for x in m.X[-3:])


@pytest.mark.parametrize("name", LOCAL)
def test_local_methods_descend_on_bowl_in_6d(name: str) -> None:
    """From one Sobol start, 36 evaluations bring the value well below the start."""
    finals, starts = [], []
    for seed in (0,):
        m = make_method(name, 6, seed=seed, n_init=1, **FIXED)
        while len(m.y) < 36:
            X = m.ask()
            m.tell(X, bowl(X))
        starts.append(m.y[0])
        finals.append(m.best[1])
    assert all(f < 0.5 * s for f, s in zip(finals, starts)), (finals, starts)


def test_turbo_shrinks_and_restarts_on_a_flat_function() -> None:
    m = make_method("turbo", 2, seed=0, n_init=4, failure_tolerance=1, n_candidates=200)
    lengths, restarts = [], 0
    for _ in range(14):
        X = m.ask()
        m.tell(X, np.zeros(len(X)))  # never improves: every batch is a failure
        lengths.append(m.length)
        restarts = m.n_restarts
    assert restarts >= 1
    assert min(lengths) < 0.8 and lengths[-1] <= 0.8
    assert m._run_start > 0


def test_turbo_restart_design_does_not_count_as_failures() -> None:
    m = make_method("turbo", 2, seed=0, n_init=4, failure_tolerance=1, n_candidates=200)
    while m.n_restarts == 0:
        X = m.ask()
        m.tell(X, np.zeros(len(X)))
    design = list(m._queue)
    assert len(design) == 4
    for x in design:  # the new run's design: served first, no trust-region update
        X = m.ask()
        np.testing.assert_array_equal(X[0], x)
        m.tell(X, [1.0])
        assert m.length == m.length_init and m.n_failure == 0


@pytest.mark.parametrize("constrained", [False, True])
def test_turbo_passes_its_fit_options_to_every_gp_fit(
    monkeypatch: pytest.MonkeyPatch, constrained: bool
) -> None:
    turbo_module = importlib.import_module("isoline.methods.turbo")
    seen: list[tuple[object, object]] = []

    def recording_fit_gp(*args: object, **kwargs: object) -> object:
        seen.append((kwargs["ftol"], kwargs["log_params"]))
        return fit_gp(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(turbo_module, "fit_gp", recording_fit_gp)
    m = make_method("turbo", 2, seed=0, n_init=4, n_candidates=100, fit_ftol=1e-3,
                    log_params=True, n_constraints=int(constrained))  # fmt: skip
    rng = np.random.default_rng(0)
    for _ in range(6):
        X = m.ask()
        Y = rng.normal(size=(len(X), 1 + int(constrained)))
        m.tell(X, Y if constrained else Y[:, 0])
    assert seen and set(seen) == {(1e-3, True)}


def test_turbo_candidates_scale_with_the_dimension_up_to_5000() -> None:
    assert make_method("turbo", 14).n_candidates == 2800
    assert make_method("turbo", 14, candidates_per_dim=100).n_candidates == 1400
    assert make_method("turbo", 60, candidates_per_dim=100).n_candidates == 5000
    assert make_method("turbo", 14, candidates_per_dim=100, n_candidates=7).n_candidates == 7


def test_turbo_grows_on_success() -> None:
    m = make_method("turbo", 2, seed=0, n_init=4, success_tolerance=1, n_candidates=200)
    X = m.ask(4)
    m.tell(X, np.arange(4.0) + 10)
    X = m.ask()
    m.tell(X, [-1.0])  # a clear improvement: one success doubles L
    assert m.length == pytest.approx(1.6)


@pytest.mark.parametrize(
    "name,option,value",
    [
        ("minucb", "beta", 0.0),
        ("minucb", "beta", -1.0),
        ("la-minucb", "beta", 0.0),
        ("minucb", "b1", 0),
        ("minucb", "b2", 0),
        ("la-minucb", "b", 0),
        ("la-minucb", "num_fantasies", 0),
        ("gibo", "n_samples", 0),
        ("gibo", "delta", 0.0),
        ("gibo", "delta", 1.5),
        ("gibo", "lr", 0.0),
        ("mpd", "p_threshold", 0.5),
        ("mpd", "p_threshold", 1.0),
        ("mpd", "max_steps", 0),
        ("gibo", "n_max", 1),
        ("gibo", "lengthscale", -0.1),
        ("gibo", "noise", -1.0),
        ("gibo", "kernel", "cubic"),
        ("turbo", "length_init", 0.0),
        ("turbo", "length_init", 2.0),
        ("turbo", "length_min", 2.0),
        ("turbo", "length_max", 0.0),
        ("turbo", "failure_tolerance", 0),
        ("turbo", "success_tolerance", 0),
    ],
)
def test_bad_options_name_the_option(name: str, option: str, value: object) -> None:
    with pytest.raises(ValueError, match=option if option != "kernel" else "kernel"):
        make_method(name, 3, **{option: value})


def test_options_of_wrong_type_are_rejected() -> None:
    with pytest.raises(TypeError, match="b1"):
        make_method("minucb", 3, b1=1.5)
    with pytest.raises(TypeError, match="beta"):
        make_method("la-minucb", 3, beta="three")


def test_la_minucb_lookahead_region() -> None:
    """With q = 1 and b = 2 the run is: x_0, two look-ahead points around x_0, a move x_3,
    two around x_3, ... (Algorithm 2). "local" keeps them within delta of their centre."""
    space = iso.Box([0.0, 0.0], [1.0, 1.0])
    far = {}
    for region in ("local", "cube"):
        res = iso.minimize(lambda x: float(np.sum((x - 0.8) ** 2)), space, "la-minucb", budget=9,
                           seed=0, n_init=1, delta=0.05, b=2, lookahead_region=region)  # fmt: skip
        X = res.x_iters
        far[region] = max(float(np.abs(X[c + k] - X[c]).max()) for c in (0, 3, 6) for k in (1, 2))
    assert far["local"] <= 0.05 + 1e-9
    assert far["cube"] > 0.05
    with pytest.raises(ValueError, match=r"lookahead_region must be one of \('local', 'cube'\)"):
        iso.Optimizer(space, "la-minucb", lookahead_region="global")
