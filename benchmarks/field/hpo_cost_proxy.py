"""How well hpo-sklearn-cost's ``cost`` (log10 leaves grown) ranks configurations by
measured fit time.

    python benchmarks/field/hpo_cost_proxy.py [--n 10] [--seed 0] [--md OUT.md]

Draws ``n`` configurations uniformly in the unit cube of the problem's space (seeded),
evaluates each once after one warm-up evaluation, and measures the evaluation's CPU time
(the process's, the fits run on one thread) and its wall time; prints the Spearman rank
correlation of each with ``cost`` and the per-configuration table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np
from scipy.stats import spearmanr

import isoline as iso
from isoline.bench.report import git_commit


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--md", type=Path, default=None)
    args = ap.parse_args(argv)
    p = iso.problems.get("hpo-sklearn-cost", seed=args.seed)
    U = np.random.default_rng(args.seed).uniform(size=(args.n, p.dim))
    configs = p.space.decode(U)
    p.outputs(configs[0])  # warm-up: imports and the data split
    rows = []
    for c in configs:
        cpu, wall = time.process_time(), time.perf_counter()
        error, cost = p.outputs(c)
        rows.append((c, error, cost, time.process_time() - cpu, time.perf_counter() - wall))
    costs = [r[2] for r in rows]
    rho_cpu = float(spearmanr(costs, [r[3] for r in rows]).statistic)
    rho_wall = float(spearmanr(costs, [r[4] for r in rows]).statistic)
    cmd = "python benchmarks/field/hpo_cost_proxy.py " + " ".join(argv or sys.argv[1:])
    lines = [
        "# hpo-sklearn-cost: leaves grown against measured fit time",
        "",
        f"`{cmd.strip()}` at {git_commit()}.",
        "",
        f"{args.n} configurations (uniform in the unit cube of the HGB space, seed "
        f"{args.seed}), breast, one evaluation each (5 CV fits on one thread). Spearman "
        f"rank correlation of cost with CPU time {rho_cpu:.3f}, with wall time "
        f"{rho_wall:.3f} (wall time moves with the shared machine's load).",
        "",
        "| max_iter | max_leaf_nodes | min_samples_leaf | error | cost | CPU s | wall s |",
        "|---|---|---|---|---|---|---|",
    ]
    for c, error, cost, cpu, wall in rows:
        lines.append(f"| {c['max_iter']} | {c['max_leaf_nodes']} | {c['min_samples_leaf']} "
                     f"| {error:.4f} | {cost:.3f} | {cpu:.2f} | {wall:.2f} |")  # fmt: skip
    text = "\n".join(lines) + "\n"
    if args.md is not None:
        args.md.write_text(text)
    print(text)
    return text


if __name__ == "__main__":
    main()
