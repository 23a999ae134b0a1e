"""Conditional spaces: declaring and refusing conditions, activity, the fixed-length
encoding of inactive parameters, storage, resume and the table of a run."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

import isoline as iso
from isoline.conditions import INACTIVE
from isoline.models.rounding import SpaceRounding
from isoline.params import Categorical, Integer, Real, Space
from isoline.store_records import StoreError

PARAMS = {
    "kernel": Categorical(["linear", "rbf", "poly"]),
    "C": Real(1e-3, 1e3, log=True),
    "gamma": Real(1e-4, 1.0, log=True),
    "degree": Integer(2, 5),
    "coef": Categorical(["a", "b"]),
    "depth": Integer(0, 2),
}
CONDITIONS = {
    "gamma": {"kernel": ["rbf", "poly"]},
    "degree": {"kernel": "poly"},
    "coef": {"degree": [3, 4]},
    "depth": {"coef": "b"},
}


def svm() -> Space:
    return Space(PARAMS, CONDITIONS)


@pytest.mark.parametrize(
    ("conditions", "message"),
    [
        ({"gamma": {"nope": "rbf"}}, "'gamma': condition on unknown parent 'nope'"),
        ({"nope": {"kernel": "rbf"}}, "condition on unknown parameter 'nope'"),
        ({"gamma": {"gamma": 0.1}}, "'gamma': a condition on itself"),
        ({"gamma": {"kernel": "sigmoid"}}, "'gamma': parent 'kernel' cannot take 'sigmoid'"),
        ({"coef": {"degree": 6}}, "'coef': parent 'degree' cannot take 6"),
        ({"coef": {"degree": True}}, "'coef': parent 'degree' cannot take True"),
        ({"degree": {"C": 1.0}}, "'degree': parent 'C' is a Real"),
        ({"gamma": {"kernel": []}}, "'gamma': condition on 'kernel' lists no value"),
        ({"gamma": {"kernel": "rbf", "degree": 2}}, "'gamma': a condition is one"),
        (
            {"kernel": {"coef": "a"}, "coef": {"degree": 3}, "degree": {"kernel": "poly"}},
            "conditions form a cycle",
        ),
    ],
)
def test_bad_conditions_are_refused_naming_the_parameter(conditions, message) -> None:
    with pytest.raises(ValueError, match=message):
        Space(PARAMS, conditions)


def test_bad_conditions_are_refused_before_any_evaluation() -> None:
    calls = []
    with pytest.raises(ValueError, match="parent 'kernel' cannot take 'sigmoid'"):
        iso.minimize(calls.append, Space(PARAMS, {"gamma": {"kernel": "sigmoid"}}), "random")
    assert not calls


def test_active_follows_nested_conditions() -> None:
    s = svm()
    assert s.active({"kernel": "linear", "C": 1.0}) == ["kernel", "C"]
    assert s.active({"kernel": "poly", "degree": 2}) == ["kernel", "C", "gamma", "degree"]
    deep = {"kernel": "poly", "degree": 4, "coef": "b"}
    assert s.active(deep) == ["kernel", "C", "gamma", "degree", "coef", "depth"]
    assert "depth" not in s.active({**deep, "kernel": "rbf"})  # its grandparent is off


def test_decode_encode_round_agree_and_inactive_columns_are_constant() -> None:
    s = svm()
    U = np.random.default_rng(0).random((400, s.dim))
    configs = s.decode(U)
    R = s.round(U)
    for c, r in zip(configs, R):
        assert list(c) == s.active(c)
        for name in set(s.names) - set(c):
            assert np.all(r[s.blocks[name]] == INACTIVE)
    np.testing.assert_allclose(s.encode(configs), R, rtol=0, atol=1e-12)  # reals: to the ulp
    assert [list(c) for c in s.decode(R)] == [list(c) for c in configs]
    np.testing.assert_array_equal(s.round(R), R)
    # the GP's rounding transform imputes the same constant
    T = SpaceRounding(s).transform(torch.tensor(U))
    np.testing.assert_array_equal(T.numpy(), R)


def test_configurations_differing_only_in_inactive_columns_are_one() -> None:
    s = svm()
    u = s.encode({"kernel": "linear", "C": 1.0})
    v = u.copy()
    v[s.blocks["gamma"]] = 0.7
    v[s.blocks["degree"]] = 0.9
    np.testing.assert_array_equal(s.round(v[None])[0], u)
    assert s.decode(v) == s.decode(u)


def test_encode_names_inactive_and_missing_parameters() -> None:
    s = svm()
    with pytest.raises(ValueError, match=r"inactive \['gamma'\]"):
        s.encode({"kernel": "linear", "C": 1.0, "gamma": 0.1})
    with pytest.raises(ValueError, match=r"missing \['degree'\]"):
        s.encode({"kernel": "poly", "C": 1.0, "gamma": 0.1})
    with pytest.raises(ValueError, match="parameter 'gamma': 7.0 is outside"):
        s.encode({"kernel": "rbf", "C": 1.0, "gamma": 7.0})
    for blank in (None, float("nan")):  # as a table shows it: said to be inactive
        with pytest.raises(ValueError, match=r"inactive \['degree'\] \(leave inactive"):
            s.encode({"kernel": "rbf", "C": 1.0, "gamma": 0.1, "degree": blank})
    with pytest.raises(ValueError, match="parameter 'kernel'"):  # the parent's value first
        s.encode({"kernel": "sigmoid", "C": 1.0, "degree": None})


def test_finite_conditional_space_counts_and_lists_its_configurations() -> None:
    s = Space(
        {"k": Categorical(["a", "b"]), "n": Integer(1, 3), "m": Categorical([1, 2])},
        {"n": {"k": "b"}, "m": {"n": [2, 3]}},
    )
    # a; b with n=1; b with n in {2, 3} and m in {1, 2}
    assert s.n_configs == 1 + 1 + 2 * 2
    configs = s.decode(s.grid())
    assert len({Space.key(c) for c in configs}) == 6
    assert {"k": "a"} in configs and {"k": "b", "n": 1} in configs
    assert (
        Space({"k": Categorical(["a", "b"]), "x": Real(0, 1)}, {"x": {"k": "b"}}).n_configs is None
    )


def test_to_dict_keeps_conditions_and_plain_spaces_are_unchanged() -> None:
    s = svm()
    again = Space.from_dict(s.to_dict())
    assert again == s and again.conditions.given() == s.conditions.given()
    assert Space(PARAMS) != s
    assert set(Space(PARAMS).to_dict()) == {"params"}  # old stored spaces compare equal
    assert Space.from_dict(Space(PARAMS).to_dict()) == Space(PARAMS)


def objective(c: dict) -> float:
    assert list(c) == svm().active(c), c  # only the active parameters, in order
    value = np.log10(c["C"]) ** 2 + {"linear": 1.0, "rbf": 0.0, "poly": 0.5}[c["kernel"]]
    return float(value + (np.log10(c["gamma"]) + 2) ** 2 if "gamma" in c else value)


def test_run_store_resume_and_table_mark_inactive_parameters(tmp_path) -> None:
    db = str(tmp_path / "runs.db")
    full = iso.minimize(objective, svm(), "gp-ei", budget=10, seed=3, n_init=5)
    calls = {"n": 0}

    def crashing(c: dict) -> float:
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt
        return objective(c)

    with pytest.raises(KeyboardInterrupt):
        iso.minimize(crashing, svm(), "gp-ei", budget=10, seed=3, n_init=5, storage=db, study="s")
    resumed = iso.minimize(objective, svm(), "gp-ei", budget=10, seed=3, n_init=5, storage=db,
                           study="s")  # fmt: skip
    assert resumed.n_failed == 0 and resumed.x_iters == full.x_iters
    loaded = iso.load(db, "s")
    assert loaded.x_iters == full.x_iters and loaded.space == svm()
    table = loaded.to_dataframe()
    for c, (_, row) in zip(loaded.x_iters, table.iterrows()):
        assert (row["params_kernel"] == "linear") == np.isnan(row["params_gamma"])
        assert ("degree" in c) == (row["params_degree"] is not pd_na())
        assert ("coef" in c) == (row["params_coef"] is not None)
    assert str(table["params_degree"].dtype) == "Int64"


def pd_na():
    import pandas as pd

    return pd.NA


def test_store_refuses_a_config_with_an_inactive_parameter(tmp_path) -> None:
    db = str(tmp_path / "runs.db")
    iso.minimize(objective, svm(), "random", budget=3, seed=0, storage=db, study="s")
    import sqlite3

    with sqlite3.connect(db) as con:
        con.execute(
            """UPDATE trials SET x = '{"kernel": "linear", "C": 1.0, "gamma": 0.5}'
            WHERE number = 0"""
        )
    with pytest.raises(StoreError, match="active"):
        iso.load(db, "s")


def test_report_plots_a_conditional_study(tmp_path) -> None:
    from isoline.visualization import write_study_report

    db = str(tmp_path / "runs.db")
    iso.minimize(objective, svm(), "random", budget=12, seed=0, storage=db, study="s")
    summary = write_study_report(iso.load(db, "s"), tmp_path / "report").read_text()
    assert "(inactive)" in summary or "| gamma |" in summary
    for stem in ("slice", "parallel_coordinates", "importances", "history"):
        assert (tmp_path / "report" / f"{stem}.png").exists(), stem


def test_a_choice_none_is_a_value_not_an_inactive_parameter(tmp_path) -> None:
    """``None`` among a Categorical's choices (``max_depth=None``) is shown as that
    choice in the table, the plots' codes and the report, never as "(inactive)"; an
    inactive one is still marked missing."""
    from isoline.evaluations import parameters
    from isoline.visualization import write_study_report

    space = Space(
        {"depth": Categorical([None, 3]), "pen": Categorical(["l2", "x"]),
         "solver": Categorical([None, "saga"]), "x": Real(0.0, 1.0)},
        {"solver": {"pen": "x"}},
    )  # fmt: skip

    def f(c: dict) -> float:
        return c["x"] + (c["depth"] is not None) + (c.get("solver") is not None)

    res = iso.minimize(f, space, "random", budget=16, seed=0)
    table = res.to_dataframe()
    by_name = {p.name: p for p in parameters(space)}
    for c, (_, row) in zip(res.x_iters, table.iterrows()):
        codes = {n: by_name[n].codes([row[f"params_{n}"]])[0] for n in ("depth", "solver")}
        assert codes["depth"] == (0 if c["depth"] is None else 1)
        if "solver" in c:
            assert codes["solver"] == (0 if c["solver"] is None else 1)
        else:
            assert np.isnan(codes["solver"])
    assert any(c["depth"] is None for c in res.x_iters) and res.x["depth"] is None
    assert any(c.get("solver", 0) is None for c in res.x_iters)
    text = write_study_report(res, tmp_path / "r").read_text()
    assert "| depth | None |" in text and "(inactive)" not in text.split("| depth |")[1][:12]
    with open(tmp_path / "r" / "evaluations.csv", newline="") as fh:
        cells = [row["params_solver"] for row in csv.DictReader(fh)]
    assert cells == ["" if "solver" not in c else str(c["solver"]) for c in res.x_iters]
    assert "None" in cells and "" in cells


def test_the_csv_leaves_an_inactive_categorical_and_a_missing_error_empty(tmp_path) -> None:
    from isoline.visualization import write_study_report

    space = Space({"k": Categorical(["a", "b"]), "opt": Categorical(["x", "y"])},
                  {"opt": {"k": "b"}})  # fmt: skip
    res = iso.minimize(lambda c: float(c["k"] == "b"), space, "random", budget=6, seed=1)
    write_study_report(res, tmp_path / "r")
    with open(tmp_path / "r" / "evaluations.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["params_opt"] for r in rows] == [c.get("opt", "") for c in res.x_iters]
    assert {c["k"] for c in res.x_iters} == {"a", "b"} and all(r["error"] == "" for r in rows)


def test_an_integer_parent_given_as_a_numpy_integer_keeps_its_children() -> None:
    """Values from NumPy or pandas (``np.int64``) select children as Python ints do, in
    configurations and in the conditions themselves; conditions store Python values."""
    s = Space(
        {"layers": Integer(1, 3), "dropout": Real(0.0, 0.5)},
        conditions={"dropout": {"layers": np.arange(2, 4)}},
    )
    assert s.active({"layers": np.int64(2), "dropout": 0.1}) == ["layers", "dropout"]
    assert s.active({"layers": np.int64(1)}) == ["layers"]
    assert s.conditions.given() == {"dropout": {"layers": [2, 3]}}
    assert all(type(v) is int for v in s.conditions.given()["dropout"]["layers"])
    assert s == Space({"layers": Integer(1, 3), "dropout": Real(0.0, 0.5)},
                      conditions={"dropout": {"layers": range(2, 4)}})  # fmt: skip
    opt = iso.Optimizer(s, method="random", seed=0)
    opt.tell([{"layers": np.int64(3), "dropout": 0.2}], [0.5])  # an active child kept
    with pytest.raises(ValueError, match="missing \\['dropout'\\]"):
        opt.tell([{"layers": np.int64(2)}], [0.5])  # an active child left out
    with pytest.raises(ValueError, match="cannot take"):
        Space({"n": Integer(1, 3), "r": Real(0, 1)}, conditions={"r": {"n": np.bool_(True)}})
