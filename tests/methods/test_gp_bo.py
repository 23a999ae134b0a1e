"""Tests of gp-ei / gp-ucb / gp-ts and of the shared acquisition optimizer."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from botorch.acquisition import AcquisitionFunction, PosteriorMean
from botorch.exceptions.warnings import BotorchWarning, OptimizationWarning
from gpytorch.utils.warnings import NumericalWarning

from isoline.acquisition import maximize
from isoline.methods.gp_ts import _dedupe
from isoline.methods.registry import make_method
from isoline.models.gp import fit_gp
from isoline.ucb_weights import srinivas_beta

GP_METHODS = ["gp-ei", "gp-ucb", "gp-ts"]


def quadratic(X: np.ndarray) -> np.ndarray:
    """2-D bowl with minimum 0 at (0.3, 0.7)."""
    return ((X - np.array([0.3, 0.7])) ** 2 * np.array([1.0, 3.0])).sum(-1)


def run(name: str, seed: int, budget: int = 20, q: int = 1, **options) -> float:
    m = make_method(name, 2, seed=seed, batch_size=q, n_init=6, **options)
    while len(m.y) < budget:
        X = m.ask()
        m.tell(X, quadratic(X))
    return m.best[1]


@pytest.mark.parametrize("name", GP_METHODS)
def test_batch_and_matern_kernel(name: str) -> None:
    best = run(name, 0, budget=18, q=3, kernel="matern52")
    assert best < 0.02


def _record_fits(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Arguments of every ``fit_gp`` call the GP methods make."""
    import importlib

    gp_bo = importlib.import_module("isoline.methods.gp_bo")
    calls: list[dict] = []

    def spy(X: np.ndarray, y: np.ndarray, **kw: object):
        calls.append({"n": len(y), **kw})
        return fit_gp(X, y, **kw)

    monkeypatch.setattr(gp_bo, "fit_gp", spy)
    return calls


def test_warm_start_keeps_fitted_hyperparameters_and_can_be_disabled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _record_fits(monkeypatch)
    m = make_method("gp-ei", 2, seed=0, n_init=6, refit_growth=0)
    cold = make_method("gp-ei", 2, seed=0, n_init=6, refit_growth=0, warm_start=False)
    for opt in (m, cold):
        for _ in range(14):
            X = opt.ask()
            opt.tell(X, quadratic(X))
    warm_calls, cold_calls = calls[:8], calls[8:]
    assert all(c["fit"] for c in calls)  # refit_growth=0: a fit at every proposal
    assert warm_calls[0]["init"] is None and all(c["init"] is not None for c in warm_calls[1:])
    assert all(c["init"] is None for c in cold_calls)
    assert m._gp_state is not None and any(k.endswith("raw_lengthscale") for k in m._gp_state)
    assert m.best[1] < 0.01 and cold.best[1] < 0.01  # random search: ~0.044 on average


def test_refit_growth_refits_as_the_data_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _record_fits(monkeypatch)
    m = make_method("gp-ei", 2, seed=0, n_init=6, preset="fast", refit_growth=0.5)
    assert (m.fit_ftol, m.acq_maxiter, m.mc_samples) == (1e-6, 50, 256)
    assert make_method("gp-ei", 2).refit_growth == 0.0  # the default fits every proposal
    for _ in range(20):
        X = m.ask()
        m.tell(X, quadratic(X))
    fitted = [c["n"] for c in calls if c["fit"]]
    assert fitted == [6, 9, 14]  # each >= 1.5 x the previous fit's n
    kept = [c for c in calls if not c["fit"]]
    assert len(kept) == 14 - 3 and all(c["init"] is not None for c in kept)
    assert all(c["ftol"] == 1e-6 for c in calls)


