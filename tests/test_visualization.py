"""isoline.visualization on a real stored study: the drawn artists hold the study's data."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest

import isoline as iso
from isoline.visualization import (
    param_importances,
    plot_contour,
    plot_history,
    plot_parallel_coordinates,
    plot_param_importances,
    plot_slice,
    write_study_report,
)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def space() -> iso.Space:
    return iso.Space({
        "lr": iso.Real(1e-4, 1.0, log=True),
        "depth": iso.Integer(1, 5),
        "act": iso.Categorical(["relu", "tanh"]),
    })  # fmt: skip


def objective(c: dict[str, Any]) -> float:
    """Driven by lr (values spanning decades), a little by depth, not by act; fails at
    depth 5."""
    if c["depth"] == 5:
        return float("nan")
    return float(10 ** (2 * abs(np.log10(c["lr"]) + 2)) + 0.01 * c["depth"])


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> iso.Result:
    db = str(tmp_path_factory.mktemp("viz") / "runs.db")
    iso.minimize(objective, space(), "random", budget=30, seed=3, storage=db, study="hpo")
    return iso.load(db, "hpo")


@pytest.fixture(autouse=True)
def _close_figures() -> Any:
    yield
    plt.close("all")


def _by_gid(ax: Any, gid: str) -> Any:
    (artist,) = [a for a in ax.get_children() if a.get_gid() == gid]
    return artist


def test_history_draws_every_value_the_best_so_far_and_the_failures(study: iso.Result) -> None:
    fig = plot_history(study)
    (ax,) = fig.axes
    n = np.arange(1, study.n_evals + 1)
    ok = np.isfinite(study.func_vals)
    np.testing.assert_array_equal(_by_gid(ax, "values").get_offsets(),
                                  np.column_stack([n[ok], study.func_vals[ok]]))  # fmt: skip
    best = _by_gid(ax, "best")
    np.testing.assert_array_equal(best.get_ydata(), study.best_so_far())
    assert study.n_failed > 0
    np.testing.assert_array_equal(_by_gid(ax, "failed").get_offsets()[:, 0], n[~ok])
    assert ax.get_yscale() == "log"  # the values span decades


def test_history_is_linear_for_values_in_one_decade_and_shows_regret(study: iso.Result) -> None:
    flat = iso.minimize(lambda x: float(x[0]) + 1, iso.Box([0], [1]), "random", budget=5)
    assert plot_history(flat).axes[0].get_yscale() == "linear"
    ax = plot_history(flat, optimum=1.0, log=True).axes[0]
    np.testing.assert_allclose(_by_gid(ax, "best").get_ydata(), flat.best_so_far() - 1.0)
    assert ax.get_yscale() == "log" and "regret" in ax.get_ylabel()
    with pytest.raises(ValueError, match="no evaluation"):
        plot_history(iso.load(*_empty_study(flat)))


def _empty_study(res: iso.Result) -> tuple[iso.Store, str]:
    store = iso.Store(":memory:")
    store.create_study("empty", "random", 0, 1, {}, iso.Box([0], [1]).to_dict(), 3)
    return store, "empty"


def test_result_plot_uses_the_history_plot(study: iso.Result) -> None:
    ax = study.plot(label="mine")
    assert _by_gid(ax, "best").get_label() == "mine"
    fig, own = plt.subplots()
    assert study.plot(ax=own) is own and len(own.lines) == 1


def test_slice_places_each_evaluation_at_its_parameter_values(study: iso.Result) -> None:
    fig = plot_slice(study)
    df = study.to_dataframe()
    ok = df[np.isfinite(df["value"])]
    lr, depth, act = fig.axes[:3]
    np.testing.assert_array_equal(_by_gid(lr, "lr").get_offsets(),
                                  np.column_stack([ok["params_lr"], ok["value"]]))  # fmt: skip
    np.testing.assert_array_equal(_by_gid(depth, "depth").get_offsets()[:, 0], ok["params_depth"])
    codes = [["relu", "tanh"].index(a) for a in ok["params_act"]]
    np.testing.assert_array_equal(_by_gid(act, "act").get_offsets()[:, 0], codes)
    assert [t.get_text() for t in act.get_xticklabels()] == ["relu", "tanh"]
    assert lr.get_xscale() == "log" and depth.get_xscale() == "linear"
    assert f"{len(ok)} finished, {study.n_failed} failed" in fig.texts[0].get_text()
    fig.canvas.draw()
    assert depth.get_shared_y_axes().joined(lr, depth)  # one value axis, labelled once
    assert any(t.get_visible() for t in lr.get_yticklabels())
    assert not any(t.get_visible() for t in depth.get_yticklabels())


def test_slice_says_when_a_parameter_is_active_in_no_finished_evaluation(tmp_path: Path) -> None:
    space = iso.Space({"kind": iso.Categorical(["a", "b"]), "w": iso.Real(0, 1)},
                      conditions={"w": {"kind": "b"}})  # fmt: skip

    def fails_for_b(c: dict[str, Any]) -> float:
        if c["kind"] == "b":
            raise ValueError("b fails")
        return 1.0

    db = str(tmp_path / "s.db")
    iso.minimize(fails_for_b, space, method="random", budget=8, seed=0, storage=db, study="s")
    kind, w = plot_slice(iso.load(db, "s")).axes[:2]
    assert [t.get_text() for t in w.texts] == ["inactive in every\nfinished evaluation"]
    assert not kind.texts


def test_parallel_coordinates_draw_one_line_per_finished_evaluation(study: iso.Result) -> None:
    fig = plot_parallel_coordinates(study, params=["act", "lr"])
    ax = fig.axes[0]
    segments = _by_gid(ax, "evaluations").get_segments()
    ok = study.to_dataframe().query("state == 'complete'")
    assert len(segments) == len(ok)
    v = ok["value"].to_numpy()
    expected = {
        (
            round((val - v.min()) / (v.max() - v.min()), 9),
            ["relu", "tanh"].index(act),
            round((np.log(lr) - np.log(1e-4)) / (np.log(1.0) - np.log(1e-4)), 9),
        )
        for val, act, lr in zip(v, ok["params_act"], ok["params_lr"])
    }
    drawn = {(round(s[0, 1], 9), s[1, 1], round(s[2, 1], 9)) for s in segments}
    assert drawn == expected
    assert segments[-1][0, 1] == 0.0  # the best (lowest) value is drawn last, on top
    assert [t.get_text() for t in ax.get_xticklabels()] == ["value", "act", "lr"]


def test_importance_ranks_the_parameter_that_drives_the_value_first(study: iso.Result) -> None:
    shares = param_importances(study)
    assert list(shares)[0] == "lr" and set(shares) == {"lr", "depth", "act"}
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["lr"] > 0.8
    assert param_importances(study) == shares  # seeded
    ax = plot_param_importances(study).axes[0]
    (bars,) = ax.containers
    widths = {t.get_text(): b.get_width() for t, b in zip(ax.get_yticklabels(), bars)}
    assert widths == pytest.approx(shares)


def test_contour_fits_the_two_most_important_parameters(study: iso.Result) -> None:
    fig = plot_contour(study)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "lr" and ax.get_xscale() == "log"
    ok = study.to_dataframe().query("state == 'complete'")
    points = _by_gid(ax, "evaluations").get_offsets()
    np.testing.assert_allclose(points[:, 0], ok["params_lr"])
    best = ok.loc[ok["value"].idxmin()]
    np.testing.assert_allclose(_by_gid(ax, "best").get_offsets()[0, 0], best["params_lr"])
    surface = _by_gid(ax, "mean")
    # the fitted mean spans the values: the lowest level lies below the median value
    assert surface.levels[0] < np.median(ok["value"]) < surface.levels[-1]
    fig = plot_contour(study, params=["act", "depth"])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["relu", "tanh"]


def test_plots_name_what_they_cannot_draw(study: iso.Result, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'width' is not a parameter.*'lr', 'depth', 'act'"):
        plot_slice(study, params=["width"])
    with pytest.raises(ValueError, match="shows two parameters; params names 3"):
        plot_contour(study, params=["lr", "depth", "act"])
    with pytest.raises(ValueError, match="names a parameter twice"):
        plot_parallel_coordinates(study, params=["lr", "lr"])
    one = iso.minimize(lambda x: float(x[0]), iso.Box([0], [1]), "random", budget=3)
    with pytest.raises(ValueError, match="needs two parameters; the space has one"):
        plot_contour(one)
    with pytest.raises(ValueError, match="at least 5 finished evaluations.*has 3"):
        param_importances(one)
    fig = plot_parallel_coordinates(one)  # one parameter: two axes
    assert len(_by_gid(fig.axes[0], "evaluations").get_segments()) == 3


def test_study_report_draws_every_plot_and_summarizes(study: iso.Result, tmp_path: Path) -> None:
    path = write_study_report(study, tmp_path / "report", command="isoline report x hpo")
    text = path.read_text()
    for stem in ("history", "slice", "parallel_coordinates", "importances", "contour"):
        assert (tmp_path / "report" / f"{stem}.png").stat().st_size > 0
        assert f"![{stem}]({stem}.png)" in text
    assert f"evaluations: 30 ({study.n_failed} failed)" in text
    assert f"best value: {study.fun:.6g}" in text and "direction: minimize" in text
    assert len((tmp_path / "report" / "evaluations.csv").read_text().splitlines()) == 31
    one = iso.minimize(lambda x: float(x[0]), iso.Box([0], [1]), "random", budget=3)
    text = write_study_report(one, tmp_path / "one").read_text()
    assert "- contour: not drawn: a contour plot needs two parameters" in text
    assert "- importances: not drawn:" in text and "![history](history.png)" in text


def test_cli_report_of_one_study(tmp_path: Path, capsys: Any) -> None:
    from isoline.cli import main

    db, out = str(tmp_path / "runs.db"), tmp_path / "cli"
    iso.minimize(lambda x: float(x[0]), iso.Box([0], [1]), "random", budget=3, storage=db,
                 study="one")  # fmt: skip
    assert main(["report", db, "one", "--out", str(out)]) == 0
    assert "report of study 'one' written to" in capsys.readouterr().out
    assert "evaluations: 3 (0 failed)" in (out / "summary.md").read_text()
    assert (out / "history.png").exists()
    assert main(["report", db, "onr", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no study 'onr'" in err and "did you mean 'one'" in err
    assert main(["report", db, "--out", str(tmp_path / "only")]) == 0  # the store's one study
    assert "report of study 'one' written to" in capsys.readouterr().out
    assert (tmp_path / "only" / "summary.md").exists()
    iso.minimize(lambda x: float(x[0]), iso.Box([0], [1]), "random", budget=2, storage=db,
                 study="two")  # fmt: skip
    assert main(["report", db, "--out", str(out)]) == 2
    assert "holds 2 studies: name the study to report" in capsys.readouterr().err
    assert main(["report", db, "one", "--seeds", "0"]) == 2
    assert "--seeds and --problems select" in capsys.readouterr().err


def test_a_maximized_study_is_drawn_best_highest(study: iso.Result, tmp_path: Path) -> None:
    res = copy.copy(study)
    res.direction = "maximize"  # as iso.optimize(..., direction="maximize") records it
    ok = res.to_dataframe().query("state == 'complete'")
    top = ok.loc[ok["value"].idxmax()]
    segments = _by_gid(plot_parallel_coordinates(res).axes[0], "evaluations").get_segments()
    assert segments[-1][0, 1] == 1.0  # the highest value is drawn last, on top
    star = _by_gid(plot_contour(res, params=["lr", "depth"]).axes[0], "best").get_offsets()
    np.testing.assert_allclose(star[0], [top["params_lr"], top["params_depth"]])
    ax = plot_history(res, optimum=1e9).axes[0]
    np.testing.assert_allclose(_by_gid(ax, "values").get_offsets()[:, 1], 1e9 - ok["value"])
    assert "(maximize)" in ax.get_ylabel()
    text = write_study_report(res, tmp_path / "max").read_text()
    assert f"best value: {top['value']:.6g} (trial {top['number']})" in text


def test_the_contour_star_marks_the_best_feasible_evaluation() -> None:
    """With constraints the star is the best feasible evaluation, not the lowest value
    (here infeasible); with nothing feasible there is no star."""
    box = iso.Box([0.0, 0.0], [1.0, 1.0])

    def run(limit: float) -> iso.Result:
        return iso.optimize(lambda x: {"f": float(x.sum()), "c": float(limit - x.sum())}, box,
                            method="random", budget=12, seed=0, objectives=["f"],
                            constraints=["c"])  # fmt: skip

    res = run(0.8)
    assert res.feasible_found and not res.feasible.all()
    assert np.nanargmin(res.values[:, 0]) not in np.flatnonzero(res.feasible)
    star = _by_gid(plot_contour(res).axes[0], "best").get_offsets()
    np.testing.assert_allclose(star[0], res.x)
    none = run(5.0)
    assert not none.feasible_found
    ax = plot_contour(none).axes[0]
    assert not [a for a in ax.get_children() if a.get_gid() == "best"]
    # the parallel coordinates draw the best feasible evaluation last, on top
    top = _by_gid(plot_parallel_coordinates(res).axes[0], "evaluations").get_segments()[-1]
    np.testing.assert_allclose(top[1:, 1], res.x)  # the box is the unit square
