"""The paper's grid search for NeuralBO's exploration scale nu over {0.1, 1, 10} (§7), plus
the candidate-only acquisition search of the paper (n_refine = 0) against isoline's default
L-BFGS-B refinement (n_refine = 5), on tuning seeds (100, 101) that the benchmark does not use.

Same problems and budget as synthetic.yaml (noise variance 1% of the range, 10 Sobol points
+ 20 NeuralBO steps, 10,000 candidates, "scaled" network inputs), d = 10 and 20. Prints the
mean final simple regret per variant and function, and the mean rank of each variant over the
(function, d) cells.

    nice -n 10 .venv/bin/python benchmarks/neuralbo/tune_nu.py

Options change the grid (defaults: the run above), e.g. nu between the paper's values at the
100-evaluation budget of synthetic_100.yaml, with refinement only, on three tuning seeds:

    .venv/bin/python benchmarks/neuralbo/tune_nu.py --budget 100 --nu 0.1 0.3 --refine 5 \
        --seeds 100 101 102
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

import isoline as iso
from isoline.bench.runner import ProblemObjective

PROBLEMS = [("ackley", {"bounds": (-32.768, 32.768)}), ("levy", {}), ("michalewicz", {})]


def final_regret(name: str, kw: dict, d: int, seed: int, budget: int, options: dict) -> float:
    prob = iso.problems.get(name, dim=d, noise_std="1%range", seed=seed, **kw)
    res = iso.minimize(
        ProblemObjective(prob),
        prob.space,
        "neuralbo",
        budget=budget,
        seed=seed,
        progress=False,
        n_init=10,
        n_candidates=10000,
        inputs="scaled",
        **options,
    )
    return float(np.min(prob.evaluate_batch(res.x_iters)) - prob.optimum)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=30)
    ap.add_argument("--nu", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    ap.add_argument("--refine", type=int, nargs="+", default=[5, 0], help="n_refine values")
    ap.add_argument("--seeds", type=int, nargs="+", default=[100, 101])
    ap.add_argument("--dims", type=int, nargs="+", default=[10, 20])
    a = ap.parse_args()
    variants = [dict(nu=nu, n_refine=r) for r, nu in itertools.product(a.refine, a.nu)]
    table = {}
    for (name, kw), d in itertools.product(PROBLEMS, a.dims):
        for i, v in enumerate(variants):
            r = [final_regret(name, kw, d, s, a.budget, v) for s in a.seeds]
            table[(name, d, i)] = float(np.mean(r))
            print(f"{name:12s} d={d:3d} {v}: mean final regret {np.mean(r):.4g}", flush=True)
    cells = sorted({(n, d) for n, d, _ in table})
    ranks = np.array(
        [
            [
                1 + sum(table[(*c, j)] < table[(*c, i)] for j in range(len(variants)))
                for i in range(len(variants))
            ]
            for c in cells
        ]
    )
    for i, v in enumerate(variants):
        print(f"{v}: mean rank {ranks[:, i].mean():.2f} over {len(cells)} cells")


if __name__ == "__main__":
    main()
