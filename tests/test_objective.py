"""The objective specification: directions, named outputs, constraints, feasibility,
Pareto front, hypervolume, reference point and the study record."""

from __future__ import annotations

import numpy as np
import pytest

import isoline as iso
from isoline.objective import UNSET, Objective, OutputError


def test_one_objective_keeps_its_old_form() -> None:
    o = Objective("MAXIMIZE")
    assert o == Objective.of("maximize") == Objective(["maximize"])
    assert o.names == ("value",) and o.single and o.maximize
    assert o.to_dict() == {"direction": "maximize"}
    assert Objective.from_dict({"direction": "maximize"}) == o
    assert Objective.from_dict(None) == Objective()
    np.testing.assert_array_equal(o.internal([1.0, -2.0]), [-1.0, 2.0])
    assert o.best_index(np.array([1.0, np.nan, 3.0])) == 2
    np.testing.assert_array_equal(o.outputs(2), [2.0])


def test_names_directions_and_the_record_round_trip() -> None:
    o = Objective(["minimize", "maximize"], ["err", "acc"], ["mem"])
    assert o.names == ("err", "acc", "mem") and o.n_outputs == 3
    assert Objective(["minimize", "maximize"]).names == ("value_0", "value_1")
    assert Objective("maximize", ["a", "b"]).directions == ("maximize", "maximize")
    assert Objective.from_dict(o.to_dict()) == o
    with pytest.raises(ValueError, match="directions"):
        o.direction  # noqa: B018


def test_a_mapping_of_directions_names_the_objectives() -> None:
    o = Objective({"err": "minimize", "acc": "MAXIMIZE"}, constraints=["mem"])
    assert o == Objective(["minimize", "maximize"], ["err", "acc"], ["mem"])
    spec = Objective.from_args(UNSET, directions={"acc": "maximize"})
    assert spec == Objective("maximize", ["acc"])
    with pytest.raises(ValueError, match="not both"):
        Objective({"err": "minimize"}, ["err"])
    with pytest.raises(ValueError, match="at least one"):
        Objective({})


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"directions": "up"}, ValueError, "minimize"),
        ({"directions": [1]}, TypeError, "minimize"),
        ({"directions": 1}, TypeError, "mapping"),
        ({"directions": []}, ValueError, "at least one"),
        ({"directions": ["minimize"], "objectives": ["a", "b"]}, ValueError, "one direction"),
        ({"objectives": ["a"], "constraints": ["a"]}, ValueError, "repeated"),
        ({"constraints": ["c"]}, ValueError, "name the objectives"),
        ({"objectives": "a"}, TypeError, "list of names"),
    ],
)
def test_bad_specifications_are_refused(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Objective(**kwargs)


def test_outputs_read_mappings_and_sequences_and_refuse_the_rest() -> None:
    named = Objective("minimize", ["err"], ["mem"])
    np.testing.assert_array_equal(named.outputs({"mem": -1, "err": 0.5, "x": "s"}), [0.5, -1])
    with pytest.raises(OutputError, match=r"misses output\(s\) \['mem'\]"):
        named.outputs({"err": 1.0})
    with pytest.raises(OutputError, match="'err' must be a number"):
        named.outputs({"err": "high", "mem": 0})
    with pytest.raises(OutputError, match="mapping"):
        named.outputs(1.0)
    two = Objective(["minimize", "minimize"])
    np.testing.assert_array_equal(two.outputs((1, np.float32(2))), [1, 2])
    with pytest.raises(OutputError, match="3 values for 2"):
        two.outputs([1, 2, 3])
    with pytest.raises(OutputError, match="name the outputs"):
        Objective().outputs({"value": 1.0})
    with pytest.raises(OutputError, match="must be a number"):
        Objective().outputs("1.0")


def test_feasibility_and_best_feasible() -> None:
    o = Objective("maximize", ["acc"], ["mem", "time"])
    Y = np.array([[0.9, 1.0, -1.0], [0.5, 0.0, -1.0], [0.7, -1.0, np.nan], [0.6, -2, -3]])
    np.testing.assert_array_equal(o.feasible(Y), [False, True, False, True])
    assert o.best_index(Y) == 3
    np.testing.assert_array_equal(o.running_best(Y), [np.nan, 0.5, 0.5, 0.6])
    np.testing.assert_array_equal(o.internal(Y[0]), [-0.9, 1.0, -1.0])
    assert o.best_index(Y[:1]) is None


def test_pareto_front_hypervolume_and_reference_point() -> None:
    o = Objective(["minimize", "maximize"], ["cost", "gain"], ["c"])
    Y = np.array([[1.0, 1.0, 0], [2.0, 3.0, 0], [1.5, 0.5, 0], [0.5, 9.0, 1.0], [3.0, 3.0, -1]])
    np.testing.assert_array_equal(o.pareto_indices(Y), [0, 1])
    # dominated area up to (cost 4, gain 0): [1,4]x[0,1] + [2,4]x[1,3]
    assert o.hypervolume(Y, [4.0, 0.0]) == pytest.approx(3.0 + 4.0)
    assert o.hypervolume(Y, [0.0, 10.0]) == 0.0
    np.testing.assert_allclose(o.hypervolume_history(Y, [4.0, 0.0]), [3, 7, 7, 7, 7])
    # nadir (2, 1) moved 10% of the front's range (1, 2) the worse way
    np.testing.assert_allclose(o.reference_point(Y), [2.1, 0.8])
    with pytest.raises(ValueError, match="2 finite numbers"):
        o.hypervolume(Y, [1.0])
    with pytest.raises(ValueError, match="no feasible point"):
        o.reference_point(Y[3:4])


def test_evaluations_with_equal_outputs_are_all_on_the_front() -> None:
    """Two configurations with the same outputs do not dominate each other: both are on
    the front (and marked so in the table), and the hypervolume counts their area once."""
    o = Objective(["minimize", "minimize"])
    Y = np.array([[1.0, 1.0], [2.0, 0.5], [1.0, 1.0], [2.0, 2.0]])
    np.testing.assert_array_equal(o.pareto_indices(Y), [0, 1, 2])
    assert o.hypervolume(Y, [3.0, 3.0]) == pytest.approx(4.0 + 0.5)
    space = iso.Space({"k": iso.Categorical(["a", "b", "c"])})
    res = iso.optimize(lambda c: {"e": 2.0 if c["k"] == "c" else 1.0, "t": 0.5 if c["k"] == "c" else 1.0},
                       space, directions=["minimize", "minimize"], objectives=["e", "t"],
                       method="random", budget=3, seed=0)  # fmt: skip
    configs, front = res.pareto_front()
    assert sorted(c["k"] for c in configs) == ["a", "b", "c"] and len(front) == 3
    assert res.to_dataframe()["pareto"].all()


def test_outputs_take_every_real_number_one_objective_takes() -> None:
    """A 0-d tensor (a BoTorch function's value), a Decimal or a NumPy scalar is a
    number in a row of outputs as it is for one objective; a bool is not."""
    import decimal

    torch = pytest.importorskip("torch")
    named = Objective("minimize", ["err"], ["mem"])
    row = named.outputs({"err": torch.tensor(0.25, dtype=torch.float64),
                         "mem": decimal.Decimal("-1.5")})  # fmt: skip
    np.testing.assert_array_equal(row, [0.25, -1.5])
    two = Objective(["minimize", "maximize"])
    np.testing.assert_array_equal(two.outputs([torch.tensor(1.0), np.int64(2)]), [1.0, 2.0])
    with pytest.raises(OutputError, match="'mem' must be a number"):
        named.outputs({"err": 0.25, "mem": True})
