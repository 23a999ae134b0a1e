"""Seconds per suggestion of isoline's ``gp-ei`` vs BoTorch's own loop and Optuna's GPSampler.

For each number of observations n (d = 10, Ackley on [-2, 2]^10, n scrambled Sobol points
with seed = repetition) every contender makes one suggestion from the same n points:

* ``isoline gp-ei``: the method as it runs inside a loop: it was told the first n - 1
  points and asked once (not timed; this leaves its warm-start hyperparameters; the point
  is withdrawn, since the data's n-th point replaces it: since gp-ei treats asked points
  as pending, a point never told would otherwise steer the timed ask away from itself),
  then told the n-th point; the next ``ask()`` is timed. RBF kernel and BoTorch's
  hyperparameter priors, as BoTorch's loop (gp-ei's defaults until they became Matern-5/2
  with Optuna's priors; this script's committed results were measured with these).
* ``isoline gp-ei matern52``: the same with ``kernel="matern52"`` (BoTorch's priors).
* ``isoline gp-ei cold``: a fresh method told all n points (``warm_start`` has nothing
  to start from), time ``ask()``.
* ``botorch loop``: ``SingleTaskGP`` (BoTorch defaults: RBF, ``Standardize``) +
  ``fit_gpytorch_mll`` + ``qLogExpectedImprovement`` + ``optimize_acqf`` with the same
  ``num_restarts=10, raw_samples=512``, refitted from scratch as in BoTorch's tutorial
  loop; run with torch's default thread count (what a user gets) and on one torch thread
  (as isoline's asks run: one torch and one BLAS thread).
* ``optuna GPSampler``: inside a loop too: a study with n - 1 completed trials is asked
  once (not timed; GPSampler caches its kernel parameters), that trial is marked failed,
  the n-th point is added as a completed trial, and the next ``study.ask`` (which runs
  ``GPSampler.sample_relative``) is timed, on one torch and one BLAS thread
  (``isoline.threads.single_threaded``, as isoline's asks run: GPSampler limits torch's
  threads itself but OpenBLAS's only by an environment variable, which does not reach an
  OpenBLAS numpy has loaded; until 2026-11-26 it was timed with two BLAS threads).

Quality: the true objective value f(x) of the suggestion (lower is better), and its log
expected improvement under one reference model (a BoTorch-default GP fitted to the same
data, i.e. the BoTorch loop's own model -- that column favours the BoTorch loop).

Run:  nice -n 10 .venv/bin/python benchmarks/overhead/run.py
Writes benchmarks/results/overhead/README.md and raw.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import platform
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import optuna
import torch
from botorch.acquisition import LogExpectedImprovement, qLogExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.transforms.outcome import Standardize
from botorch.optim import optimize_acqf
from gpytorch.mlls import ExactMarginalLogLikelihood

import isoline
from isoline.designs import sobol
from isoline.methods.registry import make_method
from isoline.problems import get as get_problem
from isoline.threads import single_threaded

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "overhead"
D = 10
RESTARTS, RAW = 10, 512
CONTENDERS = (
    "isoline gp-ei",
    "isoline gp-ei matern52",
    "isoline gp-ei cold",
    "botorch loop",
    "botorch loop 1 thread",
    "optuna GPSampler",
)


def isoline_ei(X: np.ndarray, y: np.ndarray, seed: int, kernel: str, in_loop: bool):
    """A gp-ei method ready to suggest from (X, y), and the callable to time."""
    m = make_method(
        "gp-ei", D, seed=seed, n_init=0, kernel=kernel, priors="botorch",
        num_restarts=RESTARTS, raw_samples=RAW,
    )  # fmt: skip
    if in_loop:
        m.tell(X[:-1], y[:-1])
        # the previous iteration of the loop, whose point is replaced by X[-1]: withdrawn, or
        # it would stay pending (asked, never told) and the timed ask would avoid it
        m.withdraw(m.ask())
        m.tell(X[-1:], y[-1:])
    else:
        m.tell(X, y)
    return lambda: m.ask()[0]


def botorch_loop(X: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    """The standard BoTorch loop; BoTorch maximizes, so it models -y."""
    torch.manual_seed(seed)
    Xt = torch.tensor(X, dtype=torch.float64)
    Yt = torch.tensor(-y, dtype=torch.float64).unsqueeze(-1)
    model = SingleTaskGP(Xt, Yt, outcome_transform=Standardize(m=1))
    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    acqf = qLogExpectedImprovement(model, best_f=Yt.max())
    bounds = torch.stack([torch.zeros(D), torch.ones(D)]).to(Xt)
    cand, _ = optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=RESTARTS, raw_samples=RAW)
    return cand.detach().numpy()[0]


def botorch_loop_1t(X: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    with single_threaded():
        return botorch_loop(X, y, seed)


def optuna_ask(X: np.ndarray, y: np.ndarray, seed: int):
    """A GPSampler study in a loop at n = len(X) completed trials, and the callable to time."""
    dists = {f"x{i}": optuna.distributions.FloatDistribution(0.0, 1.0) for i in range(D)}

    def trial(x: np.ndarray, v: float) -> optuna.trial.FrozenTrial:
        return optuna.trial.create_trial(
            params={f"x{i}": float(u) for i, u in enumerate(x)}, distributions=dists, value=float(v)
        )

    study = optuna.create_study(sampler=optuna.samplers.GPSampler(seed=seed))
    study.add_trials([trial(x, v) for x, v in zip(X[:-1], y[:-1])])
    previous = study.ask(dists)  # the previous iteration of the loop
    study.tell(previous, state=optuna.trial.TrialState.FAIL)
    study.add_trial(trial(X[-1], y[-1]))

    def ask() -> np.ndarray:
        t = study.ask(dists)
        return np.array([t.params[f"x{i}"] for i in range(D)])

    return ask


def reference_logei(X: np.ndarray, y: np.ndarray) -> LogExpectedImprovement:
    Xt = torch.tensor(X, dtype=torch.float64)
    Yt = torch.tensor(-y, dtype=torch.float64).unsqueeze(-1)
    model = SingleTaskGP(Xt, Yt, outcome_transform=Standardize(m=1))
    with torch.random.fork_rng():
        torch.manual_seed(0)
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    return LogExpectedImprovement(model, best_f=Yt.max())


def suggest(name: str, X: np.ndarray, y: np.ndarray, seed: int) -> tuple[np.ndarray, float, float]:
    """(suggestion in the unit cube, wall seconds, CPU seconds); set-up is not timed."""
    if name == "optuna GPSampler":
        fn = optuna_ask(X, y, seed)
    elif name.startswith("isoline"):
        kernel = "matern52" if name.endswith("matern52") else "rbf"
        fn = isoline_ei(X, y, seed, kernel, in_loop=not name.endswith("cold"))
    else:
        fn = {"botorch loop": botorch_loop, "botorch loop 1 thread": botorch_loop_1t}[name]
        fn = functools.partial(fn, X, y, seed)
    w, c = time.perf_counter(), time.process_time()
    if name == "optuna GPSampler":
        with single_threaded():  # GPSampler limits torch, and BLAS only by environment
            x = fn()
    else:
        x = fn()
    return x, time.perf_counter() - w, time.process_time() - c


def git_commit() -> str:
    def run(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    dirty = run(
        "status",
        "--porcelain",
        "--",
        "src/isoline/models/gp.py",
        "src/isoline/acquisition.py",
        "src/isoline/methods/gp_bo.py",
        "benchmarks/overhead/run.py",
    )
    return run("rev-parse", "HEAD") + (
        " (with uncommitted changes to the measured files)" if dirty else ""
    )


def table(rows: list[dict], ns: list[int]) -> str:
    lines = [
        "| n | contender | wall s / suggestion (median) | CPU s (median) | isoline gp-ei / this, wall | isoline gp-ei / this, CPU | f(x) mean ± sd (lower better) | ref. log EI mean (higher better) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n in ns:
        ours = [r for r in rows if r["n"] == n and r["who"] == "isoline gp-ei"]
        ref_w = np.median([r["wall"] for r in ours])
        ref_c = np.median([r["cpu"] for r in ours])
        for who in CONTENDERS:
            rs = [r for r in rows if r["n"] == n and r["who"] == who]
            if not rs:
                continue
            wall = np.median([r["wall"] for r in rs])
            cpu = np.median([r["cpu"] for r in rs])
            f = np.array([r["f"] for r in rs])
            le = np.array([r["ref_logei"] for r in rs])
            ratios = (
                ("1", "1")
                if who == "isoline gp-ei"
                else (f"{ref_w / wall:.2f}", f"{ref_c / cpu:.2f}")
            )
            lines.append(
                f"| {n} | {who} | {wall:.3f} | {cpu:.3f} | {ratios[0]} | {ratios[1]} | "
                f"{f.mean():.3f} ± {f.std():.3f} | {le.mean():.2f} |"
            )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ns", type=int, nargs="+", default=[50, 200, 500])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    logging.getLogger("botorch").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    problem = get_problem("ackley", dim=D)
    f = lambda U: problem.evaluate_batch(problem.space.from_unit(U))  # noqa: E731

    # warm-up: imports, JIT and first-call caches are not part of the measurement
    Xw = sobol(20, D, seed=99)
    for who in CONTENDERS:
        suggest(who, Xw, f(Xw), 0)

    rows: list[dict] = []
    for n in args.ns:
        for rep in range(args.reps):
            X = sobol(n, D, seed=rep)
            y = f(X)
            ref = reference_logei(X, y)
            order = list(CONTENDERS[rep % len(CONTENDERS) :] + CONTENDERS[: rep % len(CONTENDERS)])
            for who in order:  # rotate the order so that load drifts hit everyone alike
                x, wall, cpu = suggest(who, X, y, rep)
                with torch.no_grad():
                    le = float(ref(torch.tensor(x, dtype=torch.float64).reshape(1, 1, D)))
                row = dict(
                    n=n,
                    rep=rep,
                    who=who,
                    wall=wall,
                    cpu=cpu,
                    f=float(f(x[None])[0]),
                    ref_logei=le,
                    best_seen=float(y.min()),
                )
                rows.append(row)
                print(json.dumps(row), flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "raw.json").write_text(json.dumps(rows, indent=1))
    cmd = "nice -n 10 .venv/bin/python benchmarks/overhead/run.py" + (
        ""
        if args.ns == [50, 200, 500] and args.reps == 5
        else f" --ns {' '.join(map(str, args.ns))} --reps {args.reps}"
    )
    best = {
        n: np.mean([r["best_seen"] for r in rows if r["n"] == n and r["who"] == CONTENDERS[0]])
        for n in args.ns
    }
    md = [
        "# Overhead: seconds per suggestion, d = 10",
        "",
        f"Command: `{cmd}`  ",
        f"Commit: `{git_commit()}`  ",
        f"Machine: {platform.machine()}, {torch.get_num_threads()} torch threads by default, "
        f"shared with other jobs; torch {torch.__version__}, botorch "
        f"{__import__('botorch').__version__}, optuna {optuna.__version__}, isoline "
        f"{isoline.__version__}.",
        "",
        f"Objective: Ackley on [-2, 2]^{D}; data: n scrambled Sobol points (seed = repetition), "
        f"{args.reps} repetitions per n; one suggestion per contender per repetition, in a "
        "rotating order. num_restarts = 10, raw_samples = 512 for isoline and BoTorch.",
        "Mean best value among the data: "
        + ", ".join(f"n={n}: {b:.3f}" for n, b in best.items())
        + ".",
        "",
        "The ratio column is (median wall time of isoline gp-ei) / (median wall time of "
        "this contender): < 1 means isoline gp-ei is faster. Wall times on this shared, "
        "loaded machine are noisy; the CPU column is steadier.",
        "",
        table(rows, args.ns),
        "",
        __doc__.split("\n\n", 1)[1].rsplit("\n\nRun:", 1)[0],
        "",
    ]
    (args.out / "README.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
