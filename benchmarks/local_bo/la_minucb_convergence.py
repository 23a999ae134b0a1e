"""Does LA-MinUCB's one-shot look-ahead optimization converge?  (investigation (b))

Runs default LA-MinUCB on gp-sample (held-out seed) and, at fixed GP states (after
`checkpoints` evaluations, right before a look-ahead step), maximizes the SAME one-shot
objective (same GP, same fantasy base samples, same x_t +- delta box) with
  default effort: 5 restarts from 64 raw candidates, maxiter 50  (the method's defaults)
  large effort:   20 restarts from 256 raw candidates, maxiter 1000
  F64, F64_it200: 64 fantasies (default restarts), maxiter 50 / 200
and reports the in-sample value reached (higher = better, it is -E[min UCB]) and an
out-of-sample value of the chosen Z: 128 fresh fantasies, inner minimizers re-optimized
with Z fixed (maxiter 300); the same for two unoptimized baselines (best raw Sobol Z, and
b copies of x_t). Also reports the value of min_x UCB_D(x) now (no look-ahead).

Usage: python benchmarks/local_bo/la_minucb_convergence.py D SEED CKPT[,CKPT...]
Prints one JSON line per checkpoint.
"""

import json
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
from botorch.sampling.qmc import NormalQMCEngine  # noqa: E402

import isoline as iso  # noqa: E402
from isoline.acquisition import maximize  # noqa: E402
from isoline.methods.la_minucb import DTYPE, LookaheadUCB  # noqa: E402
from isoline.methods.ucb_move import box_around, sobol_box  # noqa: E402
from isoline.problems.gp_sample import lengthscale_range  # noqa: E402

d, seed = int(sys.argv[1]), int(sys.argv[2])
ckpts = sorted(int(c) for c in sys.argv[3].split(","))
p = iso.problems.get("gp-sample", dim=d, seed=seed, variant="interpolating")
a, b = lengthscale_range(d)
opt = iso.Optimizer(
    p.space, "la-minucb", seed=seed, n_init=1, lengthscale=(a + b) / 2, outputscale=1.0, noise=0.01
)
m = opt.method


def solve(acqf, n, F, center, delta, restarts, raw, maxiter, s):
    R = max(raw, restarts)
    Zr = sobol_box(R * n, box_around(center, delta), s).reshape(R, n, d)
    X0 = np.concatenate([Zr, np.broadcast_to(center, (R, F, d))], axis=1)
    with torch.no_grad():
        v = acqf(torch.as_tensor(X0)).numpy()
    top = np.argsort(-np.where(np.isfinite(v), v, -np.inf), kind="stable")
    t = time.process_time()
    X, val = maximize(
        acqf,
        d,
        n + F,
        bounds=box_around(center, delta),
        initial_conditions=X0[top[:restarts]],
        options={"maxiter": maxiter},
    )
    return X[:n], float(val), time.process_time() - t


def out_of_sample(gp, Z, center, delta, s, F=128):
    eps = NormalQMCEngine(len(Z), seed=s).draw(F, dtype=DTYPE)
    acqf = LookaheadUCB(gp.model, m.beta, eps, gp.noise, torch.as_tensor(Z, dtype=DTYPE))
    X0 = np.broadcast_to(center, (1, F, d)).copy()
    _, val = maximize(
        acqf,
        d,
        F,
        bounds=box_around(center, delta),
        initial_conditions=X0,
        options={"maxiter": 300},
    )
    return float(val)


n_eval = 0
for ck in ckpts:
    # advance with the default method until >= ck evaluations and a look-ahead is next
    while n_eval < ck or m._next != "lookahead" or m.center is None:
        X = opt.ask()
        y, _ = p(X[0])
        opt.tell(X, [y])
        n_eval += 1
    gp = m._fit()
    center, n, F = m.center.copy(), m.b, m.num_fantasies
    s = 12345 + ck
    eps = NormalQMCEngine(n, seed=s).draw(F, dtype=DTYPE)
    acqf = LookaheadUCB(gp.model, m.beta, eps, gp.noise)
    eps64 = NormalQMCEngine(n, seed=s).draw(64, dtype=DTYPE)
    acqf64 = LookaheadUCB(gp.model, m.beta, eps64, gp.noise)
    with torch.no_grad():  # value with no look-ahead information: min UCB_D at x_t region
        ucb_now = -float(
            acqf(
                torch.as_tensor(
                    np.concatenate(
                        [np.broadcast_to(center, (1, n, d)), np.broadcast_to(center, (1, F, d))],
                        axis=1,
                    )
                )
            ).numpy()[0]
        )
    row = dict(d=d, seed=seed, evals=n_eval, b=n, F=F, ucb_at_center=ucb_now)
    variants = dict(
        default=(acqf, F, 5, 64, 50),
        large=(acqf, F, 20, 256, 1000),
        F64=(acqf64, 64, 5, 64, 50),
        F64_it200=(acqf64, 64, 5, 64, 200),
    )
    for name, (af, FF, rs, raw, it) in variants.items():
        Z, val, cpu = solve(af, n, FF, center, m.delta, rs, raw, it, s)
        oos = out_of_sample(gp, Z, center, m.delta, s + 1)
        row[name] = dict(
            in_sample=val,
            out_of_sample_F128=oos,
            cpu=round(cpu, 2),
            dist_Z_center=float(np.linalg.norm(Z - center, axis=1).mean()),
        )
    # baselines without any L-BFGS-B on Z: the best of the 64 raw Sobol candidates (the
    # optimizer's start), and b copies of x_t (pure resampling, MinUCB's line 3)
    R = 64
    Zr = sobol_box(R * n, box_around(center, m.delta), s).reshape(R, n, d)
    with torch.no_grad():
        v = acqf(torch.as_tensor(np.concatenate([Zr, np.broadcast_to(center, (R, F, d))], 1)))
    row["raw_best_Z"] = dict(
        out_of_sample_F128=out_of_sample(gp, Zr[int(torch.argmax(v))], center, m.delta, s + 1)
    )
    row["Z_at_center"] = dict(
        out_of_sample_F128=out_of_sample(
            gp, np.broadcast_to(center, (n, d)).copy(), center, m.delta, s + 1
        )
    )
    print(json.dumps(row), flush=True)
