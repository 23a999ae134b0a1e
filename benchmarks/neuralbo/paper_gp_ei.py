"""The NeuralBO paper's GP-EI baseline as its code ran it: does "NeuralBO beats GP-EI" rest on it?

The authors' GP baselines (module ``gptorch`` of ``phantrdat/neuralbo``, see
``../shared/notes/neuralbo-reference-code.md``) normalize the inputs into a local copy and
maximize the acquisition over the normalized box, but GP-EI fits its ``FixedNoiseGP`` and
``NoisyExpectedImprovement`` on the *raw-unit* inputs. EI is then evaluated at the wrong
places: on Levy ([-10, 10]^d) the model is queried within about [-2, 2]^d of raw units,
and the point evaluated is the normalized point mapped back, far from where EI was computed.

This script runs, on the Figure 1 cells (Ackley, Levy, Michalewicz; d = 10 and 20 with 200
evaluations, d = 50 with 100), from the same 10 Sobol points per seed:

* ``paper-gp-ei``: that loop (fixed-noise GP on raw inputs and raw ``y``, analytic noisy
  EI, maximized over the normalized box, the point mapped back to raw units);
* ``paper-gp-ei-fixed``: the same loop with the model on the normalized inputs (the bug
  fixed, everything else equal);
* isoline's ``gp-ei``, ``neuralbo`` (default options and ``preset="authors"``) and
  ``random``.

Both diagnostic GP-EIs and isoline's gp-ei use 2 L-BFGS-B restarts from 128 raw samples,
as ``synthetic.yaml``; NeuralBO scans 10,000 candidates (also as there). The diagnostic is
registered in this process only (it is not a method of the package). Every run is a
resumable study in ``--storage``; ``summary`` writes the table and the one-sided tests.

Usage::

    python benchmarks/neuralbo/paper_gp_ei.py run --storage paper_gp_ei.db [--cells levy]
    python benchmarks/neuralbo/paper_gp_ei.py summary --storage paper_gp_ei.db --out DIR
"""

from __future__ import annotations

import argparse
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from botorch.acquisition.analytic import NoisyExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.optim import optimize_acqf
from gpytorch.mlls import ExactMarginalLogLikelihood

from isoline.bench.config import MethodSpec, ProblemSpec, RunSpec
from isoline.bench.report import git_commit
from isoline.bench.runner import make_problem, run_one
from isoline.bench.stats import markdown_ttest_table, to_markdown, ttest_table
from isoline.methods.base import Method
from isoline.methods.gp_bo import PAPER_GP_OPTIONS
from isoline.methods.registry import register
from isoline.store import Store
from isoline.validation import check_choice, check_float, check_int

CONFIG = "paper-gp-ei"
N_INIT = 10
#: (function, dimension, budget, SFU bounds or None for the problem's default)
CELLS = [
    (fn, d, 200 if d <= 20 else 100, bounds)
    for fn, bounds in (("ackley", (-32.768, 32.768)), ("levy", None), ("michalewicz", None))
    for d in (10, 20, 50)
]
ACQ = {"num_restarts": 2, "raw_samples": 128}
METHODS: list[tuple[str, str, dict[str, Any]]] = [
    ("paper-gp-ei", "paper GP-EI (raw inputs)", {"n_init": N_INIT, "inputs": "raw", **ACQ}),
    ("paper-gp-ei", "paper GP-EI (fixed)", {"n_init": N_INIT, "inputs": "normalized", **ACQ}),
    ("gp-ei", "GP-EI", {"n_init": N_INIT, **PAPER_GP_OPTIONS, **ACQ}),
    ("neuralbo", "NeuralBO", {"n_init": N_INIT, "n_candidates": 10_000}),
    ("neuralbo", "NeuralBO authors", {"n_init": N_INIT, "preset": "authors"}),
    ("random", "Random", {}),
]
DTYPE = torch.float64


