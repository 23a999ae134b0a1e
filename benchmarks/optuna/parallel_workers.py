"""Worker processes sharing one Optuna study through IsolineSampler: wall time and quality.

For each method (gp-ei one point at a time, bkop in joint batches of 4 spread over the
workers through the waiting-trial queue; auto, which takes the number of running trials as
its ``workers``, and COBYQA, its choice for one worker), each number of workers (1, 2, 4)
and seed, one
Optuna study in a SQLite file is optimized by that many processes at once, each with
``IsolineSampler(method, seed=seed)``, on Ackley (d = 4, [-2, 2]^4) with a sleep of
``--sleep`` seconds per evaluation (an expensive objective: the workers' time is mostly
waiting). Recorded per run: wall time per trial, the final best value, whether any
configuration was evaluated twice, and how many trials failed. The reference is
``iso.minimize`` with the same method, batch size and seed.

Usage::

    python benchmarks/optuna/parallel_workers.py run --out parallel.jsonl [--seeds 5]
    python benchmarks/optuna/parallel_workers.py summary --out parallel.jsonl
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from isoline.bench.report import git_commit

D, BUDGET = 4, 32
METHODS = [("gp-ei", 1), ("bkop", 4), ("auto", 1), ("cobyqa", 1)]
WORKERS = (1, 2, 4)
COMMIT = git_commit()

WORKER = """
import sys, time, warnings
import numpy as np, optuna
import isoline as iso
from isoline.integrations.optuna import IsolineSampler
warnings.simplefilter("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)
url, method, q, seed, sleep, d, budget = sys.argv[1:8]
problem = iso.problems.get("ackley", dim=int(d))
def objective(trial):
    x = np.array([trial.suggest_float(f"x{i}", -2.0, 2.0) for i in range(int(d))])
    time.sleep(float(sleep))
    return float(problem(x))
study = optuna.load_study(study_name="s", storage=url,
                          sampler=IsolineSampler(method, seed=int(seed), batch_size=int(q)))
study.optimize(objective, callbacks=[optuna.study.MaxTrialsCallback(
    int(budget), states=(optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL))])
"""


def run_study(method: str, q: int, workers: int, seed: int, sleep: float) -> dict[str, Any]:
    import optuna

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/study.db"
        optuna.create_study(study_name="s", storage=url)
        script = Path(tmp) / "worker.py"
        script.write_text(WORKER)
        args = [url, method, str(q), str(seed), str(sleep), str(D), str(BUDGET)]
        t0 = time.time()
        procs = [subprocess.Popen([sys.executable, str(script), *args]) for _ in range(workers)]
        codes = [p.wait() for p in procs]
        wall = time.time() - t0
        trials = optuna.load_study(study_name="s", storage=url).trials
    done = [t for t in trials if t.state.is_finished()]
    keys = [tuple(sorted(t.params.items())) for t in done if t.params]
    # the workers stop at BUDGET finished trials, but up to workers - 1 trials already
    # running finish too: the comparison with iso.minimize takes the first BUDGET trials
    first = sorted(done, key=lambda t: t.number)[:BUDGET]
    values = [t.value for t in first if t.value is not None]
    return {
        "kind": "optuna",
        "method": method,
        "q": q,
        "workers": workers,
        "seed": seed,
        "wall_per_trial": wall / max(len(done), 1),
        "trials": len(done),
        "failed": sum(t.state.name == "FAIL" for t in done),
        "repeated": len(keys) - len(set(keys)),
        "best": min(values) if values else float("nan"),
        "exit_codes": codes,
        "auto_rules": sorted(
            {
                t.system_attrs["isoline:auto"]["rule"]
                for t in done
                if "isoline:auto" in t.system_attrs
            }
        ),  # fmt: skip
    }


def run_minimize(method: str, q: int, seed: int, sleep: float) -> dict[str, Any]:
    import isoline as iso

    problem = iso.problems.get("ackley", dim=D)

    def objective(x: np.ndarray) -> float:
        time.sleep(sleep)
        return float(problem(x))

    t0 = time.time()
    res = iso.minimize(objective, problem.space, method, budget=BUDGET, seed=seed, batch_size=q)
    return {
        "kind": "minimize",
        "method": method,
        "q": q,
        "workers": 1,
        "seed": seed,
        "wall_per_trial": (time.time() - t0) / res.n_evals,
        "trials": res.n_evals,
        "failed": res.n_failed,
        "repeated": 0,
        "best": res.fun,
    }


def run(out: Path, seeds: int, sleep: float, methods: list[str], workers: list[int]) -> None:
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["kind"], r["method"], r["workers"], r["seed"]))
    for method, q in METHODS:
        if method not in methods:
            continue
        for seed in range(seeds):
            jobs = [("minimize", 1)] + [("optuna", w) for w in WORKERS if w in workers]
            for kind, w in jobs:
                if (kind, method, w, seed) in done:
                    continue
                row = (
                    run_minimize(method, q, seed, sleep)
                    if kind == "minimize"
                    else run_study(method, q, w, seed, sleep)
                )
                row["sleep"] = sleep
                row["commit"] = COMMIT
                with out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(row, flush=True)


def summary(out: Path, md: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    lines = [
        "# IsolineSampler with worker processes on one SQLite Optuna study",
        "",
        f"Ackley d = {D}, {BUDGET} trials per study, sleep {rows[0]['sleep']} s per evaluation; "
        "`python benchmarks/optuna/parallel_workers.py run` then `summary`; runs made at "
        f"commit `{', '.join(sorted({str(r.get('commit')) for r in rows}))}`. Final best: over "
        f"the first {BUDGET} trials by number (workers still running a trial when the budget "
        "is reached finish it).",
        "Mean +- SEM over seeds.",
        "",
        "| method | driver | workers | seeds | wall s / trial | final best | repeated configs | failed | auto's rules |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for method, q in METHODS:
        for kind, w in [("minimize", 1)] + [("optuna", w) for w in WORKERS]:
            rs = [
                r for r in rows if r["method"] == method and r["kind"] == kind and r["workers"] == w
            ]
            if not rs:
                continue
            best = np.array([r["best"] for r in rs])
            wall = np.array([r["wall_per_trial"] for r in rs])
            sem = best.std(ddof=1) / np.sqrt(best.size) if best.size > 1 else 0.0
            lines.append(
                f"| {method} (q = {q}) | {'iso.minimize' if kind == 'minimize' else 'Optuna'} | {w} | "
                f"{len(rs)} | {wall.mean():.2f} | {best.mean():.3f} +- {sem:.3f} | "
                f"{sum(r['repeated'] for r in rs)} | {sum(r['failed'] for r in rs)} | "
                f"{', '.join(sorted({x for r in rs for x in r.get('auto_rules', [])}))} |"
            )
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--seeds", type=int, default=5)
    r.add_argument("--sleep", type=float, default=1.0)
    r.add_argument("--methods", nargs="+", default=[m for m, _ in METHODS])
    r.add_argument("--workers", nargs="+", type=int, default=list(WORKERS))
    s = sub.add_parser("summary")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--md", type=Path, default=Path("benchmarks/results/optuna/parallel_workers.md"))
    args = p.parse_args()
    if args.cmd == "run":
        run(args.out, args.seeds, args.sleep, args.methods, args.workers)
    else:
        summary(args.out, args.md)


if __name__ == "__main__":
    main()
