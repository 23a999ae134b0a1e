"""Summaries the runner's report does not give: best (noise-free) value at checkpoints,
regret ratios, and for RL the evaluations LA-MinUCB needs to reach GIBO's final value.

Usage: .venv/bin/python benchmarks/local_bo/summarize.py STORE.db [STORE.db ...]
Prints Markdown tables (mean +- SEM over seeds of the best value so far).
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from isoline.store import Store


def curves(path: str) -> dict[tuple[str, str], list[np.ndarray]]:
    """``{(problem, method): [best-so-far (n,) per seed]}`` (noise-free when recorded)."""
    out: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    with Store(path) as store:
        for rec in store.studies():
            _, problem, method, _ = rec.name.split("/")
            vals = []
            for t in store.trials(rec):
                if t.status == "pending":
                    continue
                v = (t.info or {}).get("noise_free", t.y)
                vals.append(np.inf if v is None or not np.isfinite(v) else float(v))
            out[(problem, method)].append(np.minimum.accumulate(np.array(vals)))
    return out


def main(paths: list[str]) -> None:
    for path in paths:
        cs = curves(path)
        problems = sorted({p for p, _ in cs})
        for prob in problems:
            methods = [m for p, m in cs if p == prob]
            n = min(len(c) for m in methods for c in cs[(prob, m)])
            checks = [k for k in (50, 100, 200, 300, 500, 1000, 2000) if k <= n]
            print(f"\n### {prob} ({path})\n")
            print("| method | seeds | " + " | ".join(f"best @ {k}" for k in checks) + " |")
            print("|---|---|" + "---|" * len(checks))
            finals = {}
            for m in methods:
                A = np.array([c[:n] for c in cs[(prob, m)]])
                finals[m] = A
                cells = []
                for k in checks:
                    v = A[:, k - 1]
                    sem = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0
                    cells.append(f"{v.mean():.4g} +- {sem:.2g}")
                print(f"| {m} | {len(A)} | " + " | ".join(cells) + " |")
            if "LA-MinUCB" in finals and "GIBO" in finals:
                target = finals["GIBO"][:, -1].mean()
                la = finals["LA-MinUCB"].mean(0)
                hit = np.flatnonzero(la <= target)
                first = int(hit[0]) + 1 if hit.size else None
                print(
                    f"\nMean GIBO final {target:.4g}; LA-MinUCB's mean curve reaches it after "
                    f"{first if first else 'never (within ' + str(n) + ')'} evaluations."
                )


if __name__ == "__main__":
    main(sys.argv[1:])
