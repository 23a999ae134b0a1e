"""Which form of the output GPs gp-ei's Monte-Carlo acquisitions should read (issue 43 item 2).

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/auto/mc_model_cost.py [--seeds 5] \
        [--out benchmarks/results/auto/mc_model_cost.md]

The same fitted GPs of several outputs (:func:`isoline.models.outputs.fit_gps`) can be read
by a Monte-Carlo acquisition as the batched BoTorch ``SingleTaskGP`` the fit returns, or as
a ``ModelListGP`` of its one-output models (``OutputGPs.model_list``). Both describe one posterior;
the question is what each costs. For each problem, acquisition and seed, the script draws
``n`` uniform points, fits the GPs once, builds the acquisition gp-ei builds (same sampler
seed) on each model form, and records the largest difference of the two acquisitions'
values at 256 random points and the process CPU of one gp-ei acquisition search
(:func:`isoline.acquisition.maximize`, gp-ei's default 10 restarts and 512 raw samples).
The fit is shared, so the comparison isolates the acquisition's model reads.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from botorch.acquisition import AcquisitionFunction  # noqa: E402
from botorch.sampling import SobolQMCNormalSampler  # noqa: E402

import isoline as iso  # noqa: E402
from isoline.acquisition import maximize  # noqa: E402
from isoline.methods.gp_outputs import (  # noqa: E402
    constrained_log_nei,
    hypervolume_log_nei,
    parego_log_nei,
)
from isoline.models.outputs import OutputGPs, fit_gps  # noqa: E402

#: (problem, dim, acquisition, evaluated points)
CASES = [
    ("pressure-vessel", 4, "qlogei", 30),
    ("speed-reducer", 7, "qlogei", 40),
    ("branin-currin", 2, "ehvi", 30),
    ("vehicle-safety", 5, "ehvi", 40),
    ("dtlz2", 6, "parego", 40),
]


class _Form:
    """``OutputGPs`` whose ``model`` is replaced (the ``ModelListGP`` form)."""

    def __init__(self, gps: OutputGPs, model: object) -> None:
        self.model, self.y_scales, self.num_outputs = model, gps.y_scales, gps.num_outputs


def _acquisition(
    kind: str, gps: OutputGPs | _Form, X: np.ndarray, Y: np.ndarray, k: int
) -> AcquisitionFunction:
    none = np.empty((0, X.shape[1]))
    sampler = SobolQMCNormalSampler(torch.Size([128]), seed=0)
    g: OutputGPs = gps  # type: ignore[assignment]
    torch.manual_seed(0)  # the baseline pruning's samples and ParEGO's weights
    if kind == "qlogei":
        return constrained_log_nei(g, X, none, sampler)
    if kind == "ehvi":
        return hypervolume_log_nei(g, X, Y, k, none, sampler)
    return parego_log_nei(g, X, k, none, sampler)


def _timed(fn: Callable[[], object]) -> tuple[object, float]:
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def one(name: str, dim: int, kind: str, n: int, seed: int) -> dict[str, float]:
    problem = iso.problems.get(name, dim)
    lo, hi = (np.asarray(b, dtype=float) for b in (problem.space.lower, problem.space.upper))
    U = np.random.default_rng(seed).random((n, dim))
    Y = np.array([problem.outputs(lo + u * (hi - lo)) for u in U])
    k = problem.objective.n_objectives
    gps = fit_gps(U, Y)
    listed = gps.model_list()
    Xc = torch.rand(256, 1, dim, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    row: dict[str, float] = {}
    values = []
    for form, g in (("batched", gps), ("list", _Form(gps, listed))):
        acqf = _acquisition(kind, g, U, Y, k)
        with torch.no_grad():
            values.append(acqf(Xc))
        torch.manual_seed(seed)
        _, row[form] = _timed(lambda acqf=acqf: maximize(acqf, dim, 1))
    row["max_diff"] = float((values[0] - values[1]).abs().max())
    return row


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--out")
    a = p.parse_args()
    torch.set_num_threads(1)
    lines = [
        "| problem | d | acquisition | n | list CPU s (mean) | batched CPU s (mean) "
        "| list / batched (per seed) | max value difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, dim, kind, n in CASES:
        rows = [one(name, dim, kind, n, s) for s in range(a.seeds)]
        lst = np.array([r["list"] for r in rows])
        bat = np.array([r["batched"] for r in rows])
        ratio = ", ".join(f"{x:.2f}" for x in lst / bat)
        diff = max(r["max_diff"] for r in rows)
        lines.append(
            f"| {name} | {dim} | {kind} | {n} | {lst.mean():.2f} | {bat.mean():.2f} "
            f"| {ratio} | {diff:.1e} |"
        )
        print(lines[-1], flush=True)
    if a.out:
        Path(a.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
