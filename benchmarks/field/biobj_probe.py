"""Which ingredient of auto's several-objective form loses on COCO's bbob-biobj cells.

An exploratory probe, not a decision: on a few cells of the multi-objective suite (the
suite's own seeds, which its R3 table has already reported), gp-ei is run in four forms
that cross the acquisition (Knowles's ParEGO with one GP of the scalarization, against
BoTorch's qLogNParEGO with one GP per objective) with the acquisition search (the lean
search auto ran then, against gp-ei's full one), and in a fifth, ParEGO with the full
search and the objectives winsorized (gp-ei's ``winsorize``). It prints the method CPU and the hypervolume against
the problem's reference point (0 when no evaluation dominates it) of each run.

    python benchmarks/field/biobj_probe.py --cells biobj-f1-d10:0,1,2 biobj-f1-d5:0,1
    python benchmarks/field/biobj_probe.py --cells biobj-f46-d2:0,1,2 --forms 'full search'
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import isoline as iso  # noqa: E402
from isoline.auto import TUNING_OPTIONS  # noqa: E402
from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.runner import make_problem  # noqa: E402
from isoline.threads import single_threaded  # noqa: E402

CONFIG = ROOT / "benchmarks/field/multiobjective.yaml"
#: the lean search and refit of auto's tuning options, which auto's several-objective form
#: used when the probe was made
_LEAN = {k: TUNING_OPTIONS[k]
         for k in ("refit_growth", "fit_ftol", "acq_maxiter", "raw_samples", "num_restarts")}  # fmt: skip
#: the four forms (acquisition x search), then the winsorized one
FORMS = {
    "ParEGO-EI, lean search": {"mo_acquisition": "parego-ei", **_LEAN},
    "ParEGO-EI, full search": {"mo_acquisition": "parego-ei"},
    "qLogNParEGO, lean search": {"mo_acquisition": "parego", **_LEAN},
    "qLogNParEGO, full search": {"mo_acquisition": "parego"},
    "ParEGO-EI, full search, winsorized": {"mo_acquisition": "parego-ei", "winsorize": True},
}


def run(label: str, seed: int, options: dict[str, object]) -> tuple[float, float]:
    """(method CPU seconds, hypervolume) of one run of gp-ei with ``options``."""
    spec = load_config(CONFIG).run_of(label, seed)
    problem = make_problem(spec)
    t = time.process_time()
    with single_threaded():
        res = iso.optimize(problem, problem.space, objective=problem.objective,
                           method="gp-ei", budget=spec.budget, seed=seed, **options)  # fmt: skip
    cpu = time.process_time() - t
    try:
        return cpu, float(res.hypervolume(problem.ref_point))
    except ValueError:  # no evaluation dominates the reference point
        return cpu, 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--cells", nargs="+", required=True, help="LABEL:SEED,SEED ...")
    ap.add_argument("--forms", default="", help="regular expression: only the forms it finds")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    forms = {k: v for k, v in FORMS.items() if re.search(args.forms, k)}
    print("| cell | " + " | ".join(forms) + " |")
    print("|---|" + "---|" * len(forms))
    for cell in args.cells:
        label, _, seeds = cell.partition(":")
        for seed in map(int, seeds.split(",")):
            out = [run(label, seed, dict(opts)) for opts in forms.values()]
            row = " | ".join(f"{hv:.4g} ({cpu:.0f} s)" for cpu, hv in out)
            print(f"| {label} seed {seed} | {row} |", flush=True)


if __name__ == "__main__":
    main()