def test_no_refit_when_only_pending_points_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _record_fits(monkeypatch)
    m = make_method("gp-ei", 2, seed=0, n_init=6)  # refit_growth=0: a fit per observation
    X = m.ask(6)
    m.tell(X, quadratic(X))
    first, second = m.ask(1), m.ask(1)  # the second with the first pending, no new data
    assert [c["fit"] for c in calls] == [True, False]
    assert calls[1]["n"] == 6 and calls[1]["init"] is not None
    m.tell(np.vstack([first, second]), quadratic(np.vstack([first, second])))
    m.ask(1)
    assert [c["fit"] for c in calls] == [True, False, True] and calls[2]["n"] == 8


def test_ucb_beta_schedule() -> None:
    assert srinivas_beta(1, 2, 0.1) == pytest.approx(2 * math.log(2 * math.pi**2 / 0.6))
    m = make_method("gp-ucb", 3, n_init=2)
    b0 = m.current_beta()
    m.tell(np.full((4, 3), 0.5), np.ones(4))
    assert m.current_beta() == pytest.approx(srinivas_beta(5, 3, 0.1)) and m.current_beta() > b0
    assert make_method("gp-ucb", 3, beta=4.0).current_beta() == 4.0


@pytest.mark.parametrize(
    "name, options, match",
    [
        ("gp-ei", dict(kernel="linear"), "kernel"),
        ("gp-ei", dict(num_restarts=0), "num_restarts"),
        ("gp-ucb", dict(beta="big"), "beta"),
        ("gp-ucb", dict(beta=-1.0), "beta"),
        ("gp-ucb", dict(delta=1.5), "delta"),
        ("gp-ts", dict(n_candidates=0), "n_candidates"),
        ("gp-ei", dict(warm_start="yes"), "warm_start"),
        ("gp-ei", dict(fit_ftol=0.0), "fit_ftol"),
        ("gp-ei", dict(refit_growth=-0.1), "refit_growth"),
        ("gp-ucb", dict(acq_maxiter=0), "acq_maxiter"),
        ("gp-ei", dict(mc_samples=0), "mc_samples"),
        ("gp-ei", dict(log_params=1), "log_params"),
        ("gp-ei", dict(priors="sklearn"), "priors"),
        ("gp-ucb", dict(priors="optuna", log_params=True), "priors='optuna'"),
        ("gp-ei", dict(log_params=True), "needs priors='botorch'"),
        ("gp-ei", dict(discrete_search="all"), "discrete_search"),
        ("gp-ei", dict(ei="ei"), "ei"),
        ("la-minucb", dict(fit_ftol=-1.0), "fit_ftol"),
        ("la-minucb", dict(log_params="yes"), "log_params"),
        ("turbo", dict(fit_ftol=0.0), "fit_ftol"),
        ("turbo", dict(log_params="yes"), "log_params"),
        ("turbo", dict(candidates_per_dim=0), "candidates_per_dim"),
    ],
)
def test_bad_options(name: str, options: dict, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        make_method(name, 2, **options)
    with pytest.raises(TypeError, match="unknown option"):
        make_method(name, 2, bogus=1)


def test_gp_ei_defaults_to_optunas_priors_and_matern_the_others_to_the_papers_gp() -> None:
    ei = make_method("gp-ei", 2)
    assert (ei.kernel, ei.priors) == ("matern52", "optuna")
    for name in ("gp-ucb", "gp-ts"):
        m = make_method(name, 2)
        assert (m.kernel, m.priors) == ("rbf", "botorch")
    paper = make_method("gp-ei", 2, kernel="rbf", priors="botorch", log_params=True)
    assert (paper.kernel, paper.priors, paper.log_params) == ("rbf", "botorch", True)


def test_threads_are_restored_after_a_proposal() -> None:
    # the test session runs on one thread (conftest.py): start from two, which a proposal
    # (run on one) must change and then restore
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        run("gp-ei", 0, budget=8)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_dedupe_replaces_repeated_points() -> None:
    C = np.array([[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]])
    order = np.array([[0, 0], [2, 1], [1, 2]])  # per-path candidate ranking
    X = np.array([[0.1, 0.1], [0.1, 0.1]])
    np.testing.assert_array_equal(_dedupe(X, C, order), [[0.1, 0.1], [0.2, 0.2]])


# -- isoline.acquisition.maximize ------------------------------------------------------
def _posterior_mean() -> PosteriorMean:
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    return PosteriorMean(fit_gp(X, -quadratic(X)).model)


def test_maximize_finds_the_maximum_and_is_deterministic() -> None:
    acqf = _posterior_mean()
    runs = []
    for _ in range(2):
        with torch.random.fork_rng():
            torch.manual_seed(3)
            runs.append(maximize(acqf, 2, num_restarts=4, raw_samples=64))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    x, value = runs[0]
    assert x.shape == (1, 2) and np.allclose(x[0], [0.3, 0.7], atol=0.05)
    with torch.no_grad():
        assert value == pytest.approx(float(acqf(torch.as_tensor(x)[None])))


def test_maximize_respects_bounds_and_fixed_features() -> None:
    acqf = _posterior_mean()
    B = np.array([[0.5, 0.0], [0.9, 0.4]])
    x, _ = maximize(acqf, 2, bounds=B, num_restarts=3, raw_samples=32)
    assert np.all(x >= B[0]) and np.all(x <= B[1])
    assert np.allclose(x[0], [0.5, 0.4], atol=1e-3)  # corner nearest (0.3, 0.7)
    x, _ = maximize(acqf, 2, fixed_features={1: 0.25}, num_restarts=3, raw_samples=32)
    assert x[0, 1] == 0.25 and abs(x[0, 0] - 0.3) < 0.05


class _NoGradients(AcquisitionFunction):
    """-(x - 0.6)^2 summed, but fails whenever gradients are requested."""

    def __init__(self) -> None:
        super().__init__(model=None)  # type: ignore[arg-type]

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        if X.requires_grad:
            raise RuntimeError("simulated numerical failure")
        return -((X - 0.6) ** 2).sum(dim=(-1, -2))


def test_maximize_falls_back_to_best_raw_sample() -> None:
    x, value = maximize(_NoGradients(), 3, num_restarts=2, raw_samples=256)
    assert np.all(np.isfinite(x)) and np.max(np.abs(x - 0.6)) < 0.2
    assert value == pytest.approx(-((x - 0.6) ** 2).sum())


class _NaNEverywhere(AcquisitionFunction):
    """A criterion whose model's posterior broke down: NaN at every point."""

    def __init__(self) -> None:
        super().__init__(model=None)  # type: ignore[arg-type]

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.full(X.shape[:-2], float("nan"), dtype=X.dtype)


def test_maximize_names_a_criterion_that_is_nan_everywhere() -> None:
    with pytest.raises(RuntimeError, match="not finite at any of 32 raw samples.*log transform"):
        maximize(_NaNEverywhere(), 2, num_restarts=2, raw_samples=32)


class _WarnsLikeAFallback(AcquisitionFunction):
    """-(x - 0.6)^2 summed, warning at each call as GPyTorch's jitter and BoTorch's
    cached-Cholesky fallback do, as BoTorch does for an L-BFGS-B restart that stops early
    (forcing its warning past an "ignore" filter), and with an unrelated warning."""

    warnings = (
        ("A not p.d., added jitter of 1.0e-08 to the diagonal", NumericalWarning),
        ("Low-rank cholesky updates failed due NaNs", BotorchWarning),
        ("something the user should see", UserWarning),
    )

    def __init__(self) -> None:
        super().__init__(model=None)  # type: ignore[arg-type]

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        for message, category in self.warnings:
            warnings.warn(message, category, stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter("always", category=OptimizationWarning)
            warnings.warn("Optimization failed within `scipy.optimize.minimize` with status 2",
                          OptimizationWarning, stacklevel=2)  # fmt: skip
        return -((X - 0.6) ** 2).sum(dim=(-1, -2))


def test_maximize_silences_only_the_fallbacks_it_handles() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x, _ = maximize(_WarnsLikeAFallback(), 2, num_restarts=2, raw_samples=32,
                        extra_starts=np.array([[0.5, 0.5]]))  # fmt: skip
    categories = {w.category for w in caught}
    assert NumericalWarning not in categories and BotorchWarning not in categories
    assert OptimizationWarning not in categories
    assert UserWarning in categories
    assert np.max(np.abs(x - 0.6)) < 0.05


class _SumOfCoordinates(AcquisitionFunction):
    """Batch value = sum of all coordinates: every point is best at the corner (1, 1)."""

    def __init__(self) -> None:
        super().__init__(model=None)  # type: ignore[arg-type]

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return X.sum(dim=(-1, -2))


def test_maximize_never_repeats_a_point_in_a_batch() -> None:
    torch.manual_seed(0)
    x, value = maximize(_SumOfCoordinates(), 2, q=3, num_restarts=3, raw_samples=64)
    assert np.allclose(x[0], [1.0, 1.0])  # the optimum itself is kept
    assert len({tuple(r) for r in x}) == 3
    assert x[1:].sum() > 2 * 1.5  # replacements are the best raw points, not arbitrary ones
    assert value == pytest.approx(x.sum())


def test_maximize_avoids_evaluated_points() -> None:
    torch.manual_seed(0)
    x, _ = maximize(_SumOfCoordinates(), 2, q=1, num_restarts=3, raw_samples=64)
    assert np.allclose(x[0], [1.0, 1.0])  # without avoid: the corner
    torch.manual_seed(0)
    x, _ = maximize(_SumOfCoordinates(), 2, q=1, num_restarts=3, raw_samples=64,
                    avoid=np.array([[0.2, 0.3], [1.0, 1.0]]))  # fmt: skip
    assert not np.allclose(x[0], [1.0, 1.0]) and x[0].sum() > 1.5
    with pytest.raises(ValueError, match="avoid must have shape"):
        maximize(_SumOfCoordinates(), 2, avoid=np.zeros((2, 3)))


def test_gp_ei_does_not_repeat_its_incumbent_on_heavy_tailed_values() -> None:
    # BBOB f6 (attractive sector) d = 2 instance 1 with seed 0 made gp-ei evaluate its best
    # point, a corner, for 29 of 40 evaluations: values from 1e3 to 2e6 flatten the
    # standardized model. A small analogue: one corner far below, one point far above.
    def f(u: np.ndarray) -> float:
        return float(1e3 * np.sum(u**2) + (1e6 if u[0] > 0.95 and u[1] > 0.95 else 0.0))

    m = make_method("gp-ei", 2, seed=0, n_init=6)
    for _ in range(14):
        X = m.ask()
        m.tell(X, np.array([f(x) for x in X]))
    rows = {x.tobytes() for x in m.X}
    assert len(rows) == len(m.X)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(d=0), "d must be"),
        (dict(q=1.5), "q must be"),
        (dict(bounds=np.array([[0.0, 0.0], [1.0, 1.5]])), "bounds"),
        (dict(bounds=np.array([[0.5, 0.0], [0.5, 1.0]])), "bounds"),
        (dict(fixed_features={2: 0.1}), "fixed_features"),
        (dict(initial_conditions=np.zeros((2, 2))), "initial_conditions"),
    ],
)
def test_maximize_bad_input(kwargs: dict, match: str) -> None:
    args = dict(d=2, q=1) | kwargs
    with pytest.raises((ValueError, TypeError), match=match):
        maximize(_NoGradients(), args.pop("d"), args.pop("q"), **args)


