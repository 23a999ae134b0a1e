"""``isoline run`` and ``isoline bench`` on problems with several outputs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline.cli import main
from isoline.results import load


def _run(tmp_path: Path, problem: str, *extra: str, budget: int = 6) -> list[str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    return ["run", "--problem", problem, "--method", "random", "--budget", str(budget),
            "--storage", str(tmp_path / "r.db"), "--study", "s", "--quiet", *extra]  # fmt: skip


def _number(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found is not None, text
    return float(found.group(1))


def test_several_objectives_use_the_problems_specification(tmp_path: Path, capsys) -> None:
    assert main(_run(tmp_path, "vehicle-safety")) == 0
    out = capsys.readouterr().out
    res = load(str(tmp_path / "r.db"), "s")
    problem = iso.problems.get("vehicle-safety")
    assert res.objective == problem.objective and res.values.shape == (6, 3)
    hv = res.objective.hypervolume(res.values, problem.ref_point)
    assert _number(r"hypervolume (\S+) against", out) == pytest.approx(hv, rel=1e-5)
    assert "(the problem's)" in out and "known maximal hypervolume" in out
    size = len(res.pareto_front()[1])
    assert f"Pareto front: {size} point(s) of 6 evaluations" in out


def test_directions_and_reference_point_options(tmp_path: Path, capsys) -> None:
    assert main(_run(tmp_path, "branin-currin", "--directions", "Minimize,maximize",
                     "--ref-point", "300,0")) == 0  # fmt: skip
    out = capsys.readouterr().out
    res = load(str(tmp_path / "r.db"), "s")
    assert res.directions == ("minimize", "maximize")
    hv = res.objective.hypervolume(res.values, [300.0, 0.0])
    assert hv > 0 and _number(r"hypervolume (\S+) against", out) == pytest.approx(hv, rel=1e-5)
    assert "reference point [300, 0] (given)" in out
    assert main(_run(tmp_path / "b", "branin-currin", "--directions", "maximize,minimize")) == 0
    assert "(inferred from the front)" in capsys.readouterr().out  # not the problem's


def test_the_report_of_a_run_uses_the_reference_point_the_run_reported(
    tmp_path: Path, capsys
) -> None:
    """`isoline report STORE STUDY` takes the hypervolume against the point `isoline run`
    used (given or the problem's), or against --ref-point; one-objective studies refuse it."""
    pytest.importorskip("matplotlib")
    assert main(_run(tmp_path, "branin-currin", "--ref-point", "300,40", budget=8)) == 0
    run_hv = _number(r"hypervolume (\S+) against", capsys.readouterr().out)
    db = str(tmp_path / "r.db")
    assert main(["report", db, "s", "--out", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "summary.md").read_text()
    assert _number(r"- hypervolume: (\S+) against", text) == pytest.approx(run_hv, rel=1e-5)
    assert "reference point [300, 40] (given; recorded by isoline run)" in text
    assert main(["report", db, "s", "--out", str(tmp_path / "r2"), "--ref-point", "400,40"]) == 0
    text = (tmp_path / "r2" / "summary.md").read_text()
    hv = load(db, "s").hypervolume([400.0, 40.0])
    assert _number(r"- hypervolume: (\S+) against", text) == pytest.approx(hv, rel=1e-5) != run_hv
    assert "dominates" not in text
    assert main(["report", db, "s", "--out", str(tmp_path / "r0"), "--ref-point=-1e9,-1e9"]) == 0
    text = (tmp_path / "r0" / "summary.md").read_text()  # a point no evaluation dominates
    assert "- hypervolume: 0 against" in text and "no feasible evaluation dominates" in text
    assert main(_run(tmp_path / "one", "levy", budget=3)) == 0
    one = str(tmp_path / "one" / "r.db")
    assert main(["report", one, "s", "--out", str(tmp_path / "r3"), "--ref-point", "1,2"]) == 2
    assert "applies to several objectives" in capsys.readouterr().err


def test_constrained_problem_best_feasible_or_none(tmp_path: Path, capsys) -> None:
    assert main(_run(tmp_path, "pressure-vessel", budget=3)) == 0
    out = capsys.readouterr().out
    res = load(str(tmp_path / "r.db"), "s")
    assert res.objective.constraints == ("c0", "c1", "c2", "c3") and not res.feasible_found
    assert "feasible evaluations: 0 of 3" in out and "no feasible evaluation found" in out
    assert main(_run(tmp_path / "b", "pressure-vessel", budget=8)) == 0
    out = capsys.readouterr().out
    res = load(str(tmp_path / "b" / "r.db"), "s")
    k = int(res.feasible.sum())
    assert k > 0 and f"feasible evaluations: {k} of 8" in out
    best = float(np.min(res.values[res.feasible, 0]))
    assert _number(r"best value (\S+) at", out) == pytest.approx(best, rel=1e-5)


@pytest.mark.parametrize(
    ("problem", "extra", "message"),
    [
        ("vehicle-safety", ["--directions", "minimize,up,minimize"], "'up' is not a direction"),
        ("vehicle-safety", ["--directions", "minimize,maximize"],
         r"gives 2 direction\(s\) \(minimize, maximize\) but problem 'vehicle-safety' has 3"),
        ("vehicle-safety", ["--direction", "maximize"], "give their directions with --directions"),
        ("vehicle-safety", ["--ref-point", "1,2"], "--ref-point: reference point must be 3"),
        ("vehicle-safety", ["--ref-point", "a,b,c"], "--ref-point must be comma-separated"),
        ("levy", ["--ref-point", "1"], "--ref-point applies to several objectives"),
        ("levy", ["--directions", "minimize,minimize"], "'levy' has 1 objective"),
        ("branin-currin", ["--direction", "minimize", "--directions", "minimize,minimize"],
         "not both"),
    ],
)  # fmt: skip
def test_bad_directions_or_reference_point_are_named(
    tmp_path: Path, capsys, problem: str, extra: list[str], message: str
) -> None:
    assert main(_run(tmp_path, problem, *extra)) == 2
    assert re.search(message, capsys.readouterr().err)
    assert not (tmp_path / "r.db").exists()  # refused before anything ran


def test_bench_reports_hypervolume_and_feasibility(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: o\nbudget: 4\nseeds: 1\nmethods: [random]\nproblems:\n"
                   "  - {name: branin-currin}\n  - {name: pressure-vessel}\n")  # fmt: skip
    db, out = str(tmp_path / "b.db"), tmp_path / "rep"
    assert main(["bench", str(cfg), "--storage", db, "--out", str(out), "--workers", "1",
                 "--quiet"]) == 0  # fmt: skip
    text = (out / "report.md").read_text()
    res = load(db, "o/branin-currin/random/seed0")
    problem = iso.problems.get("branin-currin")
    hv = res.objective.hypervolume(res.values, problem.ref_point)
    assert "final hypervolume" in text and "[18, 6], the problem's reference point" in text
    assert f"| random | 1 | 4 | **{hv:.4g}** +- 0 |" in text
    assert not load(db, "o/pressure-vessel/random/seed0").feasible_found
    assert "- random: 0 of 1 runs found a feasible point" in text
    assert "| random | 1 | 4 | none feasible | none feasible |" in text
