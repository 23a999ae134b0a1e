"""Wall time per batch with q parallel workers on a 1 s objective (processes and Dask).

Target (issue 5): with q workers, each batch takes at most 10% longer than one evaluation
plus the time the method needs to suggest the batch. For q in {5, 10} and each executor
(isoline's ``"process"`` pool and a Dask ``LocalCluster`` of q single-threaded worker
processes), BKOP runs 1 initial batch + 4 BO batches on an objective that sleeps 1 s.
Per batch we measure the wall time between the end of consecutive batches (callback
times) and the suggestion time (``Optimizer.ask``); the ratio is
``(batch wall time - suggestion time) / 1 s``. The first batch includes worker start-up
and is reported apart.

Run: nice -n 10 .venv/bin/python benchmarks/batch_bo/parallel_timing.py
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

import isoline as iso
from isoline import optimizer as opt_mod
from isoline.bench.report import git_commit

SLEEP = 1.0
QS = (5, 10)
N_BATCHES = 5  # 1 initial-design batch + 4 BKOP batches


class Sleep:
    """The sphere after a 1 s sleep."""

    def __call__(self, x: np.ndarray) -> float:
        time.sleep(SLEEP)
        return float(np.sum(x**2))


def _timed_run(q: int, executor: object) -> dict[str, list[float]]:
    asks: list[float] = []
    ends: list[float] = []
    original = opt_mod.Optimizer.ask

    def timed_ask(self, n=None):  # instrumentation only
        t0 = time.perf_counter()
        try:
            return original(self, n)
        finally:
            asks.append(time.perf_counter() - t0)

    opt_mod.Optimizer.ask = timed_ask
    try:
        space = iso.Box([-1.0] * 6, [1.0] * 6)
        start = time.perf_counter()
        iso.minimize(Sleep(), space, "bkop", budget=q * N_BATCHES, batch_size=q, n_init=q,
                     seed=0, executor=executor,
                     callback=lambda r: ends.append(time.perf_counter()) and False)  # fmt: skip
    finally:
        opt_mod.Optimizer.ask = original
    walls = np.diff([start] + ends).tolist()
    return {"wall": walls, "ask": asks}


def main() -> None:
    from dask.distributed import Client, LocalCluster

    rows = []
    for q in QS:
        runs = {"process": _timed_run(q, "process")}
        with LocalCluster(n_workers=q, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:  # fmt: skip
            runs["dask LocalCluster"] = _timed_run(q, client.get_executor())
        for name, r in runs.items():
            wall, ask = np.array(r["wall"]), np.array(r["ask"])
            ratio = (wall - ask) / SLEEP
            rows.append({"q": q, "executor": name, "wall": wall.tolist(), "ask": ask.tolist(),
                         "ratio": ratio.tolist()})  # fmt: skip
            print(q, name, np.round(wall, 3), np.round(ask, 3), np.round(ratio, 3), flush=True)
    out = Path(__file__).resolve().parents[1] / "results" / "batch_bo"
    out.mkdir(parents=True, exist_ok=True)
    (out / "parallel_timing.json").write_text(json.dumps(rows, indent=1))
    commit = git_commit()
    lines = [
        "# Wall time per batch with q workers on a 1 s objective",
        "",
        "Command: `nice -n 10 .venv/bin/python benchmarks/batch_bo/parallel_timing.py`  ",
        f"git commit: {commit}; load average at the end: "
        f"{', '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores "
        "(shared with other jobs)  ",
        f"Method bkop (d = 6), batch size q, {N_BATCHES} batches (1 initial design + "
        f"{N_BATCHES - 1} BKOP batches), objective sleeps {SLEEP:.0f} s. "
        "ratio = (batch wall time - suggestion time) / evaluation time; target <= 1.10.",
        "",
        "| q | executor | first batch wall s (start-up) | BKOP batches: wall s | "
        "suggestion s | ratio mean | ratio max |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        w, a, ra = np.array(r["wall"]), np.array(r["ask"]), np.array(r["ratio"])
        lines.append(
            f"| {r['q']} | {r['executor']} | {w[0]:.3f} | "
            f"{', '.join(f'{v:.3f}' for v in w[1:])} | "
            f"{', '.join(f'{v:.3f}' for v in a[1:])} | {ra[1:].mean():.3f} | {ra[1:].max():.3f} |"
        )
    (out / "parallel_timing.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
