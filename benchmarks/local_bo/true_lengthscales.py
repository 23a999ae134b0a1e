"""LA-MinUCB and MinUCB with the objective's true per-dimension lengthscales vs one midpoint.

The GIBO/MPD reference code fixes the GP hyperparameters of the synthetic objectives at the
generating values, including one lengthscale per dimension; the Figure 2 configs give every
instance the midpoint of the lengthscale distribution instead (the runner passes the same
options to every instance). This script measures what that difference does, on held-out
seeds (100+), with the rest as in the Figure 2 configs. One JSON line per run.

    python benchmarks/local_bo/true_lengthscales.py D BUDGET SEED [SEED ...]
"""

import json
import sys
import time

import numpy as np
import torch

import isoline as iso
from isoline.problems.gp_sample import lengthscale_range

torch.set_num_threads(1)
d, budget, seeds = int(sys.argv[1]), int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
for seed in seeds:
    p = iso.problems.get("gp-sample", dim=d, seed=seed, variant="interpolating")
    a, b = lengthscale_range(d)
    for method in ("la-minucb", "minucb"):
        for setting, ls in (
            ("midpoint", (a + b) / 2),
            ("true", [float(v) for v in p.lengthscales]),
        ):
            opt = iso.Optimizer(p.space, method, seed=seed, n_init=1, lengthscale=ls,
                                outputscale=1.0, noise=0.01)  # fmt: skip
            t0, nf = time.process_time(), []
            for i in range(budget):
                X = opt.ask()
                y, info = p(X[0], number=i)
                opt.tell(X, [y])
                nf.append(info["noise_free"])
            best = np.minimum.accumulate(nf) - p.optimum
            print(json.dumps(dict(method=method, lengthscale=setting, d=d, seed=seed,
                                  regret=float(best[-1]), regret_at_100=float(best[99]),
                                  cpu=time.process_time() - t0)), flush=True)  # fmt: skip