def test_kept_hyperparameters_that_fail_on_new_data_are_fitted_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    from isoline.models.gp import GPFitError

    gp_bo = importlib.import_module("isoline.methods.gp_bo")
    calls: list[bool] = []

    def flaky(X: np.ndarray, y: np.ndarray, **kw: object):
        calls.append(bool(kw["fit"]))
        if not kw["fit"]:
            raise GPFitError("singular")
        return fit_gp(X, y, **kw)

    monkeypatch.setattr(gp_bo, "fit_gp", flaky)
    m = make_method("gp-ei", 2, seed=0, n_init=6, refit_growth=0.5)
    for _ in range(10):
        X = m.ask()
        m.tell(X, quadratic(X))
    assert calls[:3] == [True, False, True] and calls.count(True) == 4


@pytest.mark.parametrize("disable", [False, True])
def test_gp_ei_spreads_asynchronous_asks_over_pending_points(
    monkeypatch: pytest.MonkeyPatch, disable: bool
) -> None:
    m = make_method("gp-ei", 2, seed=0, n_init=8)
    X = m.ask(8)
    m.tell(X, quadratic(X))
    if disable:  # the control: without pending points the two asks coincide
        monkeypatch.setattr(m, "pending", lambda: np.empty((0, 2)))
    first = m.ask(1)[0]
    assert len(m.pending()) == (0 if disable else 1)
    second = m.ask(1)[0]
    gap = np.abs(first - second).max()
    assert (gap < 1e-2) if disable else (gap > 2e-2)
    m.add_pending(np.array([[0.9, 0.1]]))
    m.withdraw(np.array([first, second]))
    np.testing.assert_array_equal(m.pending(), [[0.9, 0.1]] if not disable else np.empty((0, 2)))
    m.tell(np.array([[0.9, 0.1]]), np.array([1.0]))
    assert len(m.pending()) == 0


