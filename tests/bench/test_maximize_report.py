"""Benchmark reports of a config that maximizes: isoline minimizes the negated values
inside, and the reports show values in the config's direction (or say where a table or
file keeps the minimized ones)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from isoline.bench import report as report_module
from isoline.bench.config import parse_config
from isoline.bench.outputs import constrained_cells
from isoline.bench.report import RunData, collect, write_report
from isoline.bench.runner import make_problem, run_bench
from isoline.objective import Objective
from isoline.store import Store

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "field.py"

MAX = {"name": "mx", "budget": 5, "seeds": 2, "direction": "maximize",
       "methods": ["random", "sobol"], "problems": [{"name": "rosenbrock", "dim": 2}]}  # fmt: skip


def _stored_values(db: str) -> dict[str, list[float]]:
    """Each method's stored objective values (the user's, maximized), over its runs."""
    out: dict[str, list[float]] = {}
    with Store(db, create=False, readonly=True) as store:
        for rec in store.studies("mx/"):
            method = rec.name.split("/")[2]
            out.setdefault(method, []).extend(
                float(t.y) for t in store.trials(rec) if t.status == "ok" and t.y is not None
            )
    return out


def test_the_report_of_a_maximizing_config_shows_the_values_it_maximized(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = parse_config(MAX)
    db = str(tmp_path / "mx.db")
    run_bench(cfg, db, workers=1, progress=False)
    stored = _stored_values(db)
    assert all(v > 0 for vs in stored.values() for v in vs)  # Rosenbrock is positive
    drawn: dict[str, Any] = {}
    real = report_module.plot_convergence

    def spy(curves: dict[str, list[np.ndarray]], **kwargs: Any) -> Any:
        drawn.update(curves=curves, **kwargs)
        return real(curves, **kwargs)

    monkeypatch.setattr(report_module, "plot_convergence", spy)
    text = write_report(cfg, db, tmp_path / "rep").read_text()
    for method, values in stored.items():
        # the best point of a method is its highest value over its runs
        best = re.search(rf"- {method}: best value (\S+) ", text)
        assert best is not None and float(best.group(1)) == pytest.approx(max(values), rel=1e-5)
        # the table's median final value is that of the runs' highest values
        row = re.search(rf"\| {method} \| 2 \| 5 \| \**([^ *]+)\** \+- \S+ \| (\S+) \|", text)
        assert row is not None
        runs = [r for r in collect(cfg, db) if r.spec.method.label == method]
        finals = [float(np.max(-r.values)) for r in runs]
        assert float(row.group(2)) == pytest.approx(np.median(finals), rel=1e-3)
        # and the plot draws the highest value so far, rising
        for curve in drawn["curves"][method]:
            assert np.all(curve > 0) and np.all(np.diff(curve) >= 0)
    assert "maximize" in drawn["ylabel"] and "The config maximizes" in text


def test_the_field_summary_of_a_maximizing_config_says_so(tmp_path: Path, script: Any) -> None:
    path = tmp_path / "mx.yaml"
    path.write_text(yaml.safe_dump(MAX))
    db = str(tmp_path / "mx.db")
    script.main(["run", str(path), "--storage", db, "--workers", "1", "--quiet"])
    script.main(["summary", str(path), "--storage", db, "--out", str(tmp_path / "out")])
    text = (tmp_path / "out" / "README.md").read_text()
    assert "maximize" in text and "Rank 1 = lowest" not in text
    finals = np.load(tmp_path / "out" / "finals.npz")
    assert str(finals["direction"]) == "maximize"
    assert np.all(finals["F"] < 0)  # minimized units, as the README says


def _run(spec: object, objective: Objective, outputs: list[list[float]]) -> RunData:
    Y = np.array(outputs, dtype=float)
    values = np.where(objective.feasible(Y), objective.internal(Y[:, 0]), np.nan)
    return RunData(spec, values, 0.0, 0, None, objective=objective, outputs=Y)  # type: ignore[arg-type]


def test_constrained_cells_of_a_maximized_objective_take_its_highest_feasible_value() -> None:
    cfg = parse_config({"name": "con", "budget": 2, "seeds": 1, "methods": ["random", "sobol"],
                        "problems": [{"name": "ackley-constrained", "dim": 2}]})  # fmt: skip
    a, b = cfg.runs()
    up = Objective("maximize", ["f"], ["c"])
    runs = [_run(a, up, [[3.0, -1.0], [1.0, 0.0]]), _run(b, up, [[5.0, 1.0], [2.0, -0.5]])]
    t = constrained_cells(cfg, runs, make_problem)
    np.testing.assert_array_equal(t.shown, [[3.0, 2.0]])  # the user's values, highest
    assert t.F[0, 0] < t.F[0, 1]  # 3 beats 2 when maximizing
    assert t.stat[0, 0] < t.stat[0, 1]
