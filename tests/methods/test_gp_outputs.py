"""gp-ei with black-box constraints and with several objectives (BoTorch's constrained
qLogNEI, qLogNEHVI and qLogNParEGO), against random search on small budgets."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from botorch.acquisition.multi_objective.monte_carlo import qExpectedHypervolumeImprovement
from botorch.acquisition.multi_objective.objective import WeightedMCMultiOutputObjective
from botorch.sampling import SobolQMCNormalSampler
from botorch.test_functions.multi_objective import BraninCurrin
from botorch.utils.multi_objective.box_decompositions.non_dominated import (
    NondominatedPartitioning,
)
from botorch.utils.multi_objective.hypervolume import Hypervolume
from botorch.utils.multi_objective.pareto import is_non_dominated

from isoline.methods.gp_outputs import (
    hypervolume_ei,
    impute_outputs,
    mo_acquisition,
    model_outputs,
    parego_scalarized,
    reference_point,
    winsorized,
)
from isoline.methods.registry import make_method

#: a cheap search, so that a run takes seconds
CHEAP = {
    "num_restarts": 1, "raw_samples": 32, "mc_samples": 16, "acq_maxiter": 10,
    "fit_ftol": 1e-4, "refit_growth": 0.3,
}  # fmt: skip


def bowl_below_diagonal(X: np.ndarray) -> np.ndarray:
    """Objective ``|x - (0.8, 0.8)|^2`` under ``x0 + x1 - 1 <= 0``: the unconstrained
    minimum is infeasible, the constrained one is 0.18 at (0.5, 0.5)."""
    return np.c_[((X - 0.8) ** 2).sum(-1), X[:, 0] + X[:, 1] - 1.0]


def branin_currin(X: np.ndarray) -> np.ndarray:
    return BraninCurrin()(torch.as_tensor(X)).numpy()


def run(name: str, f, seed: int, budget: int, **kw) -> np.ndarray:
    m = make_method(name, 2, seed=seed, n_init=4, **kw)
    while len(m.y) < budget:
        X = m.ask()
        m.tell(X, f(X))
    return m.Y


def best_feasible(Y: np.ndarray) -> float:
    ok = Y[:, 1] <= 0
    return float(Y[ok, 0].min()) if ok.any() else np.inf


def hypervolume(Y: np.ndarray) -> float:
    G = -torch.as_tensor(Y)  # BraninCurrin is minimized
    ref = -torch.tensor([300.0, 14.0])  # worse than anything in [0, 1]^2
    return float(Hypervolume(ref).compute(G[is_non_dominated(G)]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_constrained_gp_ei_beats_random_search(seed: int) -> None:
    gp = run("gp-ei", bowl_below_diagonal, seed, 10, n_constraints=1, **CHEAP)
    rs = run("random", bowl_below_diagonal, seed, 10, n_constraints=1)
    assert best_feasible(gp) < best_feasible(rs)
    assert best_feasible(gp) < 0.19  # the constrained minimum is 0.18


@pytest.mark.parametrize(
    ("acquisition", "batch"),
    [
        ("ehvi", 2),
        ("ehvi-observed", 2),
        ("parego", 2),
        ("ehvi-analytic", 1),
        ("ehvi-analytic", 2),
        ("parego-ei", 1),
        ("parego-ei", 2),
    ],  # fmt: skip
)
def test_two_objective_gp_ei_beats_random_search_hypervolume(acquisition: str, batch: int) -> None:
    for seed in (0, 1):
        kw = dict(n_objectives=2, mo_acquisition=acquisition, **CHEAP)
        gp = run("gp-ei", branin_currin, seed, 12, batch_size=batch, **kw)
        rs = run("random", branin_currin, seed, 12, n_objectives=2)
        assert hypervolume(gp) > hypervolume(rs)


def two_bowls_below_diagonal(X: np.ndarray) -> np.ndarray:
    """Objectives ``|x - (0.9, 0.9)|^2`` and ``|x - (0.9, 0.1)|^2`` under
    ``x0 + x1 - 1 <= 0``: half the square is feasible, the first bowl's minimum is not."""
    return np.c_[((X - 0.9) ** 2).sum(-1), ((X - [0.9, 0.1]) ** 2).sum(-1), X.sum(-1) - 1.0]


