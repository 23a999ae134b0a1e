"""Whole-run suggestion cost: isoline's GP methods against Optuna's GPSampler and BoTorch's loop.

A user pays for every suggestion of a run, not for one warm ``ask``. For each cell
(Ackley on [-2, 2]^d, d = 5, 10, 25 with 60, 100 and 200 evaluations) and seed, every
contender runs a complete sequential run (batches of 4 for bkop) from its own start, and
we record the sum over the run of the suggestion time (process CPU and wall, objective
excluded) and the final best value, so speed is never read without quality:

* isoline ``gp-ei``, ``gp-ucb``, ``turbo``, ``la-minucb`` and ``bkop`` (q = 4), default
  options, driven by ``Optimizer.ask``/``tell``; their CPU is split into GP fitting
  (``fit_gp``), acquisition optimization (``acquisition.maximize``) and the rest, by
  wrapping those two functions for the run, and into the first and second half of the
  run (small and large n);
* Optuna's ``GPSampler`` (seeded), one ``study.ask`` per suggestion (where it runs
  ``sample_relative``), the objective told with ``study.tell``; with ``greenlet``
  installed (the ``optuna`` extra), without which GPSampler optimizes its acquisition
  sequentially and warns;
* variants of isoline methods with non-default options (``VARIANTS``, e.g. gp-ei with a
  looser hyperparameter fit), each compared seed by seed with its method's defaults;
  gp-ei's variants start from ``OLD_GP_EI`` (RBF kernel, BoTorch's priors), its defaults
  until they became Matern-5/2 under Optuna's priors, against which they were measured;
  ``gp-ei:rbf-botorch`` is those old defaults themselves;
* BoTorch's tutorial loop: ``SingleTaskGP`` (defaults) + ``fit_gpytorch_mll`` +
  ``qLogExpectedImprovement`` + ``optimize_acqf(num_restarts=10, raw_samples=512)``,
  refitted every step, after 2d Sobol points (isoline's default initial design size).

The "x GPSampler" column divides by the GPSampler runs of the same commit's file: run
GPSampler with every batch of contenders (``--only gp-ei optuna-gp``), since per-seed
interleaving puts both under the same load of the machine.

Every contender runs on one torch thread and one BLAS thread (``isoline.threads.single_threaded``,
as isoline's asks always run). GPSampler limits torch's threads itself, and OpenBLAS's only
through an environment variable, which does not reach an OpenBLAS that numpy has already
loaded: until 2026-11-26 this script limited torch alone, and GPSampler then spun two BLAS
threads, which under the machine's other load multiplied its CPU (d = 5, seed 0: 16-18 s
against 1.5-1.7 s with one BLAS thread, the same trajectory). The machine's other load
still shows in CPU time a little, and in wall time more. Results go to a JSON-lines file, one line per
(cell, contender, seed), so an interrupted run resumes; ``summary`` writes the table.

Usage::

    nice -n 10 python benchmarks/overhead/whole_run.py run --out whole_run.jsonl
    nice -n 10 python benchmarks/overhead/whole_run.py run --out F --only gp-ei gp-ei:lean optuna-gp --dims 25
    python benchmarks/overhead/whole_run.py summary --out whole_run.jsonl [later.jsonl ...]

``summary`` given the runs of two commits (e.g. before and after a change of defaults)
also compares them seed by seed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import torch
from botorch.acquisition import qLogExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.optim import optimize_acqf
from gpytorch.mlls import ExactMarginalLogLikelihood
from scipy.stats import wilcoxon

import isoline as iso
import isoline.acquisition as acquisition_module
import isoline.models.gp as gp_module
from isoline.bench.report import git_commit
from isoline.designs import sobol
from isoline.methods.gp_bo import PAPER_GP_OPTIONS
from isoline.methods.registry import get_method
from isoline.problems import get as get_problem
from isoline.threads import single_threaded

CELLS = [(5, 60), (10, 100), (25, 200)]
SEEDS = range(5)
ISOLINE = {"gp-ei": 1, "gp-ucb": 1, "turbo": 1, "la-minucb": 1, "bkop": 4}
#: isoline methods with non-default options: name -> (method, options); compared seed by
#: seed with the method's defaults run by the same commit
#: gp-ei's defaults before Matern-5/2 with Optuna's priors (the base of its variants)
OLD_GP_EI = dict(PAPER_GP_OPTIONS)
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "gp-ei:rbf-botorch": ("gp-ei", OLD_GP_EI),
    "gp-ei:lean-fit": ("gp-ei", {**OLD_GP_EI, "fit_ftol": 1e-6, "refit_growth": 0.05}),
    "gp-ei:lean": (
        "gp-ei",
        {**OLD_GP_EI, "fit_ftol": 1e-6, "refit_growth": 0.05, "mc_samples": 256},
    ),
    "gp-ei:ftol": ("gp-ei", {**OLD_GP_EI, "fit_ftol": 1e-6}),
    "gp-ei:mc128": ("gp-ei", {**OLD_GP_EI, "mc_samples": 128}),
    "gp-ei:logfit": ("gp-ei", {**OLD_GP_EI, "log_params": True}),
    "la-minucb:logfit": ("la-minucb", {"log_params": True}),
}
CONTENDERS = [*ISOLINE, *VARIANTS, "optuna-gp", "botorch-loop"]


class Clock:
    """Process CPU and wall seconds spent inside ``timed`` blocks, by label."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}

    @contextmanager
    def timed(self, label: str) -> Iterator[None]:
        c, w = time.process_time(), time.perf_counter()
        try:
            yield
        finally:
            self.cpu[label] = self.cpu.get(label, 0.0) + time.process_time() - c
            self.wall[label] = self.wall.get(label, 0.0) + time.perf_counter() - w