def test_an_extra_start_at_a_point_is_searched_from_there() -> None:
    U = np.random.default_rng(0).random((6, 2))
    model = fit_gp(U, U.sum(1)).model

    class _TwoPeaks(AcquisitionFunction):
        """A broad low peak at 0.2 and a narrow high one at (0.9, 0.9)."""

        def forward(self, X: torch.Tensor) -> torch.Tensor:
            x = X[..., 0, :]
            broad = torch.exp(-((x - 0.2) ** 2).sum(-1) / 0.1)
            narrow = 2.0 * torch.exp(-((x - 0.9) ** 2).sum(-1) / 1e-4)
            return broad + narrow

    acqf = _TwoPeaks(model)
    torch.manual_seed(0)
    plain, v0 = maximize(acqf, 2, num_restarts=2, raw_samples=8)
    torch.manual_seed(0)
    X, v = maximize(acqf, 2, num_restarts=2, raw_samples=8, extra_starts=np.array([[0.89, 0.905]]))
    np.testing.assert_allclose(plain, [[0.2, 0.2]], atol=1e-3)  # the raw starts miss the peak
    np.testing.assert_allclose(X, [[0.9, 0.9]], atol=1e-3)
    assert v > v0
    with pytest.raises(ValueError, match="extra_starts"):
        maximize(acqf, 2, q=2, extra_starts=np.array([[0.5, 0.5]]))
    with pytest.raises(ValueError, match="extra_starts must have shape"):
        maximize(acqf, 2, extra_starts=np.array([0.5, 0.5]))


