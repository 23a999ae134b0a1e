"""The Optimizer with several objectives and constraints: rows, mappings, best, front."""

from __future__ import annotations

import numpy as np
import pytest

import isoline as iso
from isoline.auto import outputs as auto_outputs
from isoline.objective import Objective

BOX = iso.Box([0.0, 0.0], [1.0, 1.0])


def test_rows_and_mappings_are_told_in_the_users_directions() -> None:
    opt = iso.Optimizer(BOX, "random", directions=["minimize", "maximize"],
                        objectives=["cost", "gain"], constraints=["c"])  # fmt: skip
    X = opt.ask(3)
    opt.tell(X, [[1.0, 1.0, 0.0], [2.0, 3.0, -1.0], [0.5, 9.0, 1.0]])
    opt.tell(opt.ask(2), [{"cost": 3.0, "gain": 3.0, "c": -1.0}, None])
    _, Y = opt.history
    assert Y.shape == (5, 3) and np.isnan(Y[4]).all()
    np.testing.assert_array_equal(opt.method.Y[1], [2.0, -3.0, -1.0])  # gain negated
    front_x, front_y = opt.pareto_front
    np.testing.assert_array_equal(front_y, [[1.0, 1.0, 0.0], [2.0, 3.0, -1.0]])
    np.testing.assert_array_equal(front_x, X[:2])
    x, y = opt.best  # the first objective's best feasible
    assert y == 1.0 and np.array_equal(x, X[0])
    with pytest.raises(ValueError, match=r"misses output\(s\) \['c'\]"):
        opt.tell(opt.ask(1), [{"cost": 1.0, "gain": 2.0}])
    with pytest.raises(ValueError, match=r"expected \(2, 3\)"):
        opt.tell(opt.ask(2), [1.0, 2.0])


def test_the_specification_keywords() -> None:
    spec = Objective("maximize", ["a"], ["c"])
    assert iso.Optimizer(BOX, "random", objective=spec).objective == spec
    with pytest.raises(ValueError, match="not both"):
        iso.Optimizer(BOX, "random", direction="minimize", directions=["minimize"])
    with pytest.raises(ValueError, match="not both"):
        iso.Optimizer(BOX, "random", objective=spec, direction="maximize")
    with pytest.raises(ValueError, match="for constraints use one of"):
        iso.Optimizer(BOX, "gibo", objective=spec)
    opt = iso.Optimizer(BOX, directions=["minimize", "minimize"])
    assert opt.choice is not None and opt.choice.rule == "several objectives"
    assert opt.choice.options == dict(iso.auto.OBJECTIVES_OPTIONS)
    assert opt.method.n_objectives == 2 and opt.method.mo_acquisition == "parego-ei"
    plain = iso.Optimizer(BOX, "gp-ei", directions=["minimize", "minimize"],
                          mo_acquisition="parego-ei").method  # fmt: skip
    for name in ("num_restarts", "raw_samples", "acq_maxiter", "refit_growth", "fit_ftol"):
        assert getattr(opt.method, name) == getattr(plain, name)  # gp-ei's own search and fit
    for kw in ({"batch_size": 4}, {"constraints": ["c"], "objectives": ["a", "b"]}):
        other = iso.Optimizer(BOX, directions=["minimize", "minimize"], **kw)
        assert other.choice is not None and other.method.mo_acquisition == "parego"
        assert other.choice.options == dict(iso.auto.OBJECTIVES_BATCH_OPTIONS)
    many = Objective("maximize", ["a"], ["c0", "c1", "c2", "c3"])  # beyond "few constraints"
    for con in (iso.Optimizer(BOX, objective=many),
                iso.Optimizer(iso.Box([0.0] * 30, [1.0] * 30), objective=many)):  # fmt: skip
        assert con.choice is not None and con.choice.rule == "constraints"
        assert con.choice.options == dict(iso.auto.CONSTRAINTS_OPTIONS)
        assert con.method.start_at_best and con.method.ei == "logei"
        assert con.choice.report == auto_outputs.CONSTRAINTS_LEAN_REPORT
    for other in (iso.Optimizer(BOX, objective=spec, batch_size=2),
                  iso.Optimizer(iso.Box([0.0] * 10, [1.0] * 10), objective=spec, batch_size=4)):  # fmt: skip
        assert other.choice is not None and other.choice.rule == "constraints in batches"
        assert other.choice.options == {} and other.choice.report == auto_outputs.CONSTRAINTS_REPORT
        assert other.choice.method == "gp-ei" and other.method.n_constraints == 1


