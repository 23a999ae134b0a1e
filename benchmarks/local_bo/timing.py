"""CPU seconds per ask and per algorithm iteration on gp-sample (fixed GP hypers)."""

import json
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
import isoline as iso
from isoline.problems.gp_sample import lengthscale_range

method, d, budget, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
extra = eval(sys.argv[5]) if len(sys.argv) > 5 else {}
p = iso.problems.get("gp-sample", dim=d, seed=seed, variant="interpolating")
a, b = lengthscale_range(d)
opts = {}
if method in ("gibo", "mpd", "minucb", "la-minucb", "turbo"):
    opts = dict(lengthscale=(a + b) / 2, outputscale=1.0, noise=0.01)
if method in ("gibo", "mpd", "minucb", "la-minucb"):
    opts["n_init"] = 1
opts.update(extra)
opt = iso.Optimizer(p.space, method, seed=seed, **opts)
m = opt.method
cpu, nf, it = [], [], []
for i in range(budget):
    t = time.process_time()
    X = opt.ask()
    cpu.append(time.process_time() - t)
    it.append(getattr(m, "iteration", i))
    y, info = p(X[0])
    opt.tell(X, [y])
    nf.append(info["noise_free"])
cpu, it = np.array(cpu), np.array(it)
per_it = [cpu[it == k].sum() for k in np.unique(it)]
best = np.minimum.accumulate(nf)
print(
    json.dumps(
        dict(
            method=method,
            d=d,
            seed=seed,
            extra=str(extra),
            evals=budget,
            cpu_total=float(cpu.sum()),
            cpu_per_eval=float(cpu.mean()),
            iterations=int(it.max()),
            cpu_per_iteration=float(np.mean(per_it[1:] if len(per_it) > 1 else per_it)),
            evals_per_iteration=float(budget / max(1, len(per_it))),
            final=float(best[-1]),
            optimum=float(p.optimum),
            best_at=[float(best[k]) for k in range(99, budget, 100)],
        )
    )
)
