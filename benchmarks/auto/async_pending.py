"""Asynchronous workers on the tuning suite: how auto's sequential tuning choice proposes
while other evaluations are still running (issue 43, the batch rule's async case).

An Optuna study with ``n_jobs=4`` or four ask/tell workers asks one point at a time while
up to three others are being evaluated. auto's sequential rules for tuning spaces run
gp-ei with :data:`isoline.auto.TUNING_OPTIONS` (analytic log EI); with points pending,
gp-ei takes the Monte-Carlo ``qLogExpectedImprovement`` with them as ``X_pending``. Its
``believer=True`` option instead conditions the GP on the pending points at their
posterior mean and takes the analytic log EI (the Kriging believer; auto's batch rule
``batch-tuning`` already runs it). This script runs both, Optuna's GPSampler (through
isoline's peer adapter, where pending points are the study's running trials) and random
search under one simulated schedule of four workers, deterministic so that a seed gives
one trajectory: four points are asked one after another, then each step tells the oldest
running point's value and asks one more, until the budget is told.

Problems: bayesmark's scikit-learn problems of the sequential suite
(``benchmarks/field/hpo_sequential.yaml``) on which auto runs the tuning options (a
categorical or a rescaled real), i.e. all but kNN wine, 64 evaluations.

    python benchmarks/auto/async_pending.py run --out rows.jsonl --seeds 20-24
    python benchmarks/auto/async_pending.py summary --out rows.jsonl

``run`` appends one JSON line per finished run and skips the runs already in the file.
Method CPU is the process time spent in ``ask`` and ``tell``.

PRE-REGISTERED RULE (written 2026-11-29 01:16 UTC, before any run at the budget of 64; only
a 12-evaluation smoke run on seed 0 ran). Seeds 20-24 (fresh: the tuning suites ran 0-19),
8 problems, 40 cells, applied when every cell has all four contenders. With S the
normalized score of a cell (0 = the best final of the four, 1 = random search's median
final on the problem), "gp-ei tuning believer" replaces auto's options for sequential
tuning (``TUNING_OPTIONS`` gains ``believer=True``, which acts only when points are
pending) iff all of:
  (a) its summed method CPU is at most that of "auto now";
  (b) the upper end of the one-sided 95% percentile bootstrap interval (2,000 resamples of
      cells, seed 0) of mean(S_believer - S_auto_now) is below 0.05;
  (c) the paired one-sided Wilcoxon signed-rank test that its finals are worse than
      "auto now"'s gives p >= 0.05.
Otherwise auto keeps the Monte-Carlo form with pending points. Reported beside it, deciding
nothing: mean ranks of the four and the CPU of each over Optuna GP's. Sizing: the smoke run
took seconds of method CPU per run; the evaluations (5-fold cross-validation) dominate, so
160 runs of 64 evaluations take about 1-2 CPU-hours.

Outcome (benchmarks/results/auto/async_pending/): (a) and (c) held, (b) failed (upper end
+0.906): on three problems random search's median lies within a fraction of a percent of
the best, so one cell's small miss weighs like a whole problem in the normalized score.

CONFIRMING RULE (written 2026-11-29 04:30 UTC, before any run on its seeds). Seeds 25-29
(fresh), the same 8 problems, contenders and schedule, rows in their own file; applied
once, when all 40 cells have the four contenders. "gp-ei tuning believer" replaces auto's
options for sequential tuning as above iff all of:
  (a) its summed method CPU is at most that of "auto now";
  (b') non-inferior by sign: of the cells where the two finals differ, the believer is
      lower in k; the exact one-sided binomial test that it is lower with probability at
      most 0.35 gives p < 0.05 (the summary's "sign test" line);
  (c) as above (Wilcoxon that its finals are worse, p >= 0.05).
The sign replaces the score margin because the finals' scale differs by orders of
magnitude between problems; it counts a cell once whatever its problem.

    python benchmarks/auto/async_pending.py run --out rows_confirm.jsonl --seeds 25-29
    python benchmarks/auto/async_pending.py summary --out rows_confirm.jsonl

Outcome: adopted (all three held; TUNING_OPTIONS includes believer=True since). "auto now"
is auto as it stood when the rows were made (95cf811, the Monte-Carlo form); run after the
adoption it repeats the believer.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "optuna"))

import numpy as np  # noqa: E402
from bridge_rows import append_row, command_line, read_rows, seed_range  # noqa: E402
from scipy.stats import binomtest, rankdata, wilcoxon  # noqa: E402

from isoline import Optimizer  # noqa: E402
from isoline.auto import AUTO, TUNING_OPTIONS  # noqa: E402
from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.preflight import make_problem  # noqa: E402
from isoline.bench.ranks import mean_interval, normalized_scores  # noqa: E402
from isoline.bench.report import git_commit  # noqa: E402
from isoline.bench.runner import ProblemObjective  # noqa: E402
from isoline.problems.base import is_noisy  # noqa: E402
from isoline.threads import single_threaded  # noqa: E402

CONFIG = ROOT / "benchmarks/field/hpo_sequential.yaml"
SKIP = ("kNN wine",)  # auto runs gp-ei's defaults there, not the tuning options
WORKERS, BUDGET = 4, 64
#: contender label -> (method, options)
CONTENDERS: dict[str, tuple[str, dict[str, Any]]] = {
    "auto now": (AUTO, {}),
    "gp-ei tuning believer": ("gp-ei", {**TUNING_OPTIONS, "believer": True}),
    "Optuna GP": ("optuna-gp", {}),
    "random": ("random", {}),
}
BASE, CANDIDATE = "auto now", "gp-ei tuning believer"
#: the confirming rule's largest share of cells won that counts as inferior
SIGN_MARGIN = 0.35


def _specs(seed: int) -> list[Any]:
    """The suite's runs of one contender, one per problem kept, with ``seed``."""
    cfg = load_config(CONFIG)
    first = cfg.methods[0].label
    return [
        replace(s, seed=seed)
        for s in cfg.runs()
        if s.seed == cfg.seeds[0] and s.method.label == first and s.problem.label not in SKIP
    ]


