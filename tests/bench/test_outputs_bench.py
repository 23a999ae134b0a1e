"""Field benchmarks with several outputs: the runner hands the problem's objective to
isoline and the peers, refuses contenders that cannot take it before any run, and the
summary ranks hypervolumes and best feasible values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from isoline.bench.config import ConfigError, parse_config
from isoline.bench.outputs import constrained_cells, hypervolume_cells, kind_of
from isoline.bench.report import RunData, collect
from isoline.bench.runner import make_problem, run_bench
from isoline.objective import Objective

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "field.py"

MO = {"name": "mo", "budget": 4, "seeds": 2,
      "methods": ["random", {"name": "optuna-tpe", "label": "Optuna TPE"},
                  {"name": "optuna-nsga2", "label": "NSGA-II"}],
      "problems": [{"name": "branin-currin"}]}  # fmt: skip
CON = {"name": "con", "budget": 4, "seeds": 2,
       "methods": ["random", {"name": "optuna-tpe", "label": "Optuna TPE"}],
       "problems": [{"name": "ackley-constrained", "dim": 2}]}  # fmt: skip


def test_runs_store_every_output_and_peers_get_the_specification(tmp_path: Path) -> None:
    cfg = parse_config(MO)
    db = str(tmp_path / "mo.db")
    out = run_bench(cfg, db, workers=1, progress=False)
    assert all(s.error is None and s.n_evals == 4 for s in out)
    runs = collect(cfg, db)
    assert kind_of(runs) == "multi-objective" and len(runs) == 6
    problem = make_problem(runs[0].spec)
    for r in runs:
        assert r.outputs is not None and r.outputs.shape == (4, 2)
        assert r.objective == problem.objective
    t = hypervolume_cells(cfg, runs, make_problem)
    assert t.cells == [("branin-currin", 0), ("branin-currin", 1)]
    for i, (_, seed) in enumerate(t.cells):
        for j, label in enumerate(t.labels):
            (r,) = [r for r in runs if r.spec.seed == seed and r.spec.method.label == label]
            hv = problem.objective.hypervolume(r.outputs, problem.ref_point)
            assert t.shown[i, j] == hv
            assert t.stat[i, j] == pytest.approx(np.log10(problem.max_hypervolume - hv))


def test_contenders_that_cannot_take_the_specification_are_refused_before_any_run(
    tmp_path: Path,
) -> None:
    bad = dict(CON, methods=["random", "gibo", {"name": "smac-hpo", "label": "SMAC"}])
    with pytest.raises(ConfigError) as err:
        run_bench(parse_config(bad), str(tmp_path / "x.db"), workers=1, progress=False)
    text = str(err.value)
    assert "'gibo' handles one objective without constraints" in text
    assert "'smac-hpo' handles up to" in text and "for constraints use one of" in text
    assert not (tmp_path / "x.db").exists()
    with pytest.raises(ConfigError, match="gives its own objectives"):
        run_bench(parse_config(dict(CON, direction="maximize")), str(tmp_path / "y.db"),
                  workers=1, progress=False)  # fmt: skip


def _run(spec: object, outputs: list[list[float]]) -> RunData:
    Y = np.array(outputs, dtype=float)
    objective = Objective("minimize", ["f"], ["c"])
    values = np.where(objective.feasible(Y), Y[:, 0], np.nan)
    return RunData(spec, values, 0.0, 0, None, objective=objective, outputs=Y)  # type: ignore[arg-type]


def test_constrained_cells_rank_runs_without_a_feasible_point_last() -> None:
    cfg = parse_config(dict(CON, seeds=1, budget=2,
                            methods=["random", "sobol", {"name": "optuna-tpe", "label": "T"}]))  # fmt: skip
    a, b, c = cfg.runs()
    runs = [_run(a, [[3.0, -1.0], [1.0, 2.0]]),  # best feasible 3
            _run(b, [[5.0, 1.0], [0.5, 0.1]]),  # never feasible
            _run(c, [[2.5, 0.0], [9.0, -3.0]])]  # fmt: skip
    t = constrained_cells(cfg, runs, make_problem)  # the problem's optimum is 0
    np.testing.assert_array_equal(t.shown, [[3.0, np.inf, 2.5]])
    np.testing.assert_array_equal(t.feasible_share, [[0.5, 0.0, 1.0]])
    logr = np.log10([3.0, 2.5])
    np.testing.assert_allclose(t.stat, [[logr[0], logr[0] + 1.0, logr[1]]])
    with pytest.raises(ValueError, match="mix"):
        kind_of([*runs, RunData(a, np.zeros(2), 0.0, 0, None)])


def test_summary_reports_hypervolumes_and_feasibility(tmp_path: Path, script) -> None:
    for name, raw in (("mo", MO), ("con", CON)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(raw))
        db = str(tmp_path / f"{name}.db")
        script.main(["run", str(path), "--storage", db, "--workers", "1", "--quiet"])
        script.main(["summary", str(path), "--storage", db, "--out", str(tmp_path / name)])
    mo = (tmp_path / "mo" / "README.md").read_text()
    assert "(multi-objective)" in mo and "hypervolume (mean)" in mo and "Partial" not in mo
    con = (tmp_path / "con" / "README.md").read_text()
    assert "(constrained)" in con and "runs with a feasible point" in con
    finals = np.load(tmp_path / "con" / "finals.npz")
    assert finals["shown"].shape == (2, 2)
