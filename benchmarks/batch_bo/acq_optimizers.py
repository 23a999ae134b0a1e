"""CMA-ES (paper) versus gradient (BoTorch L-BFGS-B) on the BKOP batch acquisition.

For each Table 4 function (d = 6), seed and batch size L, fit the noise-free GP to 20
lattice points plus 20 uniform points, then maximize the Algorithm 2 acquisition (the
maximized form of :class:`isoline.methods.bkop.BatchKernelAcquisition`) with each
optimizer from the same state. Reports the mean acquisition value reached (higher is
better), how often each optimizer is best, and the time per call.

Run: nice -n 10 .venv/bin/python benchmarks/batch_bo/acq_optimizers.py
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from isoline import problems
from isoline.bench.report import git_commit
from isoline.designs.lattice import lattice_design
from isoline.methods.bkop import BKOP
from isoline.threads import single_threaded

FUNCTIONS = ["rosenbrock", "ackley", "levy", "dixon-price"]
SEEDS = range(3)
LS = [1, 5, 10]
VARIANTS = {
    "cma (budget 100Ld+1000, start: best of 1024 raw)": dict(optimizer="cma", raw_samples=1024),
    "cma (budget 20Ld+200, start: best of 1024 raw)": dict(
        optimizer="cma", max_evals="small", raw_samples=1024
    ),
    "gradient (10 restarts, 256 raw)": dict(optimizer="gradient", num_restarts=10, raw_samples=256),
    "gradient (20 restarts, 1024 raw; default)": dict(
        optimizer="gradient", num_restarts=20, raw_samples=1024
    ),
}


def main() -> None:
    out = Path(__file__).resolve().parents[1] / "results" / "batch_bo"
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for fn, seed, L in itertools.product(FUNCTIONS, SEEDS, LS):
        p = problems.get(fn, dim=6)
        rng = np.random.default_rng(seed)
        U = np.vstack([lattice_design(20, 6, seed=seed), rng.random((20, 6))])
        y = np.array([p(x) for x in p.space.from_unit(U)])
        vals = {}
        for name, kw in VARIANTS.items():
            kw = dict(kw)
            if kw.get("max_evals") == "small":
                kw["max_evals"] = 20 * L * 6 + 200
            m = BKOP(6, seed=seed, batch_size=L, n_init=0, **kw)
            m.tell(U, y)
            with m.torch_rng(), single_threaded():
                gp = m.fit()
                acqf = m.acquisition(gp)
                t0 = time.perf_counter()
                _, v = m.optimize(acqf, L)
                dt = time.perf_counter() - t0
            vals[name] = (v, dt)
        rows.append({"function": fn, "seed": seed, "L": L, **{k: v for k, v in vals.items()}})
        print(fn, seed, L, {k: f"{v:.4g} ({t:.2f}s)" for k, (v, t) in vals.items()}, flush=True)
    lines = [
        "# BKOP acquisition: CMA-ES versus gradient",
        "",
        "Command: `nice -n 10 .venv/bin/python benchmarks/batch_bo/acq_optimizers.py`  ",
        f"git commit: {git_commit()}  ",
        f"States: functions {FUNCTIONS} (d = 6), seeds {list(SEEDS)}, 40 points "
        "(20 lattice + 20 uniform), noise-free GP; every optimizer starts from the same GP.",
        "",
        "Gap = acquisition value minus the best value any optimizer reached on that state, "
        "divided by the GP's output standard deviation (0 = best; more negative = worse).",
        "",
        "| L | optimizer | mean gap | worst gap | best on states | mean s/call |",
        "|---|---|---|---|---|---|",
    ]
    for L in LS:
        sub = [r for r in rows if r["L"] == L]
        for name in VARIANTS:
            gaps, wins, times = [], 0, []
            for r in sub:
                best = max(r[k][0] for k in VARIANTS)
                p = problems.get(r["function"], dim=6)
                rng = np.random.default_rng(r["seed"])
                U = np.vstack([lattice_design(20, 6, seed=r["seed"]), rng.random((20, 6))])
                sd = float(np.std([p(x) for x in p.space.from_unit(U)]))
                gaps.append((r[name][0] - best) / sd)
                wins += r[name][0] >= best - 1e-9 * max(1.0, abs(best))
                times.append(r[name][1])
            lines.append(
                f"| {L} | {name} | {np.mean(gaps):.2e} | {np.min(gaps):.2e} | "
                f"{wins}/{len(sub)} | {np.mean(times):.2f} |"
            )
    (out / "acq_optimizers.md").write_text("\n".join(lines) + "\n")
    (out / "acq_optimizers.json").write_text(json.dumps(rows, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    torch.set_num_threads(1)
    sys.exit(main())