def schedule(
    make: Callable[[], Any], evaluate: Callable[[Any], tuple[Any, Any]], budget: int
) -> tuple[list[Any], float, Any]:
    """The four-worker schedule: ``WORKERS`` points asked one after another, then each step
    tells the oldest running point and asks one more, until ``budget`` points are told.
    ``make()`` builds the optimizer; ``evaluate(x)`` returns ``(told, recorded)``, the value
    or row told and what the run records. Returns the records in telling order, the method
    CPU (process time in building, ``ask`` and ``tell``) and the optimizer."""
    cpu = 0.0

    def timed(call: Any, *args: Any) -> Any:
        nonlocal cpu
        t0 = time.process_time()
        out = call(*args)
        cpu += time.process_time() - t0
        return out

    opt = timed(make)
    running: deque[Any] = deque(timed(opt.ask, 1)[0] for _ in range(WORKERS))
    records: list[Any] = []
    while running:
        x = running.popleft()
        told, recorded = evaluate(x)
        records.append(recorded)
        timed(opt.tell, [x], [told])
        if len(records) + len(running) < budget:
            running.append(timed(opt.ask, 1)[0])
    return records, cpu, opt


def complete_table(
    rows: list[dict[str, Any]], labels: list[str]
) -> tuple[list[tuple[str, int]], dict[tuple[str, int, str], dict[str, Any]]]:
    """The cells (problem, seed) that have a row of every contender in ``labels``, sorted,
    and the rows by (problem, seed, contender)."""
    table = {(r["problem"], r["seed"], r["contender"]): r for r in rows}
    cells = sorted({(r["problem"], r["seed"]) for r in rows})
    return [c for c in cells if all((*c, lab) in table for lab in labels)], table


def matrix(
    table: dict[tuple[str, int, str], dict[str, Any]],
    cells: list[tuple[str, int]],
    labels: list[str],
    key: str,
) -> np.ndarray:
    """``(cells, contenders)`` values of ``key`` in the rows of :func:`complete_table`."""
    return np.array([[table[(*c, lab)][key] for lab in labels] for c in cells])


