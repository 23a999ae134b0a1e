"""Runs with several objectives and constraints: evaluation, store (version 3), resume,
Result."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline.store import Store

BOX = iso.Box([0.0, 0.0], [1.0, 1.0])


def two(x: np.ndarray) -> dict[str, float]:
    """Cost (minimized), gain (maximized) and a constraint x0 + x1 <= 1.5."""
    if x[0] > 0.95:
        return {"cost": float(x[0])}  # malformed: misses outputs
    return {"cost": float(x[0]), "gain": float(x[1] - x[0] ** 2), "c": float(x.sum() - 1.5)}


KW = dict(directions=["minimize", "maximize"], objectives=["cost", "gain"], constraints=["c"])


def test_a_two_objective_constrained_run_gives_rows_front_and_hypervolume() -> None:
    res = iso.optimize(two, BOX, method="random", budget=40, seed=0, **KW)
    assert res.values.shape == (40, 3) and res.output_names == ("cost", "gain", "c")
    bad = [i for i, x in enumerate(res.x_iters) if x[0] > 0.95]
    for i in bad:
        assert res.status[i] == "failed" and "misses output(s) ['gain', 'c']" in res.errors[i]
    ok = [i for i in range(40) if i not in bad]
    np.testing.assert_allclose(res.values[ok], [list(two(res.x_iters[i]).values()) for i in ok])
    np.testing.assert_array_equal(res.feasible, res.values[:, 2] <= 0)
    assert res.x is None and np.isnan(res.fun) and res.feasible_found
    configs, front = res.pareto_front()
    assert len(front) >= 1 and (front[:, 2] <= 0).all()
    hv = res.hypervolume_history()
    assert np.all(np.diff(hv) >= 0) and hv[-1] == res.hypervolume() > 0
    with pytest.raises(ValueError, match="dominates the reference point"):
        res.hypervolume([-1.0, 5.0])


def test_one_constrained_objective_reports_the_best_feasible(
    caplog: pytest.LogCaptureFixture,
) -> None:
    res = iso.optimize(lambda x: {"f": float(x[0]), "c": 0.5 - float(x[0])}, BOX,
                       method="sobol", budget=8, objectives=["f"], constraints=["c"])  # fmt: skip
    feasible = res.values[:, 1] <= 0
    assert res.fun == res.values[feasible, 0].min() and res.feasible_found
    log = iso.progress.get_logger()  # isoline's logger does not propagate to caplog's
    log.addHandler(caplog.handler)
    try:
        never = iso.optimize(lambda x: {"f": 1.0, "c": 1.0}, BOX, method="random", budget=3,
                             objectives=["f"], constraints=["c"])  # fmt: skip
    finally:
        log.removeHandler(caplog.handler)
    assert not never.feasible_found and never.x is None and np.isnan(never.fun)
    assert "no evaluation satisfied every constraint (c <= 0)" in caplog.text


def test_rows_are_stored_and_a_resume_replays_them_exactly(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    kw = dict(method="sobol", seed=1, storage=db, **KW)
    iso.optimize(two, BOX, budget=5, study="s", **kw)
    resumed = iso.optimize(two, BOX, budget=10, study="s", **kw)
    whole = iso.optimize(two, BOX, budget=10, study="w", **kw)
    np.testing.assert_array_equal(resumed.values, whole.values)
    with Store(db, readonly=True) as st:
        trials = st.trials(st.get_study("s"))
    assert all((t.outputs is None) == (t.status == "failed") for t in trials)
    assert all(len(t.outputs) == 3 for t in trials if t.outputs is not None)
    with pytest.raises(iso.StoreError, match="objectives: stored"):
        iso.optimize(two, BOX, budget=10, study="s", method="sobol", seed=1, storage=db,
                     directions=["minimize", "minimize"], objectives=["cost", "gain"],
                     constraints=["c"])  # fmt: skip


def con(x: np.ndarray) -> dict[str, float]:
    return {"f": float(np.sum((x - 0.8) ** 2)), "c": float(x.sum() - 1.0)}


def test_an_adaptive_constrained_run_resumes_exactly(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    kw = dict(method="cobyqa", seed=1, storage=db, objectives=["f"], constraints=["c"])
    iso.optimize(con, BOX, budget=6, study="s", **kw)
    resumed = iso.optimize(con, BOX, budget=12, study="s", **kw)
    whole = iso.optimize(con, BOX, budget=12, study="w", **kw)
    np.testing.assert_array_equal(resumed.values, whole.values)
    np.testing.assert_array_equal(resumed.x_iters, whole.x_iters)


def test_a_version_2_store_migrates_on_first_write(tmp_path: Path) -> None:
    db = str(tmp_path / "old.db")
    iso.minimize(lambda x: float(x.sum()), BOX, method="random", budget=3, storage=db, study="a")
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE trials DROP COLUMN outputs")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'version'")
    with Store(db, readonly=True) as st:
        assert st.version == 2 and st.trials(st.get_study("a"))[0].outputs is None
    iso.optimize(two, BOX, budget=3, study="b", method="random", storage=db, **KW)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()[0] == "3"
    with Store(db, readonly=True) as st:
        assert len(st.trials(st.get_study("b"))[0].outputs) == 3


def test_a_malformed_stored_row_is_refused_naming_the_field(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    iso.optimize(two, BOX, budget=2, study="s", method="random", storage=db, **KW)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE trials SET outputs = '[1, \"x\"]' WHERE number = 1")
    with Store(db, readonly=True) as st, pytest.raises(iso.StoreError, match="trial 1.*outputs"):
        st.trials(st.get_study("s"))


def test_the_dataframe_has_a_column_per_output_feasibility_and_the_front() -> None:
    pytest.importorskip("pandas")
    res = iso.optimize(two, BOX, method="random", budget=8, seed=0, **KW)
    df = res.to_dataframe()
    np.testing.assert_array_equal(df["values_gain"], res.values[:, 1])
    np.testing.assert_array_equal(df["feasible"], res.feasible)
    assert sorted(np.flatnonzero(df["pareto"])) == sorted(res.objective.pareto_indices(res.values))


def test_the_several_output_plots_draw() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from isoline.visualization import (
        plot_feasibility,
        plot_hypervolume_history,
        plot_pareto_front,
    )

    res = iso.optimize(two, BOX, method="random", budget=10, seed=0, **KW)
    ax = plot_pareto_front(res).axes[0]
    front = [c for c in ax.get_children() if c.get_gid() == "front"][0]
    assert len(front.get_xdata()) == len(res.pareto_front()[1])
    line = plot_hypervolume_history(res).axes[0].get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), res.hypervolume_history())
    share = [c for c in plot_feasibility(res).axes[0].get_lines() if c.get_gid() == "share"][0]
    assert share.get_ydata()[-1] == res.feasible.mean()
    with pytest.raises(ValueError, match="two objectives"):
        plot_pareto_front(iso.optimize(lambda x: float(x[0]), BOX, method="random", budget=2))
    with pytest.raises(ValueError, match="distinct"):
        plot_pareto_front(res, objectives=(1, 1))


def test_a_front_of_three_objectives_is_drawn_as_points_in_every_pair() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from isoline.visualization import plot_pareto_front

    def three(x: np.ndarray) -> list[float]:
        return [float(x[0]), float(x[1]), float(2.0 - x[0] - x[1])]

    res = iso.optimize(three, BOX, directions=["minimize"] * 3, method="random", budget=8, seed=0)
    panels = [a for a in plot_pareto_front(res).axes if a.get_visible()]
    pairs = [(a.get_xlabel().split()[0], a.get_ylabel().split()[0]) for a in panels]
    assert pairs == [("value_0", "value_1"), ("value_0", "value_2"), ("value_1", "value_2")]
    for a in panels:
        front = [c for c in a.get_children() if c.get_gid() == "front"][0]
        assert front.get_linestyle() == "None"  # a projected front is no staircase
        assert len(front.get_xdata()) == len(res.pareto_front()[1])


def test_the_study_report_draws_the_front_hypervolume_and_feasibility(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from isoline.visualization import write_study_report

    res = iso.optimize(two, BOX, method="random", budget=10, seed=0, **KW)
    text = write_study_report(res, tmp_path / "r").read_text()
    for stem in ("pareto_front", "hypervolume", "feasibility"):
        assert f"![{stem}]({stem}.png)" in text and (tmp_path / "r" / f"{stem}.png").exists()


def test_the_study_summary_lists_the_front_or_the_best_feasible(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from isoline.visualization import write_study_report

    res = iso.optimize(two, BOX, method="random", budget=10, seed=0, **KW)
    text = write_study_report(res, tmp_path / "two").read_text()
    front = res.pareto_front()[1]
    assert "best value" not in text and "objectives: cost (minimize), gain (maximize)" in text
    assert len(front) > 1 and f"- Pareto front: {len(front)} evaluations" in text
    ref = ", ".join(f"{v:.6g}" for v in res.reference_point)
    assert (
        f"- hypervolume: {res.hypervolume():.6g} against the reference point [{ref}] (inferred)"
        in text
    )
    assert f"- feasible: {int(res.feasible.sum())} of 10 evaluations" in text
    table = text.split("| trial | cost | gain |")[1].split("## Plots")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == len(front)
    one = iso.optimize(lambda x: {"f": float(x[0]), "c": float(0.5 - x[1])}, BOX,
                       method="random", budget=8, seed=1, objectives=["f"], constraints=["c"])  # fmt: skip
    text = write_study_report(one, tmp_path / "one").read_text()
    assert f"- best feasible value: {one.fun:.6g}" in text


@pytest.mark.parametrize("drawn", [(0, 1), (1, 0)])
def test_the_drawn_front_passes_only_through_points_the_front_attains(drawn: tuple) -> None:
    """Each corner of the front's staircase is weakly dominated by a front point, whether
    the objective on the x axis is minimized (cost) or maximized (gain)."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.cbook import STEP_LOOKUP_MAP

    from isoline.visualization import plot_pareto_front

    def trade(x: np.ndarray) -> dict[str, float]:  # more gain costs more
        return {"cost": float(x[0]), "gain": float(x[0] + 0.3 * x[1]), "c": float(x[1] - 0.9)}

    res = iso.optimize(trade, BOX, method="random", budget=30, seed=0, **KW)
    i, j = drawn
    line = next(c for c in plot_pareto_front(res, objectives=drawn).axes[0].get_children()
                if c.get_gid() == "front")  # fmt: skip
    xs, ys = STEP_LOOKUP_MAP[line.get_drawstyle()](line.get_xdata(), line.get_ydata())
    sign = np.where(np.array(res.directions) == "maximize", -1.0, 1.0)[[i, j]]
    front = res.pareto_front()[1][:, [i, j]] * sign  # minimized
    assert len(front) >= 3
    for corner in np.column_stack([xs, ys]) * sign:
        assert np.any(np.all(front <= corner + 1e-12, axis=1)), corner


