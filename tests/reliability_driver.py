"""A driver process for the reliability tests: runs (or resumes) studies as told.

Usage: python reliability_driver.py SPEC.json
SPEC keys: storage, runs (list of {method, study, budget, batch_size, n_init, seed,
executor}), objective ("sphere", "slow", "die-at"), die_at (trial number that kills the
process), stop_after (raise KeyboardInterrupt in the n-th evaluation of this process),
pid_dir (each evaluation writes its process id there), max_attempts.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

import isoline as iso


class Objective:
    takes_trial_number = True

    def __init__(self, spec: dict) -> None:
        self.kind = spec.get("objective", "sphere")
        self.die_at = spec.get("die_at")
        self.stop_after = spec.get("stop_after")
        self.pid_dir = spec.get("pid_dir")
        self.calls = 0
        self.centre = spec.get("centre", 0.35)

    def __call__(self, x: np.ndarray, number: int | None = None) -> float:
        self.calls += 1
        if self.pid_dir:
            with open(os.path.join(self.pid_dir, f"{os.getpid()}-{number}"), "w") as fh:
                fh.write(str(number))
        if self.stop_after is not None and self.calls == self.stop_after:
            raise KeyboardInterrupt
        if self.die_at is not None and number == self.die_at:
            os._exit(3)
        if self.kind == "slow":
            time.sleep(60)
        return float(np.sum((np.asarray(x) - self.centre) ** 2))


def main() -> None:
    with open(sys.argv[1]) as fh:
        spec = json.load(fh)
    box = iso.Box([-1.0] * spec.get("dim", 3), [2.0] * spec.get("dim", 3))
    f = Objective(spec)
    out = {}
    for run in spec["runs"]:
        f.stop_after = run.get("stop_after", spec.get("stop_after"))
        kw = {k: run[k] for k in ("budget", "batch_size", "n_init", "seed") if k in run}
        if "max_attempts" in spec:
            kw["max_attempts"] = spec["max_attempts"]
        try:
            res = iso.minimize(f, box, run["method"], storage=spec["storage"], study=run["study"],
                               executor=run.get("executor"), **kw)  # fmt: skip
            out[run["study"]] = {"x": res.x_iters.tolist(), "y": res.func_vals.tolist()}
        except KeyboardInterrupt:
            out[run["study"]] = "interrupted"
            f.calls = 0
    print(json.dumps(out))


if __name__ == "__main__":
    main()
