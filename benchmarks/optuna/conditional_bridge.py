"""IsolineSampler on define-by-run conditional Optuna studies against Optuna's default TPE.

Issue 42's bridge target. Each problem of the conditional suite (``hpo-cash``,
``hpo-svm-kernel``, ``hpo-mlp-solver``; benchmarks/field/conditional.yaml) is written as
an Optuna user writes a conditional study: the objective suggests a parameter only when
its parent's value activates it (parents first). Per (problem, seed) two studies of
``--trials`` trials: ``IsolineSampler("auto", seed=seed)`` and ``TPESampler(seed=seed)``
(Optuna's default sampler with its defaults). The IsolineSampler's independent sampler
is Optuna's ``RandomSampler`` wrapped to record each parameter it draws, with the trial
number and whether an earlier trial had asked that parameter.

PRE-REGISTERED (written before any run): the target is met iff, over all (problem, seed)
cells of the full run (3 problems x 5 seeds; partial data does not count), (1) the
IsolineSampler's best value is lower than TPE's on average over the cells AND it wins more
cells than it loses (ties: equal best values), with the one-sided paired Wilcoxon p
reported beside it; and (2) no parameter is drawn by the independent sampler at a trial
numbered ``>= STARTUP`` (10, TPE's default number of startup trials) in any run. Draws of
parameters never asked before are counted separately (the issue allows those), but (2)
counts them too.

SECOND TEST, PRE-REGISTERED (written 2026-12-07 22:37 UTC, before any run with
``--metric log_loss``): the first test ran on the error rate (``--metric error``), where
most cells ended within one or two misclassified samples of each other or tied; this one
scores the same problems by the cross-validated log loss (``metric="log_loss"`` of
``isoline.problems.conditional``), on fresh seeds 30-34, 64 trials. Met iff over all 15
cells (1) holds as above and (2) holds as issue 42 states it: no parameter that an earlier
trial of the study had asked is drawn by the independent sampler at a trial numbered
``>= STARTUP`` (parameters never asked before may be: no model of the earlier trials can
place them, issue 42 item 3). The stricter count of (2) above is reported beside it.

Usage::

    python benchmarks/optuna/conditional_bridge.py run --out bridge.jsonl [--seeds 0-4] [--metric log_loss]
    python benchmarks/optuna/conditional_bridge.py summary --out bridge.jsonl [--metric log_loss]

A run appends one JSON line per finished study and skips the studies already in the file,
so an interrupted run resumes (the study in progress starts again).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402
import optuna  # noqa: E402
from bridge_rows import append_row, command_line, read_rows, seed_range  # noqa: E402
from scipy import stats  # noqa: E402

from isoline import problems  # noqa: E402
from isoline.bench.report import git_commit  # noqa: E402
from isoline.integrations.optuna import IsolineSampler  # noqa: E402
from isoline.params import Categorical, Integer, Space  # noqa: E402

PROBLEMS = [("hpo-cash", "breast"), ("hpo-svm-kernel", "breast"), ("hpo-mlp-solver", "wine")]
SAMPLERS = ("isoline", "tpe")
STARTUP = 10
#: the problems' losses (``--metric``; rows made before the option are ``"error"``)
METRICS = ("error", "log_loss")


class Recording(optuna.samplers.RandomSampler):
    """Optuna's random sampler, recording ``(trial, parameter, seen before)`` per draw."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.draws: list[tuple[int, str, bool]] = []

    def sample_independent(self, study: Any, trial: Any, param_name: str, dist: Any) -> Any:
        seen = any(param_name in t.params for t in study.get_trials(deepcopy=False)
                   if t.number < trial.number)  # fmt: skip
        self.draws.append((trial.number, param_name, seen))
        return super().sample_independent(study, trial, param_name, dist)


def suggest(trial: optuna.Trial, space: Space) -> dict[str, Any]:
    """A define-by-run configuration: each parameter asked only when it is active."""
    config: dict[str, Any] = {}
    for name in space.conditions.order:
        p = space.params[name]
        first = p.choices[0] if isinstance(p, Categorical) else p.low
        if name not in space.active({**config, name: first}):
            continue
        if isinstance(p, Categorical):
            config[name] = trial.suggest_categorical(name, list(p.choices))
        elif isinstance(p, Integer):
            config[name] = trial.suggest_int(name, p.low, p.high, log=p.log)
        else:
            config[name] = trial.suggest_float(name, p.low, p.high, log=p.log)
    return config


