"""Asynchronous workers on continuous boxes: what auto should run when several workers
each ask for their own point while others are still being evaluated (issue 43).

auto's rule "low-dim-local" sends a continuous, noise-free problem with d <= 10 to COBYQA.
COBYQA is sequential: its run waits for the value of its one outstanding point, so an ask
made while that point is pending is answered with a uniform random point. With four
workers (an Optuna study with ``n_jobs=4``, or four ask/tell processes) three of every four
points are then random. This script measures that under the four-worker schedule of
``async_pending.py`` (four points asked one after another; each step tells the oldest
running point and asks one more, deterministic so that a seed gives one trajectory) on
COCO BBOB, against two methods that propose from a model while points are pending:

* "gp-ei tuning believer": gp-ei with :data:`isoline.auto.TUNING_OPTIONS`, the Kriging
  believer that auto already runs for asynchronous workers on tuning spaces;
* "isoline turbo": TuRBO-1's defaults, whose Thompson samples differ from ask to ask;

beside Optuna's GPSampler (isoline's peer adapter; pending points are the running trials)
and random search, which decide nothing.

Cells: BBOB f3, f8, f13, f15, f21 (one function per BBOB group, as the off-suite tests),
d = 2, 5, 10 at 40, 60 and 100 evaluations, seeds 30-34 (COCO instances 31-35; the BBOB
suites ran seeds 0-12): 75 cells.

    python benchmarks/auto/async_continuous.py run --out rows.jsonl --seeds 30-34
    python benchmarks/auto/async_continuous.py summary --out rows.jsonl

PRE-REGISTERED RULE (written 2026-12-07 20:13 UTC, before any run of these cells; only a
smoke run of single cells at seed 99, d = 5, 50 evaluations ran, to size the test).
Applied once, when all 75 cells have the five contenders. For each candidate C in
("gp-ei tuning believer", "isoline turbo"): the paired one-sided Wilcoxon signed-rank test
that C's finals are lower than "auto now"'s over the 75 cells, Holm-corrected over the two
candidates; C qualifies iff its corrected p < 0.05 and it ends lower than "auto now" in
more cells than higher. If one qualifies, it becomes auto's choice for one objective
without constraints on a continuous space with d < 20 when the caller declares more than
one worker (``workers`` > 1); if both qualify, the one with the lower mean rank among the
five contenders (then the lower summed method CPU). If none qualifies, auto's choices stay
as they are. Independently of this test, rules that pick COBYQA ("few constraints",
"high-dim-short-budget") stop applying when ``workers`` > 1, so that those problems fall
to the next rule (gp-ei's constraints form, TuRBO): not measured here, it rests on
COBYQA's mechanism above. Reported beside, deciding nothing: mean ranks of the five and
each contender's summed method CPU over Optuna GP's.

Sizing: the smoke cells at d = 5 took about 0.3 s (auto), 6.5 s (believer), 4.5 s
(TuRBO), 4 s (Optuna GP) of method CPU a run; about 40 CPU-minutes for the 75 cells.

SECOND TEST, ``--test confirm`` (written 2026-12-07 23:27 UTC, before any of its runs):
the first test's believer kept the observed best as EI's incumbent while it conditioned
the GP on pending points at their believed values, so it could propose a point believed
better than the best again a hair away; fixed in 8d7aed3 (Ginsbourger et al.'s believer:
the believed values count in the incumbent). Does the rule hold with the fixed believer?
Cells: the same functions, dimensions and budgets at fresh seeds 35-39 (COCO instances
36-40), four simulated workers: 75 cells. Contenders: "cobyqa" (auto's choice before the
rule, the base), "gp-ei tuning believer" (auto's choice now), "isoline turbo", "Optuna
GP" and "random". Applied once, when all 75 cells have the five: the rule
``asynchronous`` stays iff the believer qualifies as in the first test (one-sided
Wilcoxon that it is lower than "cobyqa", Holm over the two candidates, p < 0.05, and
lower in more cells than higher); if it does not and TuRBO does, the rule takes TuRBO's
defaults; if neither does, the rule is removed (COBYQA again). Reported beside, deciding
nothing: the mean ranks of the five and the summed method CPU over Optuna GP's.

    python benchmarks/auto/async_continuous.py run --test confirm --out rows.jsonl --seeds 35-39
    python benchmarks/auto/async_continuous.py summary --test confirm --out rows.jsonl
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "optuna"))
sys.path.insert(0, str(ROOT / "benchmarks" / "auto"))

import numpy as np  # noqa: E402
from async_pending import WORKERS, complete_table, matrix, simulate  # noqa: E402
from bridge_rows import append_row, command_line, read_rows, seed_range  # noqa: E402
from scipy.stats import rankdata, wilcoxon  # noqa: E402

from isoline import problems  # noqa: E402
from isoline.auto import AUTO, TUNING_OPTIONS  # noqa: E402
from isoline.bench.report import git_commit  # noqa: E402
from isoline.threads import single_threaded  # noqa: E402

FUNCTIONS = (3, 8, 13, 15, 21)
#: dimension -> evaluations
BUDGETS = {2: 40, 5: 60, 10: 100}
#: contender label -> (method, options)
CONTENDERS: dict[str, tuple[str, dict[str, Any]]] = {
    "auto now": (AUTO, {}),
    "gp-ei tuning believer": ("gp-ei", dict(TUNING_OPTIONS)),
    "isoline turbo": ("turbo", {}),
    "Optuna GP": ("optuna-gp", {}),
    "random": ("random", {}),
}
BASE = "auto now"
CANDIDATES = ("gp-ei tuning believer", "isoline turbo")
#: ``--test`` -> (contenders, base, candidates)
TESTS: dict[str, tuple[dict[str, tuple[str, dict[str, Any]]], str, tuple[str, ...]]] = {
    "first": (CONTENDERS, BASE, CANDIDATES),
    "confirm": ({"cobyqa": ("cobyqa", {}), **{k: v for k, v in CONTENDERS.items() if k != BASE}},
                "cobyqa", CANDIDATES),
}  # fmt: skip


def run(a: argparse.Namespace) -> None:
    contenders = TESTS[a.test][0]
    out = Path(a.out)
    done = {(r["problem"], r["seed"], r["contender"]) for r in read_rows(out)}
    commit = git_commit()
    for seed in seed_range(a.seeds):
        for dim, budget in BUDGETS.items():
            for fn in FUNCTIONS:
                label = f"f{fn:02d}-d{dim}"
                for contender, (method, options) in contenders.items():
                    if (label, seed, contender) in done:
                        continue
                    problem = problems.get("bbob", dim=dim, function=fn, seed=seed)
                    t0 = time.time()
                    with single_threaded():
                        row = simulate(problem, method, options, seed, a.trials or budget)
                    row.update(problem=label, seed=seed, contender=contender, commit=commit,
                               trials=a.trials or budget, wall=time.time() - t0,
                               final=float(np.nanmin(row["values"])))  # fmt: skip
                    append_row(out, row)
                    print(f"{label} seed {seed} {contender}: final {row['final']:.5g}, "
                          f"method CPU {row['method_cpu']:.1f} s", flush=True)  # fmt: skip


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment of the p-values ``p``."""
    order = np.argsort(p)
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def summary(a: argparse.Namespace) -> None:
    contenders, base, candidates = TESTS[a.test]
    rows = read_rows(Path(a.out))
    labels = list(contenders)
    cells, table = complete_table(rows, labels)
    F = matrix(table, cells, labels, "final")
    cpu = matrix(table, cells, labels, "method_cpu")
    ranks = rankdata(F, axis=1)
    ref = cpu[:, labels.index("Optuna GP")].sum()
    print(f"{len(cells)} complete cells (problem x seed), {WORKERS} simulated workers\n")
    print("| contender | mean rank | summed method CPU (s) | CPU x Optuna GP |")
    print("|---|---|---|---|")
    for k, lab in enumerate(labels):
        print(f"| {lab} | {ranks[:, k].mean():.2f} | {cpu[:, k].sum():.0f} | "
              f"{cpu[:, k].sum() / ref:.2f} |")  # fmt: skip
    dims = sorted({c[0].split("-")[1] for c in cells})
    print("\nmean rank by dimension: " + "; ".join(
        f"{d}: " + ", ".join(f"{lab} {ranks[[c[0].endswith(d) for c in cells], k].mean():.2f}"
                             for k, lab in enumerate(labels)) for d in dims))  # fmt: skip
    b = F[:, labels.index(base)]
    stats = []
    for cand in candidates:
        c = F[:, labels.index(cand)]
        lower, higher = int((c < b).sum()), int((c > b).sum())
        p = float(wilcoxon(c, b, alternative="less").pvalue) if lower + higher else 1.0
        stats.append((cand, lower, higher, p))
    adjusted = holm([s[3] for s in stats])
    print()
    for (cand, lower, higher, p), q in zip(stats, adjusted):
        ok = q < 0.05 and lower > higher
        print(f"{cand} against {base}: lower in {lower} cells, higher in {higher}; one-sided "
              f"Wilcoxon (lower) p = {p:.3g}, Holm {q:.3g}: {'qualifies' if ok else 'does not qualify'}")  # fmt: skip


if __name__ == "__main__":
    command_line(__doc__, run, summary, trials=0, choices={"test": tuple(TESTS)})