def simulate(
    problem: Any, method: str, options: dict[str, Any], seed: int, budget: int = BUDGET
) -> dict[str, Any]:
    """One run under the four-worker schedule: the told values in order (noise-free), the
    method CPU and auto's choice."""
    f = ProblemObjective(problem)
    opts = dict(options)
    if method == AUTO:
        opts.setdefault("noisy", is_noisy(problem))
    if method in (AUTO, "optuna-gp", "random"):
        opts.setdefault("budget", budget)

    def evaluate(x: Any) -> tuple[float, float]:
        y, info = f(x)
        return y, float(info.get("noise_free", y))

    make = lambda: Optimizer(problem.space, method, seed=seed, **opts)  # noqa: E731
    values, cpu, opt = schedule(make, evaluate, budget)
    choice = getattr(opt, "choice", None)
    return {"values": values, "method_cpu": cpu,
            "choice": None if choice is None else f"{choice.method} {choice.options}"}  # fmt: skip


def run(a: argparse.Namespace) -> None:
    out = Path(a.out)
    done = {(r["problem"], r["seed"], r["contender"]) for r in read_rows(out)}
    if a.trials != BUDGET:
        print(f"--trials {a.trials}: a smoke run, not the pre-registered budget {BUDGET}")
    commit = git_commit()
    for seed in seed_range(a.seeds):
        for spec in _specs(seed):
            label = spec.problem.label
            for contender, (method, options) in CONTENDERS.items():
                if (label, seed, contender) in done:
                    continue
                problem = make_problem(spec)
                t0 = time.time()
                with single_threaded():
                    row = simulate(problem, method, options, seed, a.trials)
                row.update(problem=label, seed=seed, contender=contender, commit=commit, trials=a.trials,
                           wall=time.time() - t0, final=float(np.nanmin(row["values"])))  # fmt: skip
                append_row(out, row)
                print(f"{label} seed {seed} {contender}: final {row['final']:.5g}, "
                      f"method CPU {row['method_cpu']:.1f} s", flush=True)  # fmt: skip


def summary(a: argparse.Namespace) -> None:
    rows = read_rows(Path(a.out))
    labels = list(CONTENDERS)
    cells, table = complete_table(rows, labels)
    F = matrix(table, cells, labels, "final")
    cpu = matrix(table, cells, labels, "method_cpu")
    j = labels.index("random")
    med = {p: np.median([F[i, j] for i, (q, _) in enumerate(cells) if q == p]) for p, _ in cells}
    S = normalized_scores(F, [med[p] for p, _ in cells])
    ranks = rankdata(F, axis=1)
    budgets = sorted({r.get("trials", BUDGET) for r in rows})
    print(f"{len(cells)} complete cells (problem x seed), {WORKERS} simulated workers, "
          f"budget {budgets}\n")  # fmt: skip
    print("| contender | mean rank | mean score | summed method CPU (s) | CPU x Optuna GP |")
    print("|---|---|---|---|---|")
    ref = cpu[:, labels.index("Optuna GP")].sum()
    for k, lab in enumerate(labels):
        print(f"| {lab} | {ranks[:, k].mean():.2f} | {np.nanmean(S[:, k]):.3f} | "
              f"{cpu[:, k].sum():.0f} | {cpu[:, k].sum() / ref:.2f} |")  # fmt: skip
    b, c = F[:, labels.index(BASE)], F[:, labels.index(CANDIDATE)]
    d = S[:, labels.index(CANDIDATE)] - S[:, labels.index(BASE)]
    mean, _, upper = mean_interval(d[~np.isnan(d)], level=0.90)
    better, worse = int((c < b).sum()), int((c > b).sum())
    p_worse = float(wilcoxon(c, b, alternative="greater").pvalue) if better + worse else 1.0
    cpu_ratio = cpu[:, labels.index(CANDIDATE)].sum() / cpu[:, labels.index(BASE)].sum()
    print(f"\n{CANDIDATE} against {BASE}: lower in {better} cells, higher in {worse}, tied "
          f"{len(cells) - better - worse}; one-sided Wilcoxon (worse) p = {p_worse:.3f}; "
          f"score gap {mean[0]:+.3f} (one-sided 95% upper {upper[0]:+.3f}); "
          f"method CPU {cpu_ratio:.2f}x {BASE}'s")  # fmt: skip
    n = better + worse
    p_sign = float(binomtest(better, n, SIGN_MARGIN, alternative="greater").pvalue) if n else 1.0
    print(f"sign test: lower in {better} of {n} differing cells; one-sided binomial p = "
          f"{p_sign:.4f} against a share <= {SIGN_MARGIN}")  # fmt: skip


if __name__ == "__main__":
    command_line(__doc__, run, summary, trials=BUDGET)
