"""The method CPU of one gp-ei run with constraints or several objectives (issue 43 item 2),
optionally profiled.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/auto/constrained_cost.py \
        pressure-vessel logei 40 [--options '{"acq_maxiter": 20}'] [--profile out.prof]

Runs gp-ei with the given ``ei`` form on a problem of :mod:`isoline.problems` (its own
objective specification), seed ``--seed`` (0), with further gp-ei options given as JSON, into a
scratch store, and prints the stored method CPU
(attrs ``method_cpu``), the number of feasible evaluations and the best feasible value, or
with several objectives the hypervolume of the feasible front against the problem's
reference point (``ref_point``), beside the problem's largest (``max_hypervolume``).
``ei`` acts on one objective only.
With ``--profile`` the run is under cProfile (slower) and the fit and acquisition-search
shares are printed.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402

import isoline as iso  # noqa: E402
from isoline.store import Store  # noqa: E402

#: functions whose cumulative time the profile summary prints
PARTS = {
    "propose": "gp_bo.py",
    "_fit_outputs": "gp_bo.py",
    "_maximize": "gp_bo.py",
    "forward": "analytic.py",
}


def _profile_lines(path: str) -> list[str]:
    stats = pstats.Stats(path).stats  # type: ignore[attr-defined]
    lines = []
    for (file, _, name), (_, calls, _, cum, _) in stats.items():
        if name in PARTS and (file.endswith(PARTS[name]) or file.endswith("monte_carlo.py")):
            lines.append(f"{name} ({Path(file).name}): {calls} calls, {cum:.1f} s cumulative")
    return sorted(lines)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("problem")
    p.add_argument("ei", choices=["qlogei", "logei"])
    p.add_argument("budget", type=int)
    p.add_argument("--options", type=json.loads, default={}, help="more gp-ei options (JSON)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile")
    a = p.parse_args()
    problem = iso.problems.get(a.problem)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "run.db")
        prof = cProfile.Profile() if a.profile else None
        if prof:
            prof.enable()
        r = iso.optimize(problem, problem.space, direction=problem.objective, method="gp-ei",
                         budget=a.budget, seed=a.seed, storage=db, study="s", ei=a.ei,
                         **a.options)  # fmt: skip
        if prof:
            prof.disable()
            prof.dump_stats(a.profile)
        cpu = Store(db, readonly=True, create=False).get_study("s").attrs["method_cpu"]
    ok = r.feasible
    best = float(np.min(r.outputs[ok, 0])) if ok.any() else float("nan")
    value = (f"hypervolume {r.hypervolume(problem.ref_point):.6g} of "
             f"{problem.max_hypervolume:.6g}" if len(r.directions) > 1
             else f"best feasible {best:.6g}")  # fmt: skip
    print(f"{a.problem} ei={a.ei} {a.options} seed={a.seed} budget={a.budget}: method CPU {cpu:.1f} s, "
          f"{int(ok.sum())} feasible, {value}")  # fmt: skip
    if a.profile:
        print("\n".join(_profile_lines(a.profile)))


if __name__ == "__main__":
    main()