def run_one(
    name: str, dataset: str, seed: int, sampler_name: str, trials: int, metric: str
) -> dict[str, Any]:
    problem = problems.get(name, dataset=dataset, seed=seed, metric=metric)
    recording = Recording(seed)
    sampler: optuna.samplers.BaseSampler = (
        IsolineSampler(seed=seed, independent_sampler=recording)
        if sampler_name == "isoline"
        else optuna.samplers.TPESampler(seed=seed)
    )
    study = optuna.create_study(sampler=sampler)
    t0 = time.time()
    study.optimize(lambda t: problem(suggest(t, problem.space))[0], n_trials=trials)
    values = [t.value for t in study.trials]
    return {"problem": f"{name} {dataset}", "seed": seed, "sampler": sampler_name,
            "best": float(np.nanmin(values)), "values": values,
            "independent": recording.draws if sampler_name == "isoline" else None,
            "seconds": time.time() - t0, "commit": git_commit(), "metric": metric}  # fmt: skip


def run(args: argparse.Namespace) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore")
    out = Path(args.out)
    done = {(r["problem"], r["seed"], r["sampler"]) for r in _rows(out, args.metric)}
    for seed in seed_range(args.seeds):  # seeds outermost: whole cells first
        for name, dataset in PROBLEMS:
            for s in SAMPLERS:
                if (f"{name} {dataset}", seed, s) in done:
                    continue
                row = run_one(name, dataset, seed, s, args.trials, args.metric)
                append_row(out, row)
                print(f"{row['problem']} seed {seed} {s}: best {row['best']:.4f} "
                      f"({row['seconds']:.0f} s)", flush=True)  # fmt: skip


def _rows(out: Path, metric: str) -> list[dict[str, Any]]:
    return [r for r in read_rows(out) if r.get("metric", "error") == metric]


def summary(args: argparse.Namespace) -> None:
    by: dict[tuple[str, int], dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in _rows(Path(args.out), args.metric):
        by[(r["problem"], r["seed"])][r["sampler"]] = r
    cells = sorted(k for k, v in by.items() if set(v) == set(SAMPLERS))
    if not cells:
        raise SystemExit("no cell has both samplers' runs yet")
    iso_best = np.array([by[c]["isoline"]["best"] for c in cells])
    tpe_best = np.array([by[c]["tpe"]["best"] for c in cells])
    wins, losses = int(np.sum(iso_best < tpe_best)), int(np.sum(iso_best > tpe_best))
    p = stats.wilcoxon(iso_best, tpe_best, alternative="less").pvalue if wins + losses else np.nan
    print(f"{len(cells)} complete cells (problem x seed)")
    print("| problem | seed | IsolineSampler best | TPE best | s (isoline / TPE) "
          "| independent draws at trial >= 10 (never asked before) |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    late_total = late_seen = 0
    for c in cells:
        i, t = by[c]["isoline"], by[c]["tpe"]
        late = [d for d in i["independent"] if d[0] >= STARTUP]
        late_total += len(late)
        late_seen += sum(d[2] for d in late)
        print(f"| {c[0]} | {c[1]} | {i['best']:.4f} | {t['best']:.4f} | "
              f"{i['seconds']:.0f} / {t['seconds']:.0f} | {len(late)} "
              f"({sum(not d[2] for d in late)}) |")  # fmt: skip
    print(f"\nmean best: IsolineSampler {iso_best.mean():.4f}, TPE {tpe_best.mean():.4f}; "
          f"IsolineSampler wins {wins}, loses {losses}, ties {len(cells) - wins - losses}; "
          f"one-sided paired Wilcoxon p = {p:.3g}; independent draws at trial >= {STARTUP}: "
          f"{late_total}, of parameters asked before: {late_seen}")  # fmt: skip


if __name__ == "__main__":
    command_line(__doc__, run, summary, trials=64, choices={"metric": METRICS})
