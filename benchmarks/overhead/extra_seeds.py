"""More seeds of one whole-run cell for one contender: suggestion CPU and final best.

Made the rows of ``benchmarks/results/overhead/gp_ei_d10_seeds5_9.jsonl`` (seeds 5-9 of the
d = 10 cell of ``whole_run.py``, same objective and budget; the library of the commit in
each row, by ``PYTHONPATH``).

Usage::

    python benchmarks/overhead/extra_seeds.py 10 100 '{"method": "gp-ei", "options": {}}' 5,6,7,8,9
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

import isoline as iso
from isoline.problems import get as get_problem
from isoline.threads import single_threaded


def main() -> None:
    d, budget = int(sys.argv[1]), int(sys.argv[2])
    spec = json.loads(sys.argv[3])
    for seed in (int(s) for s in sys.argv[4].split(",")):
        problem = get_problem("ackley", dim=d, seed=seed)
        opt = iso.Optimizer(problem.space, spec.get("method", "gp-ei"), seed=seed,
                            **spec.get("options", {}))  # fmt: skip
        cpu, best = 0.0, np.inf
        with single_threaded():
            for _ in range(budget):
                t = time.process_time()
                X = opt.ask(1)
                cpu += time.process_time() - t
                y = [float(problem(x)) for x in X]
                opt.tell(X, y)
                best = min(best, *y)
        print(json.dumps({"d": d, "seed": seed, "cpu": round(cpu, 2), "best": round(best, 4)}))


if __name__ == "__main__":
    main()