def test_gp_ei_analytic_log_ei_for_one_point_without_pending(used: list[type]) -> None:
    from botorch.acquisition import qLogExpectedImprovement

    from isoline.acquisition import RelativeFloorLogEI

    m = make_method("gp-ei", 2, seed=0, n_init=4, ei="logei")
    X = m.ask(4)
    m.tell(X, quadratic(X))
    first = m.ask()  # one point, none pending: analytic
    m.ask()  # one point with the first pending: joint MC
    m.tell(first, quadratic(first))
    assert used == [RelativeFloorLogEI, qLogExpectedImprovement]
    m.ask(2)  # a batch: joint MC
    assert used[-1] is qLogExpectedImprovement
    default = make_method("gp-ei", 2, seed=0, n_init=4)
    default.tell(X, quadratic(X))
    default.ask()
    assert used[-1] is qLogExpectedImprovement  # the default keeps qLogEI
    assert run("gp-ei", 0, budget=16, ei="logei") < 0.05
    assert run("gp-ei", 1, budget=12, ei="logei") == run("gp-ei", 1, budget=12, ei="logei")


def _told_design(batch_size: int, **options: object):
    m = make_method("gp-ei", 2, seed=0, batch_size=batch_size, **options)
    while m.n_asked < m.n_init:
        X = m.ask()
        m.tell(X, [float(np.sum((x - 0.3) ** 2)) for x in X])
    return m


