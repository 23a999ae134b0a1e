"""Problems with several outputs (isoline.problems.outputs): registered, their mappings
read by their own Objective, constraint signs, reference points, COCO suites."""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import pytest

import isoline as iso
from isoline import problems

MULTI = {"branin-currin": 2, "dtlz2": 2, "zdt1": 2, "zdt2": 2, "zdt3": 2, "vehicle-safety": 3}
CONSTRAINED = {"pressure-vessel": 4, "welded-beam": 6, "tension-compression-string": 4,
               "speed-reducer": 11, "keane-bump": 2, "constrained-hartmann": 1,
               "ackley-constrained": 2}  # fmt: skip
needs_coco = pytest.mark.skipif(importlib.util.find_spec("cocoex") is None, reason="cocoex")


@pytest.mark.parametrize("name", [*MULTI, *CONSTRAINED])
def test_each_problem_returns_the_outputs_its_objective_reads(name: str) -> None:
    p = problems.get(name)
    m = MULTI.get(name, 1)
    k = CONSTRAINED.get(name, 0)
    assert (p.objective.n_objectives, p.objective.n_constraints) == (m, k)
    assert set(p.objective.directions) == {"minimize"}
    x = np.random.default_rng(0).uniform(p.space.lower, p.space.upper)
    out = p(x)
    row = p.objective.outputs(out)
    assert row.shape == (m + k,) and np.all(np.isfinite(row))
    np.testing.assert_array_equal(row, p.outputs(x))
    if m > 1:
        assert p.ref_point is not None and p.ref_point.shape == (m,)
        assert p.max_hypervolume is not None and p.max_hypervolume > 0


def test_botorch_values_and_slacks_carry_over_with_isoline_signs() -> None:
    from botorch.test_functions import BraninCurrin, PressureVessel

    p = problems.get("pressure-vessel")
    x = np.array([1.0, 1.0, 40.0, 180.0])
    import torch

    t = torch.tensor(x).reshape(1, -1)
    f, slack = PressureVessel().evaluate_true(t), PressureVessel().evaluate_slack_true(t)
    out = p(x)
    assert out["f"] == pytest.approx(float(f))
    # BoTorch's slack is feasible when >= 0, isoline's constraint when <= 0
    np.testing.assert_allclose([out[f"c{i}"] for i in range(4)], -slack.numpy().ravel())
    bc = problems.get("branin-currin")
    np.testing.assert_allclose(bc.outputs(np.array([0.2, 0.7])),
                               BraninCurrin().evaluate_true(torch.tensor([[0.2, 0.7]])).numpy().ravel())  # fmt: skip
    np.testing.assert_array_equal(bc.ref_point, [18.0, 6.0])


def test_scbo_ackley_is_feasible_at_its_optimum_and_not_beside_it() -> None:
    p = problems.get("ackley-constrained", dim=4)
    assert p.objective.feasible(p.outputs(np.zeros(4)))[0]
    assert p.outputs(np.zeros(4))[0] == pytest.approx(0.0, abs=1e-12)
    assert not p.objective.feasible(p.outputs(np.full(4, 0.5)))[0]  # sum(x) > 0
    assert not p.objective.feasible(p.outputs(np.array([-4.0, -4.0, 0.0, 0.0])))[0]  # norm > 5
    assert p.optimum == 0.0


def test_bad_options_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="noise-free"):
        problems.get("zdt1", noise_std=0.1)
    with pytest.raises(ValueError, match="2 <= objectives < dim"):
        problems.get("dtlz2", dim=3, objectives=3)
    with pytest.raises(ValueError, match="allowed"):
        problems.get("vehicle-safety", dim=4)
    assert problems.get("dtlz2", dim=6, objectives=3).objective.n_objectives == 3


def test_a_run_takes_the_problem_objective() -> None:
    p = problems.get("branin-currin")
    res = iso.optimize(p, p.space, direction=p.objective, method="random", budget=5, seed=0)
    assert res.values.shape == (5, 2)
    np.testing.assert_allclose(res.values, [p.outputs(np.asarray(x)) for x in res.x_iters])


@needs_coco
def test_coco_suites_give_two_objectives_or_constraints_and_pickle() -> None:
    b = problems.get("bbob-biobj", dim=2, function=1, seed=1)
    assert b.instance == 2 and b.objective.n_objectives == 2
    assert b.ref_point is not None and np.all(np.isfinite(b.ref_point))
    c = problems.get("bbob-constrained", dim=2, function=1)
    assert c.objective.n_objectives == 1 and c.objective.n_constraints >= 1
    x = np.zeros(2)
    again = pickle.loads(pickle.dumps(b))
    np.testing.assert_array_equal(again.outputs(x), b.outputs(x))
    with pytest.raises(ValueError, match="instance indices 1..15"):
        problems.get("bbob-biobj", dim=2, function=1, instance=16)
    with pytest.raises(ValueError, match=r"function must be one of 1..55"):
        problems.get("bbob-biobj", dim=2, function=56)
