"""rf-ei before/after the fix on the conformance suite's gain test (sphere, box [-1, 2]^d).

The test compares a method's mean final value over seeds 0-1 with half of random search's
over seeds 0-19, at d = 2 (budget 20) and d = 6 (budget 40). This script reports the
method's mean over 60 seeds too, for the committed version before the fix (loaded from git
as ``rf-ei-old``) and the current one.

    nice -n 10 .venv/bin/python benchmarks/neuralbo/rf_ei_sphere.py [--before COMMIT]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import isoline as iso


def sphere(x: np.ndarray) -> float:
    return float(np.sum((np.asarray(x) - 0.35) ** 2))


def load_old(commit: str) -> None:
    """Register the rf-ei of ``commit`` under the name ``rf-ei-old``."""
    src = subprocess.run(
        ["git", "show", f"{commit}:src/isoline/methods/rf_ei.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    src = src.replace('name = "rf-ei"', 'name = "rf-ei-old"')
    path = Path(tempfile.mkdtemp()) / "rf_ei_old.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("rf_ei_old", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["rf_ei_old"] = module
    spec.loader.exec_module(module)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--before", default="b664d18^", help="commit of the old rf-ei")
    ap.add_argument("--seeds", type=int, default=60)
    a = ap.parse_args()
    load_old(a.before)
    for d, b in [(2, 20), (6, 40)]:
        box = iso.Box([-1.0] * d, [2.0] * d)
        r = [
            iso.minimize(sphere, box, "random", budget=b, seed=s, progress=False).fun
            for s in range(20)
        ]
        print(
            f"d={d} budget={b}: random (seeds 0-19) mean {np.mean(r):.4f}, "
            f"test threshold {0.5 * np.mean(r):.4f}",
            flush=True,
        )
        for m in ["rf-ei-old", "rf-ei"]:
            v = np.array(
                [
                    iso.minimize(sphere, box, m, budget=b, seed=s, progress=False).fun
                    for s in range(a.seeds)
                ]
            )
            sem = v.std(ddof=1) / np.sqrt(len(v))
            print(
                f"  {m}: seeds 0-1 mean {v[:2].mean():.4f}; seeds 0-{a.seeds - 1} mean "
                f"{v.mean():.4f} +- {sem:.4f} (SEM), median {np.median(v):.4f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
