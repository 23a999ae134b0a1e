"""What the local phase of gp-ei-cobyqa did, against gp-ei continuing, per problem family.

    python benchmarks/field/local_phase.py --storage S \
        [--candidate 'gp-ei then cobyqa'] [--base 'gp-ei constraints form']

For every finished candidate run of a store made by ``constrained_local.yaml`` (and its
``_bbobc`` half), and the base run of the same cell: whether the two agree up to the switch
(``budget - local_evaluations(d, budget)`` evaluations), how many evaluations after the
switch were feasible in each, and in how many runs each improved its best feasible value
after the switch. bbob-constrained cells are pooled as one family.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from isoline.methods.gp_local import local_evaluations  # noqa: E402
from isoline.store import Store  # noqa: E402


def _best(f: np.ndarray, ok: np.ndarray) -> float:
    return float(np.min(np.where(ok, f, np.inf))) if len(f) else float("inf")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--storage", required=True)
    ap.add_argument("--candidate", default="gp-ei then cobyqa")
    ap.add_argument("--base", default="gp-ei constraints form")
    a = ap.parse_args()
    runs: dict[tuple[str, str, str], tuple[np.ndarray, np.ndarray, int]] = {}
    with Store(a.storage) as store:
        for rec in store.studies():
            _, problem, label, seed = rec.name.split("/")
            if label not in (a.candidate, a.base) or not rec.finished:
                continue
            trials = store.trials(rec)
            out = np.array([t.outputs for t in trials], dtype=float)
            ok = np.isfinite(out).all(axis=1) & (out[:, 1:] <= 0).all(axis=1)
            switch = rec.budget - local_evaluations(len(trials[0].u), rec.budget)
            runs[(problem, seed, label)] = (out[:, 0], ok, switch)
    families: dict[str, Counter[str]] = defaultdict(Counter)
    for (problem, seed, label), (f, ok, s) in sorted(runs.items()):
        if label != a.candidate or (problem, seed, a.base) not in runs:
            continue
        fb, okb, _ = runs[(problem, seed, a.base)]
        c = families["bbob-constrained" if problem.startswith("bbobc-") else problem]
        c["runs"] += 1
        c["equal up to the switch"] += int(np.array_equal(f[:s], fb[:s]))
        c["evaluations after the switch"] += len(f) - s
        c["feasible after (candidate)"] += int(ok[s:].sum())
        c["feasible after (base)"] += int(okb[s:].sum())
        c["improved after (candidate)"] += int(_best(f, ok) < _best(f[:s], ok[:s]))
        c["improved after (base)"] += int(_best(fb, okb) < _best(fb[:s], okb[:s]))
    keys = ["runs", "equal up to the switch", "evaluations after the switch",
            "feasible after (candidate)", "feasible after (base)",
            "improved after (candidate)", "improved after (base)"]  # fmt: skip
    print("| family | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, c in families.items():
        print(f"| {name} | " + " | ".join(str(c[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
