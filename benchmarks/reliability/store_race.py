"""Race benchmark: two processes open the same *new* store, or create the same *new*
study, at the same moment, many times.

Two worker processes step through ``--opens`` fresh paths in lock step (a barrier before
each open). ``--mode store`` opens ``Store(path)`` on a path that does not exist yet;
``--mode study`` makes both run ``minimize`` (random search, 2 evaluations, one shared
objective log) on a new study of one shared, already created store. Every outcome is
counted by its exception type and message ("ok" for none). A study race must end with
one winner or with both runs finished on the one study, and every point evaluated once
(the objective appends each evaluation to a log file; the count of duplicates is printed).

    nice -n 10 .venv/bin/python benchmarks/reliability/store_race.py --mode store --opens 1000
    nice -n 10 .venv/bin/python benchmarks/reliability/store_race.py --mode study --opens 200
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

import isoline as iso
from isoline.store import Store, StoreError


def _log_objective(log: str) -> Any:
    def f(x: np.ndarray) -> float:
        with open(log, "a") as fh:
            fh.write(json.dumps([float(v) for v in x]) + "\n")
        return float(np.sum(np.asarray(x) ** 2))

    return f


def _worker(mode: str, folder: str, n: int, barrier: Any, queue: Any) -> None:
    counts: collections.Counter[str] = collections.Counter()
    store_path = os.path.join(folder, "shared.db")
    for i in range(n):
        barrier.wait()
        try:
            if mode == "store":
                with Store(os.path.join(folder, f"s{i}.db")):
                    pass
            else:
                log = os.path.join(folder, f"log{i}.jsonl")
                iso.minimize(_log_objective(log), iso.Box([0, 0], [1, 1]), method="random",
                             budget=2, seed=i, storage=store_path, study=f"study{i}",
                             progress=False)  # fmt: skip
            counts["ok"] += 1
        except StoreError as err:
            kind = "being run" if "being run" in str(err) else str(err)[:80]
            counts[f"StoreError: {kind}"] += 1
        except Exception as err:  # a raw exception is what the benchmark counts
            counts[f"{type(err).__name__}: {str(err)[:80]}"] += 1
    queue.put(dict(counts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["store", "study"], default="store")
    parser.add_argument("--opens", type=int, default=1000, help="races (each by 2 processes)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="isoline-race-")
    if args.mode == "study":
        Store(os.path.join(folder, "shared.db")).close()
    ctx = mp.get_context("fork")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(args.mode, folder, args.opens, barrier, queue))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    total: collections.Counter[str] = collections.Counter()
    for _ in procs:
        total.update(queue.get())
    for p in procs:
        p.join()
    duplicates = 0
    for log in Path(folder).glob("log*.jsonl"):
        lines = log.read_text().splitlines()
        duplicates += len(lines) - len(set(lines))
    print(json.dumps({"mode": args.mode, "races": args.opens, "processes": 2,
                      "outcomes": dict(sorted(total.items())),
                      "evaluated twice": duplicates}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
