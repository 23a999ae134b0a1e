"""How far from the incumbent each contender's late batches land, per problem.

    python benchmarks/field/batch_spread.py STORE --suite field-hpo-batch8 \
        --contenders 'isoline bkop' 'Optuna GP' 'isoline gp-ei' [--from-batch 8] [--md OUT.md]

For each finished run of the suite in the store and each batch from ``--from-batch`` on
(0-based): the median distance, in the unit cube of the space's encoding divided by its
diagonal ``sqrt(d)``, from the batch's points to the best point evaluated before the batch;
the run's figure is the mean over those batches, and the table gives the mean over each
problem's seeds. Small: the batch refines around the incumbent; large: it explores.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np

from isoline.bench.report import git_commit
from isoline.bench.stats import to_markdown
from isoline.store import Store, Trial

#: the docstring's paragraph saying what the figures are, for the written table
MEANING = __doc__.split("\n\n")[2].strip()


def late_batch_distance(trials: list[Trial], from_batch: int) -> float:
    """Mean over batches ``>= from_batch`` of the median distance from a batch's points to
    the incumbent before it (unit-cube distance over ``sqrt(d)``); NaN without such batches."""
    U = np.array([np.asarray(t.u, dtype=float) for t in trials])
    y = np.array([t.y if t.y is not None else np.inf for t in trials])
    batch = np.array([t.batch for t in trials])
    out = []
    for k in sorted({int(b) for b in batch if b >= from_batch}):
        before, now = batch < k, batch == k
        if not np.isfinite(y[before]).any():
            continue
        incumbent = U[before][np.argmin(y[before])]
        dist = np.linalg.norm(U[now] - incumbent, axis=1) / np.sqrt(U.shape[1])
        out.append(float(np.median(dist)))
    return float(np.mean(out)) if out else float("nan")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("store")
    ap.add_argument("--suite", required=True, help="the config's name (study name prefix)")
    ap.add_argument("--contenders", nargs="+", required=True)
    ap.add_argument("--from-batch", type=int, default=8)
    ap.add_argument("--md", help="write the table here")
    args = ap.parse_args(argv)
    figures: dict[tuple[str, str], list[float]] = defaultdict(list)
    with Store(args.store, create=False, readonly=True) as store:
        for rec in store.studies(args.suite + "/"):
            _, problem, contender, _ = rec.name.split("/")
            if contender in args.contenders and rec.finished:
                figures[problem, contender].append(
                    late_batch_distance(store.trials(rec), args.from_batch)
                )
    if not figures:
        ap.error(f"no finished run of {args.contenders} in suite {args.suite!r}")
    problems = sorted({p for p, _ in figures})
    rows = [
        {
            "problem": p,
            **{
                c: float(np.nanmean(figures[p, c])) if figures[p, c] else np.nan
                for c in args.contenders
            },
        }  # fmt: skip
        for p in problems
    ]
    table = to_markdown(rows)
    print(table)
    if args.md:
        command = " ".join(["python benchmarks/field/batch_spread.py", *sys.argv[1:]])
        Path(args.md).write_text(
            f"# Distance of late batches from the incumbent\n\n{MEANING}\n\n"
            f"`{command}` at {git_commit()}.\n\n{table}\n"
        )


if __name__ == "__main__":
    main()
