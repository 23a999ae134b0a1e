"""Timeout benchmark: how soon a hung evaluation is recorded as failed, and what is left.

Runs ``minimize(..., timeout=T)`` on an objective that never returns on its first call
(it writes its pid to a marker, then sleeps forever), with ``executor=None`` (a
single-worker process pool) and ``executor="process"`` in batches of 2, ``--repeats``
times each. Measured per run: seconds from the hung evaluation's start in its worker to
the moment its failure was committed (``finished - started`` of the stored trial),
whether the run then finished its budget, and whether the hung worker process still
exists after the run. Writes ``timeout.md`` and ``timeout.json`` into ``--out``.

    nice -n 19 .venv/bin/python benchmarks/reliability/timeout.py --repeats 10
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import isoline as iso
from isoline.bench.report import git_commit
from isoline.processes import is_alive
from isoline.store import Store

HERE = Path(__file__).resolve().parent


class HangFirst:
    """Never returns on the first call (the one that creates ``marker``); a sphere else."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __call__(self, x: np.ndarray) -> float:
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return float(np.sum(np.asarray(x) ** 2))
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        while True:
            time.sleep(3600)


def one(work: Path, executor: str | None, batch: int, timeout: float, k: int) -> dict:
    marker, db = work / f"hung-{executor}-{k}", str(work / f"t-{executor}-{k}.db")
    t0 = time.time()
    res = iso.minimize(HangFirst(str(marker)), iso.Box([-1.0] * 2, [1.0] * 2), "random",
                       budget=6, batch_size=batch, executor=executor, timeout=timeout,
                       storage=db, study="s", seed=k)  # fmt: skip
    wall = time.time() - t0
    with Store(db, readonly=True) as store:
        trials = store.trials(store.get_study("s"))
    hung = [t for t in trials if t.error and t.error.startswith("timed out")]
    pid = int(marker.read_text())
    time.sleep(0.5)  # the pool reaps the killed worker asynchronously
    return {
        "executor": executor or "none", "batch_size": batch, "run": k,
        "timed_out": len(hung),
        "seconds_to_failure": round(hung[0].finished - hung[0].started, 3) if hung else None,
        "evaluations": res.n_evals, "ok": res.status.count("ok"),
        "hung_worker_alive_after": is_alive(pid), "run_seconds": round(wall, 2),
    }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--timeout", type=float, default=1.0)
    p.add_argument("--out", default=str(HERE.parent / "results" / "reliability"))
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for executor, batch in ((None, 1), ("process", 2)):
            for k in range(args.repeats):
                row = one(Path(tmp), executor, batch, args.timeout, k)
                print(json.dumps(row), flush=True)
                rows.append(row)
    command = "python benchmarks/reliability/timeout.py " + " ".join(sys.argv[1:])
    commit = git_commit(HERE)
    out = Path(args.out)
    (out / "timeout.json").write_text(json.dumps({"commit": commit, "command": command,
                                                  "rows": rows}, indent=1))  # fmt: skip
    lines = [
        f"# Timeout benchmark: a hung evaluation with `timeout={args.timeout:g}`",
        "",
        f"Made by `{command}` at commit `{commit}`; see `benchmarks/reliability/timeout.py`.",
        "Each run: 6 evaluations of random search in 2-d, the first evaluation never returns.",
        "Seconds to failure: from the evaluation's start in its worker to its recorded failure.",
        "",
        "| executor | batch | runs | timed out | seconds to failure: median | max | runs "
        "finished (6 evaluations, 5 ok) | hung workers alive after the run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for executor in ("none", "process"):
        rs = [r for r in rows if r["executor"] == executor]
        secs = [r["seconds_to_failure"] for r in rs if r["seconds_to_failure"] is not None]
        done = sum(r["evaluations"] == 6 and r["ok"] == 5 for r in rs)
        lines.append(
            f"| {executor} | {rs[0]['batch_size']} | {len(rs)} | "
            f"{sum(r['timed_out'] for r in rs)} | {np.median(secs):.2f} | {max(secs):.2f} | "
            f"{done} | {sum(r['hung_worker_alive_after'] for r in rs)} |"
        )
    (out / "timeout.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
