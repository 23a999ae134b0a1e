"""Asynchronous workers on problems with one to three black-box constraints: what auto's
fall-through from COBYQA to gp-ei's constraints form gives (issue 43, issue 41).

auto's rule "few constraints" picks COBYQA for one worker; with several workers it no longer
applies (COBYQA answers asks made while its point is pending with uniform random points),
and such problems go to the rule "constraints" (gp-ei's analytic constrained log EI with a
lean search). That change rests on COBYQA's mechanism; this script measures it, deciding
nothing: the constrained suite's three problems with at most three constraints (Keane's
bump d = 10, constrained Hartmann d = 6, SCBO's Ackley d = 10 with two constraints), seeds
30-34 (the suite and its tests ran seeds 0-29), the suite's budgets, under the four-worker
schedule of ``async_pending.py``: auto told of four workers, COBYQA (auto's choice for one
worker), Optuna's GPSampler (isoline's peer adapter) and random search. A run's final is its
best feasible objective value; a run with no feasible point counts with the worst final of
any run on that problem.

    python benchmarks/auto/async_constrained.py run --out rows.jsonl --seeds 30-34
    python benchmarks/auto/async_constrained.py summary --out rows.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "optuna"))
sys.path.insert(0, str(ROOT / "benchmarks" / "auto"))

import numpy as np  # noqa: E402
from async_pending import WORKERS, complete_table, matrix, schedule  # noqa: E402
from bridge_rows import append_row, command_line, read_rows, seed_range  # noqa: E402
from scipy.stats import rankdata, wilcoxon  # noqa: E402

from isoline import Optimizer, problems  # noqa: E402
from isoline.auto import AUTO  # noqa: E402
from isoline.bench.report import git_commit  # noqa: E402
from isoline.threads import single_threaded  # noqa: E402

#: label -> (problem name, dimension or None, evaluations)
PROBLEMS: dict[str, tuple[str, int | None, int]] = {
    "keane-bump d10": ("keane-bump", 10, 60),
    "constrained-hartmann": ("constrained-hartmann", None, 60),
    "ackley-constrained d10": ("ackley-constrained", 10, 100),
}
#: contender label -> (method, options)
CONTENDERS: dict[str, tuple[str, dict[str, Any]]] = {
    "auto, four workers": (AUTO, {"workers": WORKERS}),
    "cobyqa": ("cobyqa", {}),
    "Optuna GP": ("optuna-gp", {}),
    "random": ("random", {}),
}


def simulate(
    problem: Any, method: str, options: dict[str, Any], seed: int, budget: int
) -> dict[str, Any]:
    """One run under the four-worker schedule: every told row, the method CPU and auto's rule."""
    opts = dict(options)
    if method != "cobyqa":
        opts["budget"] = budget

    def evaluate(x: Any) -> tuple[Any, list[float]]:
        row = problem.outputs(x)
        return row, row.tolist()

    def make() -> Optimizer:
        return Optimizer(problem.space, method, seed=seed, objective=problem.objective, **opts)

    rows, cpu, opt = schedule(make, evaluate, budget)
    choice = getattr(opt, "choice", None)
    return {"rows": rows, "method_cpu": cpu, "rule": None if choice is None else choice.rule}


def best_feasible(rows: list[list[float]]) -> float:
    """The lowest objective among the rows whose constraints are all ``<= 0`` (inf if none)."""
    Y = np.asarray(rows, dtype=float)
    ok = np.all(Y[:, 1:] <= 0.0, axis=1)
    return float(Y[ok, 0].min()) if ok.any() else float("inf")


def run(a: argparse.Namespace) -> None:
    out = Path(a.out)
    done = {(r["problem"], r["seed"], r["contender"]) for r in read_rows(out)}
    commit = git_commit()
    for seed in seed_range(a.seeds):
        for label, (name, dim, budget) in PROBLEMS.items():
            for contender, (method, options) in CONTENDERS.items():
                if (label, seed, contender) in done:
                    continue
                problem = problems.get(name, dim=dim) if dim else problems.get(name)
                with single_threaded():
                    row = simulate(problem, method, options, seed, budget)
                row.update(problem=label, seed=seed, contender=contender, commit=commit,
                           final=best_feasible(row["rows"]))  # fmt: skip
                append_row(out, row)
                print(f"{label} seed {seed} {contender}: best feasible {row['final']:.5g}, "
                      f"method CPU {row['method_cpu']:.1f} s, rule {row['rule']}", flush=True)  # fmt: skip


def summary(a: argparse.Namespace) -> None:
    rows = read_rows(Path(a.out))
    labels = list(CONTENDERS)
    cells, table = complete_table(rows, labels)
    F = matrix(table, cells, labels, "final")
    for p in {c[0] for c in cells}:  # no feasible point: the problem's worst final
        i = [k for k, c in enumerate(cells) if c[0] == p]
        worst = np.max(F[i][np.isfinite(F[i])])
        F[i] = np.where(np.isfinite(F[i]), F[i], worst)
    cpu = matrix(table, cells, labels, "method_cpu")
    feasible = np.array([[np.isfinite(table[(*c, lab)]["final"]) for lab in labels] for c in cells])
    ranks = rankdata(F, axis=1)
    rules = sorted({str(r["rule"]) for r in rows if r["contender"] == labels[0]})
    print(
        f"{len(cells)} complete cells, {WORKERS} simulated workers; auto's rule: {', '.join(rules)}\n"
    )
    problems_ = sorted({c[0] for c in cells})
    print("| contender | mean rank | feasible runs | CPU x Optuna GP | "
          + " | ".join(f"{p} mean" for p in problems_) + " |")  # fmt: skip
    print("|---|---|---|---|" + "---|" * len(problems_))
    ref = cpu[:, labels.index("Optuna GP")].sum()
    for k, lab in enumerate(labels):
        means = [F[[c[0] == p for c in cells], k].mean() for p in problems_]
        print(f"| {lab} | {ranks[:, k].mean():.2f} | {int(feasible[:, k].sum())}/{len(cells)} | "
              f"{cpu[:, k].sum() / ref:.2f} | " + " | ".join(f"{m:.4g}" for m in means) + " |")  # fmt: skip
    b, c = F[:, labels.index("cobyqa")], F[:, 0]
    lower, higher = int((c < b).sum()), int((c > b).sum())
    p = float(wilcoxon(c, b, alternative="less").pvalue) if lower + higher else 1.0
    print(
        f"\n{labels[0]} against cobyqa: lower in {lower} cells, higher in {higher}; "
        f"one-sided Wilcoxon (lower) p = {p:.3g}"
    )


if __name__ == "__main__":
    command_line(__doc__, run, summary)