@contextmanager
def split_phases(clock: Clock) -> Iterator[None]:
    """Attribute the CPU of ``fit_gp`` and ``acquisition.maximize`` calls to their phase.

    Every module that imported the names sees the wrappers, because they are patched in
    the modules that call them (their ``from ... import`` bindings).
    """
    bkop, gp_bo, gp_ts, local, turbo, ucb_move, la_minucb = (
        importlib.import_module(f"isoline.methods.{m}")  # iso.methods is a function
        for m in ("bkop", "gp_bo", "gp_ts", "local", "turbo", "ucb_move", "la_minucb")
    )

    def wrap(fn: Callable[..., Any], label: str) -> Callable[..., Any]:
        def inner(*args: Any, **kwargs: Any) -> Any:
            with clock.timed(label):
                return fn(*args, **kwargs)

        return inner

    patches = []
    for mod in (gp_module, local, turbo, bkop, gp_bo):
        for fit in ("fit_gp", "fit_gps"):
            if hasattr(mod, fit):
                patches.append((mod, fit, getattr(mod, fit)))
    for mod in (acquisition_module, gp_bo, gp_ts, local, bkop, ucb_move, la_minucb):
        if hasattr(mod, "maximize"):
            patches.append((mod, "maximize", mod.maximize))
    for mod, name, fn in patches:
        setattr(mod, name, wrap(fn, "fit" if name.startswith("fit_gp") else "acquisition"))
    try:
        yield
    finally:
        for mod, name, fn in patches:
            setattr(mod, name, fn)


def value(problem: Any, x: np.ndarray) -> float:
    """The objective value (problems may return ``(y, info)``)."""
    out = problem(x)
    return float(out[0] if isinstance(out, tuple) else out)


