"""gp-ei's analytic constrained log EI (``ei="logei"``): taken for one point with none
pending under constraints, the MC constrained qLogNEI otherwise; before any feasible
point the probability of feasibility."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from botorch.acquisition import qLogNoisyExpectedImprovement
from botorch.acquisition.analytic import (
    LogConstrainedExpectedImprovement,
    LogProbabilityOfFeasibility,
)
from botorch.acquisition.multi_objective.logei import (
    qLogNoisyExpectedHypervolumeImprovement,
)

from isoline.methods.gp_outputs import constrained_log_ei, impute_outputs
from isoline.methods.registry import make_method

#: a cheap search, so that a run takes seconds
CHEAP = {
    "num_restarts": 2, "raw_samples": 64, "mc_samples": 16, "acq_maxiter": 20,
    "fit_ftol": 1e-4, "refit_growth": 0.3,
}  # fmt: skip


def bowl_below_diagonal(X: np.ndarray) -> np.ndarray:
    """``|x - (0.8, 0.8)|^2`` under ``x0 + x1 - 1 <= 0``: constrained minimum 0.18."""
    return np.c_[((X - 0.8) ** 2).sum(-1), X[:, 0] + X[:, 1] - 1.0]


def corner_only(X: np.ndarray) -> np.ndarray:
    """``x0`` under ``1.8 - x0 - x1 <= 0``: feasible only near the corner (1, 1)."""
    return np.c_[X[:, 0], 1.8 - X[:, 0] - X[:, 1]]


def test_analytic_exactly_for_one_point_without_pending_under_constraints(
    used: list[type],
) -> None:
    m = make_method("gp-ei", 2, seed=0, n_init=4, n_constraints=1, ei="logei", **CHEAP)
    X = m.ask(4)
    m.tell(X, bowl_below_diagonal(X))
    assert m.feasible().any()
    first = m.ask()  # one point, none pending: analytic
    assert issubclass(used[-1], LogConstrainedExpectedImprovement)
    m.ask()  # one point with the first pending: MC
    assert used[-1] is qLogNoisyExpectedImprovement
    m.tell(first, bowl_below_diagonal(first))
    m.ask(2)  # a batch: MC
    assert used[-1] is qLogNoisyExpectedImprovement
    default = make_method("gp-ei", 2, seed=0, n_init=4, n_constraints=1, **CHEAP)
    default.tell(X, bowl_below_diagonal(X))
    default.ask()  # the default keeps the MC form
    assert used[-1] is qLogNoisyExpectedImprovement
    two = make_method("gp-ei", 2, seed=0, n_init=4, n_objectives=2, ei="logei", **CHEAP)
    two.tell(X, np.c_[X.sum(1), (1 - X).sum(1)])
    two.ask()  # several objectives: hypervolume improvement
    assert used[-1] is qLogNoisyExpectedHypervolumeImprovement
    assert len(used) == 5


def test_probability_of_feasibility_before_any_feasible_point(used: list[type]) -> None:
    m = make_method("gp-ei", 2, seed=0, n_init=4, n_constraints=1, ei="logei", **CHEAP)
    X = m.ask(4)
    m.tell(X, corner_only(X))
    assert not m.feasible().any()
    x = m.ask()
    assert issubclass(used[-1], LogProbabilityOfFeasibility)
    assert x.shape == (1, 2) and np.all((x >= 0) & (x <= 1))
    assert x.sum() > X.sum(1).max()  # toward the feasible corner
    for _ in range(4):  # until feasible, then constrained log EI
        m.tell(x, corner_only(x))
        x = m.ask()
    assert m.feasible().any()
    assert issubclass(used[-1], LogConstrainedExpectedImprovement)


def test_best_feasible_value_and_minimization_sign() -> None:
    m = make_method("gp-ei", 2, seed=0, n_init=6, n_constraints=1, **CHEAP)
    X = m.ask(6)
    m.tell(X, bowl_below_diagonal(X))
    gps = m._fit_gps(m.X, impute_outputs(m.Y, 1), True, None)
    acqf = constrained_log_ei(gps, m.y[m.feasible()])
    assert m.best is not None and float(acqf.best_f) == m.best[1]
    # (0.5, 0.5): feasible, f = 0.18; (0, 0): feasible, f = 1.28; (1, 1): infeasible
    points = torch.tensor([[[0.5, 0.5]], [[0.0, 0.0]], [[1.0, 1.0]]], dtype=torch.float64)
    with torch.no_grad():
        low, high, infeasible = acqf(points).tolist()
    assert low > high and low > infeasible


@pytest.mark.parametrize("seed", [0, 1])
def test_constrained_logei_finds_the_constrained_minimum(seed: int) -> None:
    m = make_method("gp-ei", 2, seed=seed, n_init=4, n_constraints=1, ei="logei", **CHEAP)
    while len(m.y) < 10:
        x = m.ask()
        m.tell(x, bowl_below_diagonal(x))
    assert m.best is not None and m.best[1] < 0.19  # the constrained minimum is 0.18


def test_same_seed_same_trajectory_with_failures() -> None:
    def failing(X: np.ndarray) -> np.ndarray:
        Y = bowl_below_diagonal(X)
        Y[X[:, 0] > 0.9, 1] = np.nan  # a failed constraint evaluation
        return Y

    def run() -> np.ndarray:
        m = make_method("gp-ei", 2, seed=3, n_init=4, n_constraints=1, ei="logei", **CHEAP)
        while len(m.y) < 8:
            x = m.ask()
            m.tell(x, failing(x))
        return m.Y

    np.testing.assert_array_equal(run(), run())


def test_proposals_do_not_depend_on_a_power_of_two_objective_scale() -> None:
    """Scaling the objective alone by a power of two is exact for the objective's GP and
    leaves the constraint's untouched (its variance floor included): the same points up
    to the optimizer's tolerance. (The MC form's seventh point moves by 0.06 along the
    constraint's boundary at 2**-30 with this cheap search; not checked here.)"""

    def run(scale: float) -> np.ndarray:
        m = make_method("gp-ei", 2, seed=1, n_init=4, n_constraints=1, ei="logei", **CHEAP)
        while len(m.y) < 7:
            x = m.ask()
            m.tell(x, bowl_below_diagonal(x) * [scale, 1.0])
        return m.X

    ref = run(1.0)
    for scale in (2.0**-30, 2.0**30):
        np.testing.assert_allclose(run(scale), ref, rtol=0, atol=1e-3, err_msg=f"scale {scale}")
