"""Where LA-MinUCB puts its look-ahead points and where its moves land (diagnostic).

Usage: .venv/bin/python benchmarks/local_bo/la_minucb_geometry.py D BUDGET SEED [OPTIONS]
Prints, over all iterations: distance of the look-ahead points Z from x_t relative to the
box corner distance delta*sqrt(d), the fraction of Z on the box boundary (some coordinate
at x_t +- delta), the move length, and how often the move lands on an evaluated point.
"""

import json
import sys

import numpy as np
import torch

import isoline as iso
from isoline.problems.gp_sample import lengthscale_range

torch.set_num_threads(1)
d, budget, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
extra = eval(sys.argv[4]) if len(sys.argv) > 4 else {}
p = iso.problems.get("gp-sample", dim=d, seed=seed, variant="interpolating")
a, b = lengthscale_range(d)
opt = iso.Optimizer(p.space, "la-minucb", seed=seed, n_init=1, lengthscale=(a + b) / 2,
                    outputscale=1.0, noise=0.01, **extra)  # fmt: skip
m = opt.method
zdist, zbound, moves, on_data = [], [], [], []
prev_center, it = None, 0
for _ in range(budget):
    X = opt.ask()
    if m.iteration != it:  # X[0] is the move x_{t+1}
        it = m.iteration
        Z = m.X[len(m.X) - m.b :]
        c = prev_center
        if c is not None:
            zdist += list(np.linalg.norm(Z - c, axis=1) / (m.delta * np.sqrt(d)))
            lo, hi = np.clip(c - m.delta, 0, 1), np.clip(c + m.delta, 0, 1)
            zbound += list(np.mean((np.abs(Z - lo) < 1e-6) | (np.abs(Z - hi) < 1e-6), axis=1))
            moves.append(float(np.linalg.norm(X[0] - c)))
        on_data.append(float(np.min(np.linalg.norm(m.X - X[0], axis=1))) < 1e-3 * np.sqrt(d))
        prev_center = X[0].copy()
    y, info = p(X[0])
    opt.tell(X, [y])
print(
    json.dumps(
        dict(
            d=d,
            seed=seed,
            extra=str(extra),
            iterations=it,
            z_dist_over_corner_median=float(np.median(zdist)),
            z_fraction_of_coordinates_on_box_boundary=float(np.mean(zbound)),
            move_length_median=float(np.median(moves)),
            moves_onto_evaluated_points=float(np.mean(on_data)),
            lengthscale=(a + b) / 2,
        )
    )
)
