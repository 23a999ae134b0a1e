"""Known linear constraints between real parameters (isoline.Linear on a Space)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline.auto import resolve
from isoline.store_records import StoreError, space_dim


def _space(upper: float = 10.0) -> iso.Space:
    return iso.Space(
        {"a": iso.Real(0.0, 10.0), "k": iso.Integer(1, 3), "b": iso.Real(-5.0, 5.0)},
        constraints=[iso.Linear({"a": 1.0, "b": 2.0}, upper=upper)],
    )


@pytest.mark.parametrize(
    ("coefficients", "bounds", "match"),
    [
        ({}, {"upper": 1.0}, "non-empty mapping"),
        ({"a": float("nan")}, {"upper": 1.0}, "coefficient of parameter 'a'"),
        ({"a": 0.0}, {"upper": 1.0}, "every coefficient is zero"),
        ({"a": 1.0}, {}, "give lower=, upper= or both"),
        ({"a": 1.0}, {"lower": 2.0, "upper": 2.0}, "lower < upper"),
        ({"a": 1.0}, {"upper": float("inf")}, "upper must be a finite number"),
    ],
)
def test_bad_linear_is_refused(coefficients: dict, bounds: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        iso.Linear(coefficients, **bounds)


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("zz", "unknown parameter 'zz'"),
        ("k", "parameter 'k' is an Integer"),
        ("c", "parameter 'c' is a Categorical"),
        ("lr", "parameter 'lr' is on a log scale"),
        ("child", "parameter 'child' is conditional"),
    ],
)
def test_space_refuses_constraints_on_other_parameters(name: str, match: str) -> None:
    params = {"a": iso.Real(0.0, 1.0), "k": iso.Integer(1, 3), "c": iso.Categorical(["x", "y"]),
              "lr": iso.Real(1e-3, 1.0, log=True), "child": iso.Real(0.0, 1.0)}  # fmt: skip
    with pytest.raises(ValueError, match=match):
        iso.Space(params, conditions={"child": {"c": "x"}},
                  constraints=[iso.Linear({"a": 1.0, name: 1.0}, upper=1.0)])  # fmt: skip


def test_constraints_no_point_of_the_box_meets_are_refused() -> None:
    with pytest.raises(ValueError, match="no point of the search box satisfies"):
        iso.Space({"a": iso.Real(0.0, 1.0)}, constraints=[iso.Linear({"a": 1.0}, lower=1.5)])


def test_unit_form_matches_the_constraint_in_user_units() -> None:
    space = _space()
    rng = np.random.default_rng(0)
    configs = space.decode(rng.random((500, space.dim)))
    value = np.array([c["a"] + 2 * c["b"] for c in configs])
    clear = np.abs(value - 10.0) > 1e-6
    lin = space.input_constraints
    assert lin is not None
    np.testing.assert_array_equal(
        lin.feasible(space.encode(configs))[clear], (value <= 10.0)[clear]
    )
    assert 0 < clear.sum() and 0 < (value <= 10.0).sum() < len(value)


def test_space_description_round_trips_and_the_store_checks_it() -> None:
    space = _space()
    d = space.to_dict()
    assert iso.Space.from_dict(d) == space and space != _space(upper=9.0)
    assert space_dim(d) == space.dim
    bad = {**d, "constraints": [{"coefficients": {"k": 1.0}, "lower": None, "upper": 1.0}]}
    with pytest.raises(StoreError, match="Integer"):
        space_dim(bad)
    with pytest.raises(StoreError, match="not a Linear description"):
        space_dim({**d, "constraints": [{"coefficients": {"a": 1.0}}]})


def test_resume_with_other_constraints_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "lin.db")

    def f(c: dict) -> float:
        return (c["a"] - 3) ** 2 + c["b"] ** 2 + c["k"]

    first = iso.minimize(f, _space(), "random", budget=4, seed=0, storage=db, study="s")
    with pytest.raises(StoreError, match="constraints: stored"):
        iso.minimize(f, _space(upper=9.0), "random", budget=6, seed=0, storage=db, study="s")
    again = iso.minimize(f, _space(), "random", budget=6, seed=0, storage=db, study="s")
    assert again.n_evals == 6 and again.x_iters[:4] == first.x_iters


def test_auto_falls_back_to_gp_ei_and_says_why() -> None:
    space = iso.Space({"a": iso.Real(0.0, 1.0), "b": iso.Real(0.0, 1.0)},
                      constraints=[iso.Linear({"a": 1.0, "b": 1.0}, upper=1.0)])  # fmt: skip
    method, _, choice = resolve("auto", space, 2, {}, budget=40)  # batch: bkop
    assert method == "gp-ei" and choice is not None
    assert "linear constraints are not handled by bkop" in choice.reason
    method, _, _ = resolve("auto", space, 1, {}, budget=3)  # design-only: sobol handles them
    assert method == "sobol"
    method, _, _ = resolve("auto", space, 1, {}, budget=200)  # low-dim-local: cobyqa
    assert method == "cobyqa"


def test_sampling_falls_back_to_the_polytope_sampler_when_few_points_pass() -> None:
    space = iso.Space({"a": iso.Real(0.0, 1.0), "b": iso.Real(0.0, 1.0)},
                      constraints=[iso.Linear({"a": 1.0, "b": 1.0}, lower=1.995)])  # fmt: skip
    lin = space.input_constraints
    assert lin is not None
    rng = np.random.default_rng(0)
    U = lin.sample(lambda m: rng.random((m, 2)), 20, seed=1)
    assert U.shape == (20, 2) and lin.feasible(U).all()
    assert len({u.tobytes() for u in U}) == 20


def test_repair_moves_only_infeasible_points_into_the_region() -> None:
    lin = _space().input_constraints
    assert lin is not None
    U = np.array([[1.0, 0.5, 1.0], [0.1, 0.5, 0.1]])
    R = lin.repair(U)
    assert lin.feasible(R).all() and np.all((R >= 0) & (R <= 1))
    np.testing.assert_array_equal(R[1], U[1])
    assert not lin.feasible(U[:1]).all()


def test_enqueued_points_must_meet_the_constraints() -> None:
    opt = iso.Optimizer(_space(), "random", seed=0)
    with pytest.raises(ValueError, match="violate the space's linear constraints"):
        opt.enqueue([{"a": 10.0, "k": 1, "b": 5.0}])
    opt.enqueue([{"a": 1.0, "k": 2, "b": 1.0}])
    assert opt.ask() == [{"a": 1.0, "k": 2, "b": 1.0}]