def test_the_progress_bar_shows_the_best_feasible_value() -> None:
    """An infeasible evaluation with a better value is not the bar's best; before any
    feasible one the bar shows no best."""
    from isoline.progress import Progress

    spec = iso.Objective("maximize", ["f"], ["c"])
    bar = Progress(True, 3, 0, "s", spec)
    try:
        shown = lambda: bar.bar.tasks[0].fields["best"]  # noqa: E731
        bar.advance(9.0, np.array([9.0, 1.0]))  # infeasible
        assert "9" not in shown()
        bar.advance(2.0, np.array([2.0, 0.0]))  # feasible (a constraint at 0)
        bar.advance(5.0, np.array([5.0, 0.5]))  # infeasible
        assert shown() == "best 2"
    finally:
        bar.close()


def test_a_resumed_run_shows_the_best_of_its_stored_evaluations_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import isoline.run_loop
    from isoline.progress import Progress

    bars: list[Progress] = []

    class Kept(Progress):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            bars.append(self)

    monkeypatch.setattr(isoline.run_loop, "Progress", Kept)
    calls = iter(range(1, 100))  # each evaluation worse than the one before
    kw = dict(method="random", seed=0, storage=str(tmp_path / "s.db"), study="s", progress=True)
    iso.optimize(lambda x: float(next(calls)), BOX, budget=3, **kw)  # type: ignore[arg-type]
    res = iso.optimize(lambda x: float(next(calls)), BOX, budget=6, **kw)  # type: ignore[arg-type]
    assert res.fun == 1.0 and bars[-1].best == 1.0