@pytest.mark.parametrize("acquisition", ["ehvi-observed", "ehvi-analytic", "parego-ei"])
@pytest.mark.parametrize("seed", [0, 1])
def test_observed_front_ehvi_keeps_to_the_feasible_region(seed: int, acquisition: str) -> None:
    """With a constraint, ``"ehvi-analytic"`` takes the constrained ``"ehvi-observed"``
    and ``"parego-ei"`` the constrained ``"parego"``."""
    kw = dict(n_objectives=2, n_constraints=1, mo_acquisition=acquisition, **CHEAP)
    Y = run("gp-ei", two_bowls_below_diagonal, seed, 14, **kw)
    assert np.mean(Y[4:, 2] <= 0) >= 0.7  # random search: half of its points


def test_same_seed_same_trajectory_with_constraints_and_failures() -> None:
    def failing(X: np.ndarray) -> np.ndarray:
        Y = bowl_below_diagonal(X)
        Y[X[:, 0] > 0.9, 1] = np.nan  # a failed constraint evaluation
        return Y

    a = run("gp-ei", failing, 3, 8, n_constraints=1, batch_size=2, **CHEAP)
    b = run("gp-ei", failing, 3, 8, n_constraints=1, batch_size=2, **CHEAP)
    np.testing.assert_array_equal(a, b)


def test_failed_constraints_count_as_infeasible() -> None:
    Y = np.array([[1.0, -0.5], [np.nan, np.nan], [2.0, -0.1], [0.5, np.nan]])
    filled = impute_outputs(Y, 1)
    assert filled[1, 0] == 2.0  # the objective: the worst value seen
    assert filled[1, 1] > 0 and filled[3, 1] > 0  # the constraint: infeasible
    Y = np.array([[1.0, 3.0], [2.0, np.nan], [0.0, 1.0]])
    assert impute_outputs(Y, 1)[1, 1] == 3.0  # already infeasible: the worst seen


def test_reference_point_and_acquisition_choice() -> None:
    F = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    np.testing.assert_allclose(reference_point(F), [1.1, 1.1])  # nadir + range / 10
    F = np.array([[0.0, 1.0], [1.0, 0.0], [-1.0, -1.0]])
    np.testing.assert_allclose(reference_point(F), [-0.9, -0.9])  # one point: |nadir| / 10
    np.testing.assert_allclose(reference_point(F, np.array([True, True, False])), [1.1, 1.1])
    assert mo_acquisition("auto", 2, 1) == "ehvi"
    assert mo_acquisition("auto", 4, 1) == "parego"
    assert mo_acquisition("auto", 2, 8) == "parego"
    assert mo_acquisition("ehvi", 5, 8) == "ehvi"
    assert mo_acquisition("ehvi-observed", 2, 1) == "ehvi-observed"
    assert mo_acquisition("ehvi-analytic", 2, 1) == "ehvi-analytic"
    assert mo_acquisition("parego-ei", 2, 1) == "parego-ei"


def test_parego_scalarization_orders_dominated_points_last() -> None:
    """Knowles's scalar: objectives scaled to [0, 1] over the data, so the ideal corner
    scores 0, the nadir corner the largest weight + 0.05 (the augmented sum of weights
    summing to 1), and a dominated point more than the point dominating it."""
    Y = np.array([[0.0, 10.0], [1.0, 0.0], [0.5, 5.0], [0.7, 6.0], [1.0, 10.0], [0.0, 0.0]])
    for seed in range(5):
        torch.manual_seed(seed)
        s = parego_scalarized(Y, 2)
        assert s.shape == (6,)
        assert s[5] == pytest.approx(0.0) and s[4] == s.max()
        assert 0.55 <= s[4] <= 1.05
        assert s[2] < s[3]


