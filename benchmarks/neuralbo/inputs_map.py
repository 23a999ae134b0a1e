"""NeuralBO's network input map, "scaled" (default) vs "sphere", on tuning seeds (100, 101)
that the benchmarks do not use, with GP-EI as the reference.

Same problems and budget as synthetic.yaml (the 12 cells, noise variance 1% of the range,
10 Sobol points + 20 steps, 10,000 candidates, GP-EI with 2 restarts from 128 raw samples).
Prints a Markdown table of the final simple regret per seed and whether each NeuralBO
variant left the initial design.

    nice -n 10 .venv/bin/python benchmarks/neuralbo/inputs_map.py > benchmarks/results/neuralbo/inputs_map.md
"""

from __future__ import annotations

import itertools

import numpy as np

import isoline as iso
from isoline.bench.report import git_commit
from isoline.bench.runner import ProblemObjective
from isoline.methods.gp_bo import PAPER_GP_OPTIONS

PROBLEMS = [("ackley", {"bounds": (-32.768, 32.768)}), ("levy", {}), ("michalewicz", {})]
DIMS = (10, 20, 50, 100)
SEEDS = (100, 101)
VARIANTS = {
    "NeuralBO scaled": ("neuralbo", dict(nu=0.1, n_candidates=10000, inputs="scaled")),
    "NeuralBO sphere": ("neuralbo", dict(nu=0.1, n_candidates=10000, inputs="sphere")),
    "GP-EI": ("gp-ei", dict(num_restarts=2, raw_samples=128, **PAPER_GP_OPTIONS)),
}


def regrets(name: str, kw: dict, d: int, seed: int, method: str, options: dict) -> np.ndarray:
    """Best-so-far simple regret ``(30,)`` of one run (noise-free values)."""
    prob = iso.problems.get(name, dim=d, noise_std="1%range", seed=seed, **kw)
    res = iso.minimize(ProblemObjective(prob), prob.space, method, budget=30, seed=seed,
                       progress=False, n_init=10, **options)  # fmt: skip
    return np.minimum.accumulate(prob.evaluate_batch(res.x_iters)) - prob.optimum


def main() -> None:
    labels = list(VARIANTS)
    commit = git_commit()
    print("# NeuralBO network inputs: scaled vs sphere (tuning seeds 100, 101; 30 evaluations)\n")
    print(
        f"Made by `benchmarks/neuralbo/inputs_map.py` at commit `{commit}`. Final simple regret per seed;"
    )
    print(
        "'design best' is the best of the 10 initial Sobol points (a run equal to it never improved on its design).\n"
    )
    print("| cell | design best (seeds 100, 101) | " + " | ".join(labels) + " |")
    print("|---|---|" + "---|" * len(labels))
    wins = dict.fromkeys(labels, 0)
    for d, (name, kw) in itertools.product(DIMS, PROBLEMS):
        runs = {lab: [regrets(name, kw, d, s, *VARIANTS[lab]) for s in SEEDS] for lab in labels}
        design = [r[9] for r in runs[labels[0]]]
        finals = {lab: np.mean([r[-1] for r in runs[lab]]) for lab in labels}
        best = min(finals.values())
        for lab in labels:
            wins[lab] += finals[lab] == best
        cells = [
            ", ".join(f"{r[-1]:.4g}" for r in runs[lab])
            + (" **(lowest mean)**" if finals[lab] == best else "")
            for lab in labels
        ]
        print(f"| {name} d={d} | " + ", ".join(f"{v:.4g}" for v in design) + " | " + " | ".join(cells) + " |",
              flush=True)  # fmt: skip
    print(
        "\nCells with the lowest mean final regret: "
        + ", ".join(f"{k} {v}" for k, v in wins.items())
    )


if __name__ == "__main__":
    main()
