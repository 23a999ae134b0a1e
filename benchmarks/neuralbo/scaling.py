"""Scaling study (NeuralBO paper Fig. 6 argument): one iteration's wall time and peak memory
as the number of observations grows, d = 100, for neuralbo (width 500), gp-ei and
neural-greedy with their default (paper) settings.

Each (method, n) cell runs in a fresh Python subprocess: tell ``n`` uniform random points
of Ackley (d = 100, SFU domain), then time one ``ask()`` (wall and CPU seconds, one torch
thread as in the benchmark runner). Memory: the process's peak resident set size
(``VmHWM`` from ``/proc/self/status``) over the whole cell, and the peak during the
``ask()`` alone (the high-water mark is reset just before it via ``/proc/self/clear_refs``).

    nice -n 10 .venv/bin/python benchmarks/neuralbo/scaling.py \
        --out benchmarks/results/neuralbo/scaling
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

DIM = 100
METHODS = ["neuralbo", "gp-ei", "neural-greedy"]
NS = [250, 500, 1000, 2000]


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def run_cell(method: str, n: int, seed: int = 0) -> dict:
    """Time one ask() after n observations; runs in the current process."""
    import numpy as np
    import torch

    import isoline as iso
    from isoline.methods.gp_bo import PAPER_GP_OPTIONS  # the paper's GP-EI baseline

    torch.set_num_threads(1)
    prob = iso.problems.get("ackley", dim=DIM, bounds=(-32.768, 32.768), seed=seed)
    opt = iso.Optimizer(
        prob.space, method, seed=seed, n_init=1, **(PAPER_GP_OPTIONS if method == "gp-ei" else {})
    )
    opt.tell(opt.ask(), [0.0])  # serve the 1-point design (its value is replaced below)
    rng = np.random.default_rng(seed)
    U = rng.random((n - 1, DIM))
    X = prob.space.from_unit(U)
    opt.tell(X, prob.evaluate_batch(X))
    rss_before = _status_kb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    t_wall, t_cpu = time.perf_counter(), time.process_time()
    x = opt.ask()
    wall, cpu = time.perf_counter() - t_wall, time.process_time() - t_cpu
    assert x.shape == (1, DIM)
    return {
        "method": method,
        "n": n,
        "d": DIM,
        "wall_s": wall,
        "cpu_s": cpu,
        "rss_before_mb": rss_before / 1024,
        "peak_ask_mb": _status_kb("VmHWM") / 1024,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cell", nargs=2, metavar=("METHOD", "N"), help="run one cell here")
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--n", nargs="+", type=int, default=NS)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/neuralbo/scaling"))
    a = ap.parse_args()
    if a.cell:
        print(json.dumps(run_cell(a.cell[0], int(a.cell[1]))))
        return
    a.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in a.n:
        for m in a.methods:
            proc = subprocess.run(
                [sys.executable, __file__, "--cell", m, str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(json.dumps(row), flush=True)
            (a.out / "scaling.json").write_text(json.dumps(rows, indent=1) + "\n")
    write_outputs(rows, a.out)


def write_outputs(rows: list[dict], out: Path) -> None:
    """Markdown table and a two-panel PNG (seconds and peak MB per iteration vs n)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines = [
        "| method | n | wall s / ask | CPU s / ask | RSS before ask (MB) "
        "| peak RSS during ask (MB) |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['method']} | {r['n']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | "
        f"{r['rss_before_mb']:.0f} | {r['peak_ask_mb']:.0f} |"
        for r in rows
    ]
    (out / "scaling.md").write_text("\n".join(lines) + "\n")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for m in dict.fromkeys(r["method"] for r in rows):
        rs = [r for r in rows if r["method"] == m]
        ns = [r["n"] for r in rs]
        axes[0].plot(ns, [r["wall_s"] for r in rs], marker="o", label=m)
        axes[1].plot(ns, [r["peak_ask_mb"] for r in rs], marker="o", label=m)
    axes[0].set(
        xscale="log",
        yscale="log",
        xlabel="observations n",
        ylabel="seconds per ask",
        title=f"time per iteration, d = {DIM}",
    )
    axes[1].set(
        xscale="log",
        xlabel="observations n",
        ylabel="peak RSS during ask (MB)",
        title=f"peak memory, d = {DIM}",
    )
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=110)


if __name__ == "__main__":
    main()
