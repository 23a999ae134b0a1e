"""The paper's grid search for NeuralBO's exploration scale nu over {0.1, 1, 10} (§7), plus
the candidate-only acquisition search of the paper (n_refine = 0) against isoline's default
L-BFGS-B refinement (n_refine = 5), on tuning seeds (100, 101) that the benchmark does not use.

Same problems and budget as synthetic.yaml (noise variance 1% of the range, 10 Sobol points
+ 20 NeuralBO steps, 10,000 candidates), d = 10 and 20. Prints the mean final simple regret
per variant and function, and the mean rank of each variant over the (function, d) cells.

    nice -n 10 .venv/bin/python benchmarks/neuralbo/tune_nu.py
"""

from __future__ import annotations

import itertools

import numpy as np

import isoline as iso
from isoline.bench.runner import ProblemObjective

PROBLEMS = [("ackley", {"bounds": (-32.768, 32.768)}), ("levy", {}), ("michalewicz", {})]
VARIANTS = [dict(nu=nu, n_refine=r) for r, nu in itertools.product((5, 0), (0.1, 1.0, 10.0))]
SEEDS = (100, 101)


def final_regret(name: str, kw: dict, d: int, seed: int, options: dict) -> float:
    prob = iso.problems.get(name, dim=d, noise_std="1%range", seed=seed, **kw)
    res = iso.minimize(ProblemObjective(prob), prob.space, "neuralbo", budget=30, seed=seed,
                       progress=False, n_init=10, n_candidates=10000, **options)
    return float(np.min(prob.evaluate_batch(res.x_iters)) - prob.optimum)


def main() -> None:
    table = {}
    for (name, kw), d in itertools.product(PROBLEMS, (10, 20)):
        for i, v in enumerate(VARIANTS):
            r = [final_regret(name, kw, d, s, v) for s in SEEDS]
            table[(name, d, i)] = float(np.mean(r))
            print(f"{name:12s} d={d:3d} {v}: mean final regret {np.mean(r):.4g}", flush=True)
    cells = sorted({(n, d) for n, d, _ in table})
    ranks = np.array([[1 + sum(table[(*c, j)] < table[(*c, i)] for j in range(len(VARIANTS)))
                       for i in range(len(VARIANTS))] for c in cells])
    for i, v in enumerate(VARIANTS):
        print(f"{v}: mean rank {ranks[:, i].mean():.2f} over {len(cells)} cells")


if __name__ == "__main__":
    main()
