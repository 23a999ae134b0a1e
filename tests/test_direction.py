"""Directions: ``iso.optimize(..., direction="maximize")``, the Optimizer's direction, the
study's record of it, and what a resume says and refuses."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline.bench.config import parse_config
from isoline.store import Store, StoreError


def peak(x: np.ndarray) -> float:
    """Largest (0) at x = 0.3 in every coordinate."""
    return -float(np.sum((np.asarray(x) - 0.3) ** 2))


def other(x: np.ndarray) -> float:
    return -float(np.sum((np.asarray(x) - 0.3) ** 2))


BOX = iso.Box([-1.0, -1.0], [1.0, 1.0])


class Messages(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def text(self, level: int) -> str:
        return "\n".join(r.getMessage() for r in self.records if r.levelno == level)


@pytest.fixture
def messages() -> Iterator[Messages]:
    log = iso.progress.get_logger()
    h = Messages()
    log.addHandler(h)
    level = log.level
    try:
        yield h
    finally:
        log.removeHandler(h)
        log.setLevel(level)


def test_maximize_finds_the_maximum_and_reports_it() -> None:
    res = iso.optimize(peak, BOX, direction="maximize", method="cobyqa", budget=30, seed=0)
    assert res.direction == "maximize"
    assert res.fun == np.nanmax(res.func_vals)
    assert res.fun > -1e-3
    np.testing.assert_allclose(res.x, [0.3, 0.3], atol=0.05)
    best = res.best_so_far()
    assert np.all(np.diff(best) >= 0) and best[-1] == res.fun
    # the values are the objective's own, not their negatives
    np.testing.assert_array_equal(res.func_vals, [peak(x) for x in res.x_iters])


def test_maximize_is_minimize_of_the_negated_objective() -> None:
    up = iso.optimize(peak, BOX, direction="MAXIMIZE", method="gp-ei", budget=8, seed=1)
    down = iso.minimize(lambda x: -peak(x), BOX, method="gp-ei", budget=8, seed=1)
    np.testing.assert_array_equal(up.x_iters, down.x_iters)
    np.testing.assert_array_equal(up.func_vals, -down.func_vals)


def test_a_maximized_study_records_its_direction_and_resumes_exactly(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    kw = dict(direction="maximize", method="bkop", batch_size=3, seed=2, storage=db)
    iso.optimize(peak, BOX, budget=6, study="s", **kw)
    resumed = iso.optimize(peak, BOX, budget=12, study="s", **kw)
    whole = iso.optimize(peak, BOX, budget=12, study="whole", **kw)
    np.testing.assert_array_equal(resumed.func_vals, whole.func_vals)
    assert resumed.fun == np.nanmax(whole.func_vals) == whole.fun
    with Store(db) as store:
        rec = store.get_study("s")
        assert rec is not None and rec.attrs["objective"] == {"direction": "maximize"}
        assert rec.direction == "maximize" and rec.directions == ("maximize",)
        assert store.get_study("whole").direction == "maximize"
        stored = [t.y for t in store.trials(rec)]
    np.testing.assert_array_equal(stored, resumed.func_vals)
    loaded = iso.Result.from_trials(rec, store_trials(db, "s"), db)
    assert loaded.direction == "maximize" and loaded.fun == resumed.fun
    np.testing.assert_array_equal(loaded.x, resumed.x)


def store_trials(db: str, name: str) -> list[iso.store.Trial]:
    with Store(db) as store:
        rec = store.get_study(name)
        assert rec is not None
        return store.trials(rec)


def test_resuming_in_the_other_direction_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    iso.optimize(peak, BOX, direction="maximize", method="random", budget=3, storage=db, study="s")
    with pytest.raises(StoreError, match="direction: stored 'maximize', given 'minimize'"):
        iso.minimize(peak, BOX, method="random", budget=5, storage=db, study="s")
    # a study stored before directions (no record) minimizes
    iso.minimize(peak, BOX, method="random", budget=3, storage=db, study="old")
    with pytest.raises(StoreError, match="direction: stored 'minimize', given 'maximize'"):
        iso.optimize(peak, BOX, direction="maximize", method="random", budget=5, storage=db,
                     study="old")  # fmt: skip


@pytest.mark.parametrize(
    ("direction", "error", "text"),
    [("max", ValueError, "'minimize' or 'maximize', got 'max'"),
     (1, TypeError, "'minimize' or 'maximize', got 1"),
     (None, TypeError, "got None")],
)  # fmt: skip
def test_a_bad_direction_is_named_before_anything_runs(direction, error, text) -> None:
    with pytest.raises(error, match=text):
        iso.optimize(peak, BOX, direction=direction, budget=3)
    with pytest.raises(error, match=text):
        iso.Optimizer(BOX, "random", direction=direction)
    with pytest.raises(ValueError, match=text):
        parse_config({"budget": 3, "methods": ["random"], "problems": ["ackley"],
                      "direction": direction})  # fmt: skip


def test_minimize_does_not_maximize() -> None:
    with pytest.raises(ValueError, match="minimize\\(\\) minimizes"):
        iso.minimize(peak, BOX, budget=3, direction="maximize")


def test_the_optimizer_takes_and_gives_values_in_its_direction() -> None:
    opt = iso.Optimizer(BOX, "gp-ei", seed=0, direction="maximize")
    assert opt.direction == "maximize"
    for _ in range(6):
        X = opt.ask()
        opt.tell(X, [peak(x) for x in X])
    X, y = opt.history
    np.testing.assert_array_equal(y, [peak(x) for x in X])
    assert opt.best is not None and opt.best[1] == y.max()
    np.testing.assert_array_equal(opt.best[0], X[int(np.argmax(y))])


def test_auto_takes_a_direction_and_an_explicit_budget() -> None:
    res = iso.optimize(peak, BOX, direction="maximize", budget=4, seed=0)
    assert res.choice is not None and res.choice.rule == "design-only"
    opt = iso.Optimizer(BOX, direction="maximize", budget=4)
    assert opt.choice is not None and opt.choice.rule == "design-only"


def test_a_bench_config_maximizes(tmp_path: Path) -> None:
    cfg = parse_config({"budget": 3, "methods": ["random"], "problems": [{"name": "ackley",
                        "dim": 2}], "direction": "Maximize"})  # fmt: skip
    assert cfg.direction == "maximize" and all(r.direction == "maximize" for r in cfg.runs())


def test_resuming_says_so(tmp_path: Path, messages: Messages) -> None:
    db = str(tmp_path / "s.db")
    iso.minimize(peak, BOX, method="random", budget=3, storage=db, study="s")
    assert "resuming" not in messages.text(logging.INFO)
    iso.minimize(peak, BOX, method="random", budget=5, storage=db, study="s")
    assert "resuming study 's': 3 stored evaluations" in messages.text(logging.INFO)
    iso.set_verbosity("warning")
    messages.records.clear()
    iso.minimize(peak, BOX, method="random", budget=6, storage=db, study="s")
    assert messages.text(logging.INFO) == ""


def test_resuming_with_another_objective_warns(tmp_path: Path, messages: Messages) -> None:
    db = str(tmp_path / "s.db")
    iso.minimize(peak, BOX, method="random", budget=3, storage=db, study="s")
    iso.minimize(peak, BOX, method="random", budget=4, storage=db, study="s")
    assert messages.text(logging.WARNING) == ""
    iso.minimize(other, BOX, method="random", budget=5, storage=db, study="s")
    text = messages.text(logging.WARNING)
    assert "test_direction.peak, not test_direction.other" in text


def test_a_bad_verbosity_is_named() -> None:
    with pytest.raises(ValueError, match="verbosity must be one of"):
        iso.set_verbosity("loud")
    with pytest.raises(TypeError, match="verbosity"):
        iso.set_verbosity(1.5)  # type: ignore[arg-type]


def test_box_and_space_share_the_space_protocol() -> None:
    space = iso.Space({"a": iso.Real(0, 1), "k": iso.Integer(1, 3)})
    for s in (BOX, space):
        assert isinstance(s, iso.SearchSpace)
        P = s.from_unit(np.full((2, s.dim), 0.5))
        np.testing.assert_allclose(s.unit(s.points(P)), np.full((2, s.dim), 0.5))
        assert s.key(P[0]) == s.key(s.copy_point(P[0]))
    assert not BOX.discrete and space.discrete and BOX.method_space is None
    with pytest.raises(ValueError, match="outside the search box"):
        BOX.points([[2.0, 0.0]])
