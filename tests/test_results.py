"""iso.load and Result.to_dataframe (the round trip of every method is a conformance check,
isoline.testing._check_loads_as_run)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import isoline as iso
from isoline.evaluations import to_dataframe


class Opaque:
    """A categorical choice that is no JSON value."""

    def __repr__(self) -> str:
        return "Opaque()"


OPAQUE = Opaque()


def space() -> iso.Space:
    return iso.Space({
        "lr": iso.Real(1e-4, 1e-1, log=True),
        "depth": iso.Integer(1, 6),
        "act": iso.Categorical(["relu", None, OPAQUE]),
    })  # fmt: skip


def objective(c: dict[str, Any]) -> float:
    if c["depth"] == 6:
        raise RuntimeError("too deep")
    return float((np.log10(c["lr"]) + 2) ** 2 + 0.1 * c["depth"] + (c["act"] is None))


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, iso.Result]:
    db = str(tmp_path_factory.mktemp("results") / "runs.db")
    res = iso.minimize(objective, space(), "random", budget=16, seed=1, storage=db, study="hpo")
    assert res.n_failed > 0
    return db, res


def test_dataframe_has_one_typed_row_per_evaluation(stored: tuple[str, iso.Result]) -> None:
    _, res = stored
    df = res.to_dataframe()
    assert list(df.columns) == ["number", "batch", "params_lr", "params_depth", "params_act",
                                "value", "state", "error", "datetime_start",
                                "datetime_complete", "duration"]  # fmt: skip
    assert len(df) == 16 and df["number"].tolist() == list(range(16))
    assert df["params_depth"].dtype == np.int64 and df["params_lr"].dtype == np.float64
    assert df["params_act"].dtype == object
    for c, lr, depth, act in zip(res.x_iters, df["params_lr"], df["params_depth"],
                                 df["params_act"]):  # fmt: skip
        assert lr == c["lr"] and depth == c["depth"] and act is c["act"]
    failed = df[df["state"] == "failed"]
    assert len(failed) == res.n_failed and (failed["params_depth"] == 6).all()
    assert failed["value"].isna().all() and failed["error"].str.contains("too deep").all()
    done = df[df["state"] == "complete"]
    np.testing.assert_array_equal(done["value"], res.func_vals[np.isfinite(res.func_vals)])
    assert done["error"].isna().all()
    assert (df["datetime_complete"] >= df["datetime_start"]).all()
    assert (df["duration"] == df["datetime_complete"] - df["datetime_start"]).all()


def test_what_the_objective_reported_has_its_columns(tmp_path: Path) -> None:
    def f(x: np.ndarray) -> Any:
        return float(x[0]), ({"epochs": 3} if x[0] < 0.5 else {"epochs": 5, "note": "late"})

    res = iso.minimize(f, iso.Box([0], [1]), "sobol", budget=4, seed=0)
    df = res.to_dataframe()
    assert df["info_epochs"].tolist() == [i["epochs"] for i in res.infos]
    assert df["info_note"].isna().tolist() == ["note" not in i for i in res.infos]
    assert set(df["info_note"].dropna()) == {"late"}


def test_box_columns_are_named_by_its_dimensions(tmp_path: Path) -> None:
    box = iso.Box([0, -1], [1, 1], names=["width", "shift"])
    res = iso.minimize(lambda x: float(x.sum()), box, "sobol", budget=4, batch_size=2,
                       storage=str(tmp_path / "b.db"), study="b")  # fmt: skip
    df = iso.load(tmp_path / "b.db", "b").to_dataframe()
    np.testing.assert_array_equal(df[["params_width", "params_shift"]], res.x_iters)
    assert df["batch"].tolist() == [0, 0, 1, 1]


def test_load_reads_without_writing(stored: tuple[str, iso.Result]) -> None:
    db, res = stored
    before = hashlib.sha256(Path(db).read_bytes()).hexdigest()
    loaded = iso.load(db, "hpo", space=space())
    assert hashlib.sha256(Path(db).read_bytes()).hexdigest() == before
    assert loaded.x_iters == res.x_iters and loaded.fun == res.fun
    pd.testing.assert_frame_equal(loaded.to_dataframe(), res.to_dataframe())


def test_load_without_the_space_gives_non_json_choices_as_stored(
    stored: tuple[str, iso.Result],
) -> None:
    db, res = stored
    loaded = iso.load(db, "hpo")
    assert loaded.space == iso.Space.from_dict(space().to_dict())
    for mine, theirs in zip(loaded.x_iters, res.x_iters):
        assert mine["act"] == ("Opaque()" if theirs["act"] is OPAQUE else theirs["act"])
        assert mine["lr"] == theirs["lr"] and mine["depth"] == theirs["depth"]


def test_load_refuses_another_space(stored: tuple[str, iso.Result]) -> None:
    db, _ = stored
    other = iso.Space({"lr": iso.Real(1e-4, 1.0, log=True)})
    with pytest.raises(ValueError, match="not the one study 'hpo' was run with"):
        iso.load(db, "hpo", space=other)


def test_load_names_close_studies_of_a_missing_one(stored: tuple[str, iso.Result]) -> None:
    db, _ = stored
    with pytest.raises(iso.StoreError, match=r"no study 'hpp'.*did you mean 'hpo'"):
        iso.load(db, "hpp")
    with pytest.raises(iso.StoreError, match=r"no study 'zzz'.*it holds 'hpo'"):
        iso.load(db, "zzz")
    with pytest.raises(iso.StoreError, match="no store at"):
        iso.load(Path(db).with_name("missing.db"), "hpo")
    with pytest.raises(TypeError, match="study must be"):
        iso.load(db, 3)  # type: ignore[arg-type]


def test_load_of_an_interrupted_study_has_its_finished_evaluations(tmp_path: Path) -> None:
    calls = {"n": 0}

    def stops(x: np.ndarray) -> float:
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return float(x[0])

    db = str(tmp_path / "i.db")
    with pytest.raises(KeyboardInterrupt):
        iso.minimize(stops, iso.Box([0], [1]), "random", budget=8, storage=db, study="i")
    df = iso.load(db, "i").to_dataframe()
    assert len(df) == 3 and (df["state"] == "complete").all()


def test_space_from_dict_inverts_to_dict() -> None:
    s = iso.Space({"a": iso.Real(0.01, 0.9, logit=True), "k": iso.Integer(2, 64, log=True),
                   "c": iso.Categorical([1, "two", 3.0, None, True])})  # fmt: skip
    assert iso.Space.from_dict(s.to_dict()) == s
    with pytest.raises(ValueError, match="unknown parameter type 'complex'"):
        iso.Space.from_dict({"params": [{"name": "z", "type": "complex"}]})
    with pytest.raises(ValueError, match="not a Space description"):
        iso.Space.from_dict({"params": [{"name": "z", "type": "real"}]})


def test_a_result_without_a_space_says_so() -> None:
    res = iso.Result(x=None, fun=np.nan, x_iters=np.zeros((0, 1)), func_vals=np.zeros(0),
                     status=[], errors=[], wall_times=np.zeros(0), infos=[], method="m",
                     seed=0, study="s", storage=":memory:")  # fmt: skip
    with pytest.raises(ValueError, match="no space"):
        to_dataframe(res)