def test_auto_runs_cobyqa_for_few_constraints() -> None:

    def made(n_constraints: int, space: iso.Box | iso.Space = BOX, **kw: int) -> iso.Optimizer:
        names = [f"c{i}" for i in range(n_constraints)]
        return iso.Optimizer(space, objectives=["f"], constraints=names, **kw)

    for opt in (made(1, budget=40), made(auto_outputs.FEW_CONSTRAINTS), made(2, budget=40)):
        assert opt.choice is not None and opt.choice.rule == "few constraints"
        assert opt.method_name == "cobyqa" and opt.method.n_constraints >= 1
    typed = iso.Space({"a": iso.Integer(0, 9), "b": iso.Real(0.0, 1.0)})
    for other in (made(auto_outputs.FEW_CONSTRAINTS + 1, budget=40), made(2, typed, budget=40),
                  made(2, budget=40, batch_size=2), made(2, budget=40, workers=4)):  # fmt: skip
        assert other.choice is not None and other.method_name == "gp-ei"
    assert made(2, budget=40, workers=4).choice.rule == "constraints"  # type: ignore[union-attr]


def test_one_objective_best_is_feasible_and_maximized() -> None:
    opt = iso.Optimizer(BOX, "sobol", direction="maximize")
    X = opt.ask(2)
    opt.tell(X, [1.0, 2.0])
    assert opt.best[1] == 2.0
    con = iso.Optimizer(BOX, "sobol", objective=Objective("maximize", ["a"], ["c"]))
    con.tell(X, [[5.0, 1.0], [2.0, 0.0]])
    assert con.best[1] == 2.0


def test_a_result_prints_a_summary_of_its_run() -> None:
    def two(x: np.ndarray) -> dict[str, float]:
        return {"err": float(x[0]), "speed": float(x[1]), "mem": float(x[0] + x[1] - 1.5)}

    res = iso.optimize(two, BOX, directions={"err": "minimize", "speed": "maximize"},
                       constraints=["mem"], method="random", budget=6, seed=0)  # fmt: skip
    text = repr(res)
    k = len(res.pareto_front()[1])
    assert text.startswith("Result: 6 evaluations of random (seed 0), 0 failed")
    assert "outputs: err (minimize), speed (maximize), mem (<= 0)" in text
    assert f"feasible: {int(res.feasible.sum())} of 6" in text
    assert f"Pareto front: {k} configuration" in text and "x_iters" not in text
    space = iso.Space({"a": iso.Real(0.0, 5.0), "k": iso.Categorical(["x", "y"])})
    one = iso.minimize(lambda p: (p["a"] - 2.0) ** 2, space, method="random", budget=3, seed=0)
    best = f"best (minimize): fun = {one.fun:.6g} at x = {{'a': {one.x['a']:.6g}, 'k': "
    assert best in repr(one)
    never = iso.optimize(lambda x: {"f": float(x[0]), "c": 1.0}, BOX, objectives=["f"],
                         constraints=["c"], method="random", budget=2, seed=0)  # fmt: skip
    assert "best: none (no finite feasible value)" in repr(never)
    some = iso.optimize(lambda x: {"f": float(x[0]), "c": float(x[1] - 0.5)}, BOX,
                        objectives=["f"], constraints=["c"], method="random", budget=6, seed=0)  # fmt: skip
    assert f"best feasible (minimize): fun = {some.fun:.6g}" in repr(some)