def test_parego_ei_fits_one_gp_of_the_scalar() -> None:
    """One point with none pending: one GP of the scalarization, not a GP per objective;
    the same seed gives the same trajectory and another seed another one."""
    runs = [run("gp-ei", branin_currin, s, 8, n_objectives=2, mo_acquisition="parego-ei",
                **CHEAP) for s in (5, 5, 6)]  # fmt: skip
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])
    m = make_method("gp-ei", 2, seed=0, n_init=4, n_objectives=2, mo_acquisition="parego-ei")
    for _ in range(5):
        X = m.ask()
        m.tell(X, branin_currin(X))
    assert m._gp_state is not None and m._outputs_state is None


@pytest.mark.filterwarnings("ignore:.*qExpectedHypervolumeImprovement")
def test_analytic_hypervolume_improvement_of_minimized_objectives() -> None:
    """The closed form, on minimized objectives, equals the Monte-Carlo expectation of
    the hypervolume improvement (BoTorch's qEHVI with many samples, told to minimize)."""
    m = make_method("gp-ei", 2, seed=0, n_init=8, n_objectives=2)
    X = m.ask()
    m.tell(X, branin_currin(X))
    gps, Y = m._fit_outputs()
    ref = -torch.as_tensor(reference_point(Y), dtype=torch.float64)  # maximized
    mc = qExpectedHypervolumeImprovement(
        gps.model,
        ref_point=ref.tolist(),
        partitioning=NondominatedPartitioning(ref_point=ref, Y=-torch.as_tensor(Y)),
        sampler=SobolQMCNormalSampler(torch.Size([4096]), seed=0),
        objective=WeightedMCMultiOutputObjective(weights=-torch.ones(2, dtype=torch.float64)),
    )
    T = torch.as_tensor(np.random.default_rng(0).random((8, 1, 2)))
    exact = hypervolume_ei(gps, Y, 2)(T).detach().numpy()
    assert exact.max() > 0.1  # some candidates improve the front
    np.testing.assert_allclose(exact, mc(T).detach().numpy(), rtol=2e-3, atol=1e-3)
    with pytest.raises(ValueError, match="constraint"):
        hypervolume_ei(gps, np.c_[Y, Y[:, :1]], 1)


def test_capabilities() -> None:
    with pytest.raises(ValueError, match="gp-ucb"):
        make_method("gp-ucb", 2, n_constraints=1)
    with pytest.raises(ValueError, match="gp-ts"):
        make_method("gp-ts", 2, n_objectives=2)
    with pytest.raises(ValueError, match="mo_acquisition"):
        make_method("gp-ei", 2, n_objectives=2, mo_acquisition="nsga")


