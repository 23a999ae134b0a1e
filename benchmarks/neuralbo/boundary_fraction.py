"""Where do a method's late proposals lie, and does every run improve on its initial design?

Reads finished studies from a bench store (any config) and reports, per cell and method:

* the fraction of coordinates of the late proposals (the last half of the model-based
  evaluations) within 0.01 of a bound of the unit cube, mean and maximum over runs: a
  search that climbs the standard deviation walks to the box's vertices;
* how many runs improved on the best value of their initial design (noise-free values
  where the problem records them).

Usage::

    python benchmarks/neuralbo/boundary_fraction.py STORE [--prefix STUDY_PREFIX]
        [--n-init 10] [--out FILE.md]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from isoline.bench.stats import to_markdown
from isoline.store import Store

EDGE = 0.01


def _value(trial: object) -> float:
    info = getattr(trial, "info", None) or {}
    return float(info.get("noise_free", trial.y))  # type: ignore[attr-defined]


def analyse(storage: str, prefix: str, n_init: int) -> list[dict[str, object]]:
    """One row per (cell, method): boundary fractions and improvement counts."""
    per: dict[tuple[str, str], list[tuple[float, bool]]] = defaultdict(list)
    with Store(storage, readonly=True) as store:
        for rec in store.studies(prefix):
            if not rec.finished:
                continue
            parts = rec.name.split("/")
            if len(parts) < 4:
                continue
            trials = [t for t in store.trials(rec) if t.status == "ok"]
            if len(trials) <= n_init + 1:
                continue
            model_based = trials[n_init:]
            late = np.stack([t.u for t in model_based[len(model_based) // 2 :]])
            edge = float(np.mean((late < EDGE) | (late > 1.0 - EDGE)))
            values = [_value(t) for t in trials]
            improved = min(values[n_init:]) < min(values[:n_init])
            per[(parts[1], parts[2])].append((edge, improved))
    rows: list[dict[str, object]] = []
    for (cell, method), runs in per.items():
        edges = np.array([e for e, _ in runs])
        rows.append(
            {
                "cell": cell,
                "method": method,
                "runs": len(runs),
                "edge fraction mean": f"{edges.mean():.3f}",
                "edge fraction max": f"{edges.max():.3f}",
                "runs improved": f"{sum(i for _, i in runs)}/{len(runs)}",
            }
        )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("storage")
    p.add_argument("--prefix", default="")
    p.add_argument("--n-init", type=int, default=10)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    rows = analyse(args.storage, args.prefix, args.n_init)
    cols = ["cell", "method", "runs", "edge fraction mean", "edge fraction max", "runs improved"]
    text = "\n".join(
        [
            f"Late proposals within {EDGE} of a bound (fraction of coordinates, last half of "
            f"the model-based evaluations) and runs that improved on their initial design.",
            f"Store `{args.storage}`, prefix `{args.prefix}`, command "
            f"`python benchmarks/neuralbo/boundary_fraction.py {args.storage}"
            f"{' --prefix ' + args.prefix if args.prefix else ''} --n-init {args.n_init}`.",
            "",
            to_markdown(rows, cols),
            "",
        ]
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