def test_believer_batch_starts_with_the_one_point_choice_and_spreads():
    batch = _told_design(4, ei="logei", believer=True).ask()
    single = _told_design(1, ei="logei").ask()
    np.testing.assert_allclose(batch[0], single[0])
    assert len({x.tobytes() for x in batch}) == 4
    m = _told_design(4, ei="logei", believer=True)
    assert not any(np.all(np.isclose(m.X, x), axis=1).any() for x in batch)


def test_believer_treats_pending_points_as_the_points_of_its_batch():
    """A point still being evaluated is believed at its posterior mean, as an earlier point
    of the same batch is: asking one point at a time, the first left pending, gives the
    points of a batch of two."""
    batch = _told_design(2, ei="logei", believer=True).ask()
    m = _told_design(1, ei="logei", believer=True)
    first = m.ask()  # asked, not told: pending
    second = m.ask()
    np.testing.assert_allclose(np.vstack([first, second]), batch, atol=1e-5)


def test_a_believed_point_below_the_best_value_is_not_proposed_again():
    """Ginsbourger et al.'s believer counts a believed value as observed: once a point
    believed better than the best observation is chosen, EI improves on its value, so the
    next points of the batch (or the next asks while it is pending) are not that point
    again a hair away."""
    from isoline.auto import TUNING_OPTIONS

    m = make_method("gp-ei", 2, seed=0, **dict(TUNING_OPTIONS))
    X = np.random.default_rng(0).random((6, 2))
    m.tell(X, [float(np.sum((x - 0.3) ** 2)) for x in X])
    asked = np.vstack([m.ask(1) for _ in range(5)])
    gaps = np.linalg.norm(asked[:, None] - asked[None], axis=-1)[np.triu_indices(5, 1)]
    assert gaps.min() > 1e-3


def test_believer_needs_the_analytic_log_ei():
    with pytest.raises(ValueError, match="ei='logei'"):
        make_method("gp-ei", 2, believer=True)


def test_constrained_gp_ei_keeps_handled_jitter_quiet() -> None:
    # nearly repeated points make the noisy EI's joint covariance of its baseline
    # singular: GPyTorch adds jitter, which the user need not hear about
    m = make_method("gp-ei", 2, seed=0, n_init=4, n_constraints=1)
    X = np.random.default_rng(0).random((6, 2))
    for x in np.vstack([X, X[:3] + 1e-9]):
        m.tell(x[None, :], np.array([[np.sin(5 * x[0]) + x[1], x[0] - 0.5]]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = m.ask(1)
    assert not [w for w in caught if issubclass(w.category, NumericalWarning)]
    assert x.shape == (1, 2) and np.all((x >= 0) & (x <= 1))


def test_constrained_gp_ei_before_any_feasible_point_is_quiet() -> None:
    # no evaluation feasible: BoTorch's constrained noisy EI improves on a lower bound of
    # the objective and says so at every call; the fallback is isoline's documented rule
    m = make_method("gp-ei", 2, seed=0, n_init=4, n_constraints=1)
    for x in np.random.default_rng(1).random((6, 2)):
        m.tell(x[None, :], np.array([[x.sum(), 1.0 + x[0]]]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = m.ask(1)
    assert not [w for w in caught if issubclass(w.category, BotorchWarning)]
    assert x.shape == (1, 2) and np.all((x >= 0) & (x <= 1))