def test_hypervolume_improvement_stays_on_the_pytorch_path() -> None:
    """No compiled BoTorch kernel: it would stall the first proposal and change values in
    the last digits between machines (a fresh process, since the choice is per process)."""
    import subprocess
    import sys

    code = (
        "import numpy as np, isoline as iso\n"
        "from botorch.acquisition.multi_objective import logei\n"
        "opt = iso.Optimizer(iso.Box([0.0, 0.0], [1.0, 1.0]), 'gp-ei', seed=0,\n"
        "                    objective=iso.Objective(['minimize', 'minimize'], ['a', 'b']))\n"
        "for _ in range(5):\n"
        "    x = opt.ask(); opt.tell(x, [[float(x.sum()), float((1 - x).sum())]])\n"
        "print(logei._C is None, logei._load_attempted)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]


def test_variance_floor_follows_the_output_of_smallest_scale() -> None:
    """One GPyTorch floor holds for every output's model: it must not be raised for an
    objective of scale 1e4 when a constraint of scale 1 sits beside it (it would hide
    that constraint's posterior variances)."""
    from gpytorch.settings import min_variance

    from isoline.methods.base import variance_floor

    def floor() -> float:
        return float(min_variance.value(torch.float64))

    default = floor()
    big, unit, tiny = (np.linspace(-3.0, 3.0, 10) * s for s in (1e4, 1.0, 1e-6))
    with variance_floor(big):
        assert floor() > default  # one output of large scale: raised
    with variance_floor(np.c_[big, unit]):
        assert floor() == default
    with variance_floor(np.c_[big, tiny]):
        assert floor() < default  # the smallest scale sets it
    with variance_floor(np.empty((0, 2))):
        assert floor() == default


@pytest.mark.parametrize("form", ["ehvi", "ehvi-observed", "parego", "ehvi-analytic"])
@pytest.mark.parametrize("constrained", [False, True])
def test_objectives_of_huge_scale_propose_a_point(form: str, constrained: bool) -> None:
    """COCO bbob-biobj's Rastrigin pair in its [-100, 100]^2 box starts with values of
    1e3-1e12: the log criteria's absolute smoothing widths overflowed there and made
    every raw sample NaN. Each form proposes a point; the log forms, the one they
    propose for the same values divided by 2**30 (the analytic form, not smoothed, was
    not affected and keeps its absolute variance floors)."""
    if constrained and form == "ehvi-analytic":
        pytest.skip("the analytic form takes no constraints")
    X = np.array([[0.85, 0.93], [0.45, 0.17], [0.25, 0.59], [0.58, 0.33]])
    F = np.array([[9.2e11, 1.2e5], [4.0e4, 2.2e4], [2.9e3, 5.9e8], [2.8e3, 1.7e3]])
    C = np.array([[-1.0], [0.5], [-0.5], [-1.0]])
    proposed = []
    for scale in (1.0, 2.0**-30):
        m = make_method("gp-ei", 2, seed=0, n_init=4, n_objectives=2, mo_acquisition=form,
                        n_constraints=int(constrained), **CHEAP)  # fmt: skip
        m.tell(X, np.c_[F * scale, C] if constrained else F * scale)
        proposed.append(m.ask(1))
    assert np.all(np.isfinite(proposed[0])) and proposed[0].shape == (1, 2)
    if form != "ehvi-analytic":
        np.testing.assert_allclose(proposed[0], proposed[1], atol=1e-4)


def test_winsorizing_clips_objectives_above_their_tukey_fence_only() -> None:
    Y = np.array([[1.0, 5.0, 9.0], [2.0, 6.0, 1e6], [3.0, 7.0, 3.0], [4.0, 8.0, 2.0],
                  [1e9, 1e9, 4.0]])  # fmt: skip
    W = winsorized(Y, 2)
    # objective 0: q1 = 2, q3 = 4 (lower/higher percentiles), fence 4 + 1.5 * 2 = 7
    np.testing.assert_array_equal(W[:, 0], [1.0, 2.0, 3.0, 4.0, 7.0])
    np.testing.assert_array_equal(W[:, 1], [5.0, 6.0, 7.0, 8.0, 11.0])  # 8 + 1.5 * 2
    np.testing.assert_array_equal(W[:, 2], Y[:, 2])  # a constraint column is left alone
    assert Y[4, 0] == 1e9  # the input is not changed
    Y[1, 0] = np.nan
    np.testing.assert_array_equal(model_outputs(Y, 2), impute_outputs(Y, 2))
    np.testing.assert_array_equal(model_outputs(Y, 2, winsorize=True),
                                  winsorized(impute_outputs(Y, 2), 2))  # fmt: skip
    np.testing.assert_array_equal(model_outputs(Y[:, :2], 1, winsorize=True),
                                  impute_outputs(Y[:, :2], 1))  # fmt: skip


def test_gp_ei_winsorize_changes_what_the_models_see_not_the_values() -> None:
    def heavy(X: np.ndarray) -> np.ndarray:  # BraninCurrin with rare huge values
        Y = branin_currin(X)
        return np.where(X[:, :1] > 0.9, Y * 1e6, Y)

    kw = dict(n_objectives=2, mo_acquisition="parego-ei", **CHEAP)
    plain = run("gp-ei", heavy, 3, 10, **kw)
    clipped = run("gp-ei", heavy, 3, 10, winsorize=True, **kw)
    np.testing.assert_array_equal(plain[:4], clipped[:4])  # the same initial design
    assert not np.array_equal(plain, clipped)
    assert plain.max() > 1e6 and clipped.max() > 1e6  # the values are stored unclipped
    with pytest.raises(TypeError, match="winsorize"):
        make_method("gp-ei", 2, winsorize="yes")
    from isoline.methods.registry import settled_options

    assert "winsorize" not in settled_options("gp-ei", {"winsorize": True}, 1, 1)
    assert settled_options("gp-ei", {"winsorize": True}, 2, 1)["winsorize"] is True
