"""isoline against the field (issue 18): run a suite config, then summarize it.

    python benchmarks/field/field.py run benchmarks/field/bbob.yaml --storage S \
        [--problems REGEX] [--seeds 0-2] [--workers 2]
    python benchmarks/field/field.py summary benchmarks/field/bbob.yaml --storage S \
        --out benchmarks/results/field/bbob

``run`` runs (or resumes) the config's studies into the store, a part at a time if asked.
``summary`` reads every finished study and writes, per suite: each contender's mean rank
with a 95% bootstrap interval over (problem, seed) cells; the normalized score (bayesmark
style: 0 = the best value any contender reached in that cell, 1 = random search's median
over the suite's seeds); paired one-sided Wilcoxon tests of the best contender against
every other (Benjamini-Hochberg); for BBOB the fraction of (function, target) pairs solved
against evaluations (ECDF, PNG); the suggestion time per run (the wall time between a
result's arrival and the next point's start, summed); and failures (failed evaluations,
unfinished or crashed runs). The commit and command are written beside the tables.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from isoline.bench.config import load_config
from isoline.bench.runner import run_bench


def run(args: argparse.Namespace) -> None:
    cfg = load_config(args.config).subset(seeds=args.seeds, problems=args.problems)
    out = run_bench(cfg, args.storage, workers=args.workers, progress=not args.quiet)
    done = sum(not s.skipped for s in out)
    print(f"{cfg.name}: {len(out)} runs, {done} run now, {len(out) - done} already finished")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run or resume a suite (or part of it)")
    r.add_argument("config")
    r.add_argument("--storage", required=True)
    r.add_argument("--problems", help="regular expression on problem labels")
    r.add_argument("--seeds", help="e.g. 0-2 or 0,3")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--quiet", action="store_true")
    r.set_defaults(func=run)
    args = ap.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
