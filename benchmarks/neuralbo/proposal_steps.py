"""How far from the incumbent does each method propose? (issue 6 analysis)

For every finished run of a config (default ``synthetic_100.yaml``), the step of each
evaluation ``x_i`` in the second half of the budget from the incumbent at that time (the
best *observed* point among ``x_1 .. x_{i-1}``), in the unit cube and divided by
``sqrt(d)`` (so 1 is the cube's diagonal). Reported per cell and method: the median step
over those evaluations and runs, and the fraction of steps below ``--near`` (local
refinement). A second table gives, over the same evaluations, the fraction of their
coordinates within ``--edge`` of a bound of the unit cube (proposals crowding the box's
boundary). Reads the store only; nothing is re-run.

    .venv/bin/python benchmarks/neuralbo/proposal_steps.py --storage S.db --problems 'D=(10|20)$'
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from isoline.bench.config import load_config
from isoline.store import Store

HERE = Path(__file__).parent


def incumbent_steps(U: np.ndarray, y: np.ndarray, start: int) -> np.ndarray:
    """``||u_i - u_best(<i)|| / sqrt(d)`` for ``i >= start``; ``U`` ``(n, d)``, ``y`` ``(n,)``."""
    y = np.where(np.isfinite(y), y, np.inf)
    steps = [np.linalg.norm(U[i] - U[int(np.argmin(y[:i]))]) for i in range(max(start, 1), len(y))]
    return np.asarray(steps) / np.sqrt(U.shape[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", type=Path, default=HERE / "synthetic_100.yaml")
    ap.add_argument("--storage", required=True)
    ap.add_argument("--problems", default=None, help="regex on problem labels")
    ap.add_argument("--near", type=float, default=0.05, help="a 'local' step is below this")
    ap.add_argument("--edge", type=float, default=0.01, help="a coordinate this close to a bound")
    a = ap.parse_args()
    cfg = load_config(a.config).subset(problems=a.problems)
    start = cfg.budget // 2
    steps: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    edge: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    with Store(a.storage) as store:
        for spec in cfg.runs():
            rec = store.get_study(spec.study)
            if rec is None or not rec.finished:
                continue
            trials = store.trials(rec)
            U = np.array([t.u for t in trials])
            y = np.array([np.nan if t.y is None else t.y for t in trials])
            steps[(spec.problem.label, spec.method.label)].append(incumbent_steps(U, y, start))
            late = U[start:]
            edge[(spec.problem.label, spec.method.label)].append(
                (np.minimum(late, 1 - late) < a.edge).ravel()
            )
    methods = [m.label for m in cfg.methods]
    cells = list(dict.fromkeys(p for p, _ in steps))
    print(f"Config `{a.config.name}`: steps of evaluations {start + 1}..{cfg.budget} from the")
    print(f"incumbent, / sqrt(d); median over evaluations and runs / fraction below {a.near}.\n")
    print("| cell | " + " | ".join(methods) + " |")
    print("|---|" + "---|" * len(methods))
    for p in cells:
        row = []
        for m in methods:
            s = np.concatenate(steps[(p, m)]) if steps.get((p, m)) else np.array([])
            row.append(f"{np.median(s):.3f} / {np.mean(s < a.near):.2f}" if len(s) else "-")
        print(f"| {p} | " + " | ".join(row) + " |")
    print(
        f"\nFraction of the coordinates of evaluations {start + 1}..{cfg.budget} within "
        f"{a.edge} of a bound.\n"
    )
    print("| cell | " + " | ".join(methods) + " |")
    print("|---|" + "---|" * len(methods))
    for p in cells:
        row = [
            f"{np.mean(np.concatenate(edge[(p, m)])):.2f}" if edge.get((p, m)) else "-"
            for m in methods
        ]
        print(f"| {p} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