@register
class PaperGPEI(Method):
    """The GP-EI loop of the NeuralBO authors' ``gptorch`` module (a diagnostic).

    Options:
        lower, upper: the problem's box in raw units (the same for every coordinate).
        noise_var: the known noise variance of the fixed-noise GP, raw units.
        inputs: ``"raw"`` fits the GP and the noisy-EI baseline points on raw-unit inputs
            while the acquisition is maximized over the normalized box (the authors' code);
            ``"normalized"`` fits them on the normalized inputs (the bug fixed).
        num_restarts, raw_samples: BoTorch ``optimize_acqf`` settings.
    """

    name = "paper-gp-ei"
    family = "diagnostic"
    paper = "Phan-Trong et al., NeuralBO (Neurocomputing 2023), authors' gptorch.minimize"

    def __init__(
        self,
        dim: int,
        *,
        lower: float = 0.0,
        upper: float = 1.0,
        noise_var: float = 1e-6,
        inputs: str = "raw",
        num_restarts: int = 2,
        raw_samples: int = 128,
        **common: Any,
    ) -> None:
        super().__init__(dim, **common)
        self.lower = check_float(lower, "lower")
        self.upper = check_float(upper, "upper", self.lower, low_open=True)
        self.noise_var = check_float(noise_var, "noise_var", 0.0, low_open=True)
        self.inputs = check_choice(inputs, "inputs", ("raw", "normalized"))
        self.num_restarts = check_int(num_restarts, "num_restarts", 1)
        self.raw_samples = check_int(raw_samples, "raw_samples", 1)

    def propose(self, q: int) -> np.ndarray:
        X, y = self.data()
        width = self.upper - self.lower
        raw = torch.as_tensor(self.lower + X * width, dtype=DTYPE)  # evaluated points, raw units
        mean, std = raw.mean(0), raw.std(0).clamp_min(1e-12)
        normalized = (raw - mean) / std
        train = raw if self.inputs == "raw" else normalized
        Y = torch.as_tensor(y, dtype=DTYPE).unsqueeze(-1)  # raw y, minimized below
        with self.torch_rng(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # BoTorch warns about unscaled inputs and outputs
            model = SingleTaskGP(
                train, Y, torch.full_like(Y, self.noise_var), outcome_transform=None
            )
            fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
            acqf = NoisyExpectedImprovement(model, train, maximize=False)
            box = torch.stack([(self.lower - mean) / std, (self.upper - mean) / std])
            Z, _ = optimize_acqf(
                acqf, bounds=box, q=1, num_restarts=self.num_restarts, raw_samples=self.raw_samples
            )
        x_raw = Z.reshape(-1) * std + mean  # the normalized maximizer mapped back
        u = ((x_raw - self.lower) / width).clamp(0.0, 1.0).numpy()
        return np.repeat(u[None], q, axis=0)


def _specs(cells: str | None) -> list[RunSpec]:
    out = []
    for fn, d, budget, bounds in CELLS:
        if cells and not re.search(cells, f"{fn}-{d}"):
            continue
        kwargs: dict[str, Any] = {"dim": d, "noise_std": "1%range"}
        if bounds is not None:
            kwargs["bounds"] = list(bounds)
        problem = ProblemSpec(fn, f"{fn.capitalize()} D={d}", kwargs)
        for seed in range(5):
            p = make_problem(RunSpec(CONFIG, MethodSpec("random", "x"), problem, seed, budget, 1))
            lo, hi = float(p.space.lower[0]), float(p.space.upper[0])
            for name, label, options in METHODS:
                if name == "paper-gp-ei":
                    options = dict(options, lower=lo, upper=hi, noise_var=float(p.noise_std) ** 2)
                out.append(
                    RunSpec(CONFIG, MethodSpec(name, label, options), problem, seed, budget, 1)
                )
    return out


def run(storage: str, cells: str | None) -> None:
    for spec in _specs(cells):
        s = run_one(spec, storage)
        note = "done before" if s.skipped else f"best {s.best:.4g} in {s.seconds:.0f} s"
        print(f"{spec.study}: {note}", flush=True)


def summary(storage: str, out: Path) -> None:
    """Final noise-free simple regret per cell and method (mean +- SEM), one-sided tests."""
    finals: dict[str, dict[str, list[float]]] = {}
    with Store(storage, readonly=True) as store:
        for spec in _specs(None):
            rec = store.get_study(spec.study)
            if rec is None or not rec.finished:
                continue
            trials = [t for t in store.trials(rec) if t.status == "ok"]
            vals = [t.info.get("noise_free", t.y) if t.info else t.y for t in trials]
            problem = make_problem(spec)
            best = float(np.min(vals)) - float(problem.optimum or 0.0)
            finals.setdefault(spec.problem.label, {}).setdefault(spec.method.label, []).append(best)
    labels = [label for _, label, _ in METHODS]
    rows = []
    for cell, per in finals.items():
        row: dict[str, object] = {"cell": cell}
        for label in labels:
            v = np.array(per.get(label, []))
            row[label] = (
                f"{v.mean():.4g} +- {v.std(ddof=1) / np.sqrt(v.size):.2g} ({v.size})"
                if v.size > 1
                else "-"
            )
        rows.append(row)
    complete = {c: p for c, p in finals.items() if all(len(p.get(lbl, [])) >= 2 for lbl in labels)}
    tests = ttest_table(complete, "NeuralBO", alternative="greater") if complete else []
    commit = git_commit()
    text = [
        "# The NeuralBO paper's GP-EI as its code ran it",
        "",
        f"Store `{storage}`; commit `{commit}`; command "
        "`python benchmarks/neuralbo/paper_gp_ei.py summary`.",
        "Final noise-free simple regret, mean +- SEM (number of seeds).",
        "",
        to_markdown(rows, ["cell", *labels]),
        "",
        "One-sided Welch t-tests, H0: baseline mean <= NeuralBO mean (T: the baseline is "
        "significantly worse than NeuralBO at FDR 0.05, Benjamini-Hochberg over the table):",
        "",
        markdown_ttest_table(tests) if tests else "(no complete cell yet)",
        "",
    ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "README.md").write_text("\n".join(text))
    print("\n".join(text))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--storage", required=True)
    r.add_argument("--cells", help="regular expression on 'function-d', e.g. 'levy|ackley-10'")
    s = sub.add_parser("summary")
    s.add_argument("--storage", required=True)
    s.add_argument("--out", type=Path, default=Path("benchmarks/results/neuralbo/paper_gp_ei"))
    args = p.parse_args()
    if args.cmd == "run":
        run(args.storage, args.cells)
    else:
        summary(args.storage, args.out)


if __name__ == "__main__":
    main()