def test_every_entry_point_takes_a_whole_objective_specification() -> None:
    spec = iso.Objective("minimize", ["f"], ["c"])

    def f(x: np.ndarray) -> dict[str, float]:
        return {"f": float(x[0]), "c": 0.5 - float(x[0])}

    via_optimize = iso.optimize(f, BOX, objective=spec, method="sobol", budget=6)
    kws = ({"objective": spec}, {"direction": spec}, {"objectives": ["f"], "constraints": ["c"]})
    for kw in kws:
        res = iso.minimize(f, BOX, method="sobol", budget=6, **kw)  # type: ignore[arg-type]
        assert res.output_names == ("f", "c")
        np.testing.assert_array_equal(res.values, via_optimize.values)
    with pytest.raises(ValueError, match="objective= or the direction keywords, not both"):
        iso.optimize(f, BOX, objective=spec, direction="minimize", budget=3)
    with pytest.raises(ValueError, match="minimizes one objective"):
        iso.minimize(f, BOX, budget=3, objective=iso.Objective("maximize", ["f"], ["c"]))
    with pytest.raises(ValueError, match="minimizes one objective"):
        iso.minimize(f, BOX, budget=3, directions=["minimize", "minimize"])


def test_a_one_point_front_is_one_evaluation(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from isoline.visualization import write_study_report

    def aligned(x: np.ndarray) -> list[float]:  # both objectives fall together: one front point
        return [float(x[0]), 2.0 * float(x[0])]

    res = iso.optimize(aligned, BOX, directions=["minimize", "minimize"], method="sobol", budget=6)
    assert len(res.pareto_front()[1]) == 1
    assert "- Pareto front: 1 evaluation\n" in write_study_report(res, tmp_path / "one").read_text()


def _two(x: np.ndarray) -> list[float]:
    return [float(np.sum(x**2)), float(np.sum((x - 1.0) ** 2))]


def test_auto_starts_several_objectives_at_the_centre_and_resumes_with_it(tmp_path) -> None:
    box = iso.Box([-1.0, 0.0], [3.0, 2.0])
    two = ["minimize", "minimize"]
    opt = iso.Optimizer(box, directions=two, seed=0)
    assert opt.design == {"n_init": None, "init": "centre"}
    np.testing.assert_array_equal(opt.ask()[0], [1.0, 1.0])
    given = iso.Optimizer(box, directions=two, seed=0, init="sobol")  # the user's wins
    assert given.design["init"] == "sobol" and not np.allclose(given.ask()[0], [1.0, 1.0])
    db = str(tmp_path / "runs.db")
    first = iso.optimize(_two, box, directions=two, budget=2, seed=1, storage=db, study="s")
    longer = iso.optimize(_two, box, directions=two, budget=8, seed=1, storage=db, study="s")
    np.testing.assert_array_equal(longer.x_iters[:2], first.x_iters)  # within the design
    straight = iso.optimize(_two, box, method="gp-ei", directions=two, budget=8, seed=1,
                            **dict(iso.auto.OBJECTIVES_OPTIONS))  # fmt: skip
    np.testing.assert_array_equal(longer.x_iters, straight.x_iters)