def run_isoline(
    method: str, q: int, d: int, budget: int, seed: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    problem = get_problem("ackley", dim=d, seed=seed)
    opt = iso.Optimizer(problem.space, method, seed=seed, batch_size=q, **(options or {}))
    clock, halves = Clock(), Clock()
    best = np.inf
    n = 0
    with split_phases(clock):
        while n < budget:
            k = min(q, budget - n)
            with clock.timed("total"), halves.timed("first" if n < budget // 2 else "second"):
                X = opt.ask(k)
            y = [value(problem, x) for x in X]
            opt.tell(X, y)
            best = min(best, *y)
            n += k
    return {
        "cpu": clock.cpu["total"],
        "wall": clock.wall["total"],
        "cpu_fit": clock.cpu.get("fit", 0.0),
        "cpu_acquisition": clock.cpu.get("acquisition", 0.0),
        "cpu_first_half": halves.cpu.get("first", 0.0),
        "cpu_second_half": halves.cpu.get("second", 0.0),
        "best": best,
    }


def run_optuna(d: int, budget: int, seed: int) -> dict[str, Any]:
    problem = get_problem("ackley", dim=d, seed=seed)
    lo, hi = problem.space.lower, problem.space.upper
    optuna.logging.set_verbosity(logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.GPSampler(seed=seed))
    clock, halves = Clock(), Clock()
    best = np.inf
    for n in range(budget):
        with clock.timed("total"), halves.timed("first" if n < budget // 2 else "second"):
            trial = study.ask()
            x = np.array([trial.suggest_float(f"x{i}", lo[i], hi[i]) for i in range(d)])
        y = value(problem, x)
        study.tell(trial, y)
        best = min(best, y)
    return {
        "cpu": clock.cpu["total"],
        "wall": clock.wall["total"],
        "cpu_first_half": halves.cpu.get("first", 0.0),
        "cpu_second_half": halves.cpu.get("second", 0.0),
        "best": best,
    }


def run_botorch(d: int, budget: int, seed: int) -> dict[str, Any]:
    problem = get_problem("ackley", dim=d, seed=seed)
    n_init = get_method("gp-ei").default_n_init(d)  # isoline's initial design size
    U = sobol(n_init, d, seed=seed)
    Y = np.array([value(problem, problem.space.from_unit(u)) for u in U])
    clock, halves = Clock(), Clock()
    torch.manual_seed(seed)
    bounds = torch.stack([torch.zeros(d), torch.ones(d)]).double()
    for n in range(n_init, budget):
        with clock.timed("total"), halves.timed("first" if n < budget // 2 else "second"):
            X = torch.as_tensor(U, dtype=torch.float64)
            Yt = -torch.as_tensor(Y, dtype=torch.float64).unsqueeze(-1)  # BoTorch maximizes
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = SingleTaskGP(X, Yt)
                fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
                acqf = qLogExpectedImprovement(model, best_f=Yt.max())
                cand, _ = optimize_acqf(acqf, bounds, q=1, num_restarts=10, raw_samples=512)
        u = cand.detach().numpy().reshape(-1)
        U = np.vstack([U, u])
        Y = np.append(Y, value(problem, problem.space.from_unit(u)))
    return {
        "cpu": clock.cpu["total"],
        "wall": clock.wall["total"],
        "cpu_first_half": halves.cpu.get("first", 0.0),
        "cpu_second_half": halves.cpu.get("second", 0.0),
        "best": float(Y.min()),
    }


def run(out: Path, only: list[str] | None, dims: list[int] | None, seeds: list[int] | None) -> None:
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["d"], r["contender"], r["seed"]))
    commit = git_commit()
    for d, budget in CELLS:
        if dims and d not in dims:
            continue
        for seed in seeds or SEEDS:
            for name in CONTENDERS:
                if (d, name, seed) in done or (only and name not in only):
                    continue
                with single_threaded():
                    if name in ISOLINE:
                        r = run_isoline(name, ISOLINE[name], d, budget, seed)
                    elif name in VARIANTS:
                        method, options = VARIANTS[name]
                        r = run_isoline(method, ISOLINE[method], d, budget, seed, options)
                    elif name == "optuna-gp":
                        r = run_optuna(d, budget, seed)
                    else:
                        r = run_botorch(d, budget, seed)
                r.update(d=d, budget=budget, contender=name, seed=seed, commit=commit)
                with out.open("a") as fh:
                    fh.write(json.dumps(r) + "\n")
                print(
                    f"d={d} {name} seed={seed}: {r['cpu']:.1f} s CPU, best {r['best']:.4g}",
                    flush=True,
                )


def summary(files: list[Path]) -> None:
    """Print the whole-run table and, for contenders run at two commits, the comparison."""
    rows = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    commits = list(dict.fromkeys(r["commit"] for r in rows))
    print(
        "| d | budget | contender | commit | runs | suggestion CPU s (mean) | x GPSampler "
        "| wall s | fit share | acq share | final best (mean +- SEM) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for d, budget in CELLS:
        for name in CONTENDERS:
            for commit in commits:
                ref = [
                    r["cpu"] for r in rows
                    if (r["d"], r["contender"], r["commit"]) == (d, "optuna-gp", commit)
                ]  # fmt: skip
                rs = [
                    r for r in rows
                    if r["d"] == d and r["contender"] == name and r["commit"] == commit
                ]  # fmt: skip
                if rs:
                    print(_table_row(d, budget, name, commit, rs, ref))
    _compare(rows, commits)
    _compare_variants(rows, commits)


def _table_row(
    d: int, budget: int, name: str, commit: str, rs: list[dict[str, Any]], ref: list[float]
) -> str:
    cpu = np.mean([r["cpu"] for r in rs])
    best = np.array([r["best"] for r in rs])
    sem = best.std(ddof=1) / np.sqrt(best.size) if best.size > 1 else float("nan")
    ratio = f"{cpu / np.mean(ref):.2f}" if ref else "-"
    total = np.sum([r["cpu"] for r in rs])
    fit = np.sum([r.get("cpu_fit", np.nan) for r in rs]) / total
    acq = np.sum([r.get("cpu_acquisition", np.nan) for r in rs]) / total
    return (
        f"| {d} | {budget} | {name} | {commit} | {len(rs)} | {cpu:.1f} | {ratio} | "
        f"{np.mean([r['wall'] for r in rs]):.1f} | {fit:.2f} | {acq:.2f} | "
        f"{best.mean():.3f} +- {sem:.3f} |"
    )


def _compare(rows: list[dict[str, Any]], commits: list[str]) -> None:
    """Later commit against the earliest, paired by seed (same initial design): CPU ratio
    and a one-sided Wilcoxon signed-rank test of "the later final value is worse"."""
    if len(commits) < 2:
        return
    print(
        "\n| d | contender | commits | paired seeds | CPU later / earlier | final best earlier "
        "| final best later | p (later worse) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    first = commits[0]
    for d, _ in CELLS:
        for name in CONTENDERS:
            for later in commits[1:]:
                got = _paired(_by_seed(rows, d, name, first), _by_seed(rows, d, name, later))
                if not got:
                    continue
                k, ratio, ya, yb, p = got
                print(
                    f"| {d} | {name} | {first} -> {later} | {k} | {ratio:.2f} | "
                    f"{ya:.3f} | {yb:.3f} | {p:.3f} |"
                )


def _by_seed(
    rows: list[dict[str, Any]], d: int, contender: str, commit: str
) -> dict[int, dict[str, Any]]:
    """The runs of one contender in one cell at one commit, by seed."""
    return {
        r["seed"]: r
        for r in rows
        if (r["d"], r["contender"], r["commit"]) == (d, contender, commit)
    }


def _paired(
    a: dict[int, dict[str, Any]], b: dict[int, dict[str, Any]]
) -> tuple[int, float, float, float, float] | None:
    """Seeds in both, CPU ratio b / a, mean finals of a and b, and the one-sided Wilcoxon
    signed-rank p of "b's final value is worse" (1 when every pair is equal)."""
    seeds = sorted(set(a) & set(b))
    if not seeds:
        return None
    ya = np.array([a[s]["best"] for s in seeds])
    yb = np.array([b[s]["best"] for s in seeds])
    ratio = sum(b[s]["cpu"] for s in seeds) / sum(a[s]["cpu"] for s in seeds)
    diff = yb - ya
    p = float(wilcoxon(diff, alternative="greater").pvalue) if np.any(diff != 0) else 1.0
    return len(seeds), ratio, float(ya.mean()), float(yb.mean()), p


def _compare_variants(rows: list[dict[str, Any]], commits: list[str]) -> None:
    """Each variant against its method's defaults of the same commit, paired by seed."""
    lines = []
    for commit in commits:
        for d, _ in CELLS:
            for name, (method, _) in VARIANTS.items():
                got = _paired(_by_seed(rows, d, method, commit), _by_seed(rows, d, name, commit))
                if got:
                    k, ratio, ya, yb, p = got
                    lines.append(
                        f"| {d} | {name} | {commit} | {k} | {ratio:.2f} | {ya:.3f} | {yb:.3f} "
                        f"| {p:.3f} |"
                    )
    if lines:
        print(
            "\n| d | variant | commit | paired seeds | CPU variant / defaults | final best "
            "defaults | final best variant | p (variant worse) |"
        )
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(lines))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--only", choices=CONTENDERS, nargs="+")
    r.add_argument("--dims", type=int, nargs="+", help="cells of these dimensions only")
    r.add_argument("--seeds", type=int, nargs="+", help=f"seeds (default {list(SEEDS)})")
    s = sub.add_parser("summary")
    s.add_argument("--out", type=Path, required=True, nargs="+")
    args = p.parse_args()
    if args.cmd == "run":
        run(args.out, args.only, args.dims, args.seeds)
    else:
        summary(args.out)


if __name__ == "__main__":
    main()
