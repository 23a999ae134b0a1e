"""Summaries of the batch-BO benchmarks in the layout of the BKOP paper's figures.

Reads the SQLite stores written by run.sh and writes into benchmarks/results/batch_bo/:

* ``fig1_cells.md``: the final simple regret of BKOP, GP-BUCB and GP-UCB-PE in every
  (function, L) cell, the winner, and whether BKOP beats both baselines (target: >= 10 of
  12 cells), with one-sided Mann-Whitney U p-values of BKOP < each baseline;
* ``fig1_L5.png``, ``fig1_L10.png``: simple-regret curves (mean +- SEM over seeds);
* ``fig4_bull.png``, ``fig5.png`` and ``summary.md`` for Figures 4 and 5.

Run: nice -n 10 .venv/bin/python benchmarks/batch_bo/summarize.py (stores in /tmp, or in
the folder named by the environment variable ISOLINE_BATCH_BO_STORES)
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.stats import mannwhitneyu  # noqa: E402

from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.report import RunData, collect, git_commit  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE.parents[0] / "results" / "batch_bo"
COLORS = {"BKOP": "C0", "GP-BUCB": "C1", "GP-UCB-PE": "C2", "Bull": "C3"}


def load(name: str) -> tuple[list[RunData], object]:
    cfg = load_config(HERE / f"{name}.yaml")
    store = Path(os.environ.get("ISOLINE_BATCH_BO_STORES", "/tmp")) / f"batch_bo_{name}.db"
    if not Path(store).exists():
        return [], cfg
    return collect(cfg, store), cfg


def split_label(label: str) -> tuple[str, int]:
    m = re.fullmatch(r"(.+) L=(\d+)", label)
    assert m, label
    return m.group(1), int(m.group(2))


def group(runs: list[RunData]) -> dict[tuple[str, str, int], list[np.ndarray]]:
    """``(problem, method, L) -> curves`` of complete runs."""
    out: dict[tuple[str, str, int], list[np.ndarray]] = {}
    for r in runs:
        if len(r.values) < r.spec.budget:
            continue
        method, L = split_label(r.spec.method.label)
        out.setdefault((r.spec.problem.name, method, L), []).append(r.curve())
    return out


def mean_sem(curves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    A = np.vstack(curves)
    sem = A.std(axis=0, ddof=1) / np.sqrt(len(A)) if len(A) > 1 else np.zeros(A.shape[1])
    return A.mean(axis=0), sem


def plot_panels(
    groups: dict, problems: list[str], methods: list[str], L: int, path: Path, ylabel: str
) -> None:
    n = len(problems)
    cols = min(n, 3)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for ax, prob in zip(axes.flat, problems):
        for m in methods:
            curves = groups.get((prob, m, L))
            if not curves:
                continue
            mu, se = mean_sem(curves)
            x = np.arange(1, len(mu) + 1)
            ax.plot(x, mu, color=COLORS.get(m), label=f"{m} (n={len(curves)})")
            ax.fill_between(x, mu - se, mu + se, color=COLORS.get(m), alpha=0.2)
        ax.set_title(f"{prob}, L={L}")
        ax.set_xlabel("evaluations")
        ax.set_ylabel(ylabel)
        if all(np.nanmin(c) > 0 for m in methods for c in groups.get((prob, m, L), [])):
            ax.set_yscale("log")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def fig1() -> list[str]:
    runs, cfg = load("fig1_synthetic")
    g = group(runs)
    problems = [p.name for p in cfg.problems]
    base = ["BKOP", "GP-BUCB", "GP-UCB-PE"]
    for L in (5, 10):
        plot_panels(g, problems, base, L, OUT / f"fig1_L{L}.png", "simple regret")
    lines = [
        "## Figure 1: Table 4 functions, d = 6",
        "",
        f"Budget {cfg.budget} evaluations (20 lattice + {cfg.budget - 20} BO), seeds "
        f"{cfg.seeds} (paper: 30 runs). Final simple regret, mean +- SEM over seeds; "
        "p = one-sided Mann-Whitney U p-value of BKOP < baseline.",
        "",
        "![L=5](fig1_L5.png)",
        "",
        "![L=10](fig1_L10.png)",
        "",
        "| function | L | runs | BKOP | GP-BUCB | GP-UCB-PE | lowest mean | p vs GP-BUCB | "
        "p vs GP-UCB-PE |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    wins = cells = ties = 0
    for prob in problems:
        for L in (5, 10):
            finals = {m: np.array([c[-1] for c in g.get((prob, m, L), [])]) for m in base}
            if any(len(v) == 0 for v in finals.values()):
                lines.append(f"| {prob} | {L} | incomplete | | | | | | |")
                continue
            cells += 1
            means = {m: v.mean() for m, v in finals.items()}
            low = min(means.values())
            tied = [m for m in base if means[m] <= low + 1e-9 * max(1.0, abs(low))]
            best = tied[0] if len(tied) == 1 else "tie: " + ", ".join(tied)
            wins += best == "BKOP"
            ties += len(tied) > 1
            cell = []
            for m in base:
                v = finals[m]
                se = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0
                txt = f"{v.mean():.4g} +- {se:.2g}"
                cell.append(f"**{txt}**" if m in tied else txt)
            pv = [
                mannwhitneyu(finals["BKOP"], finals[m], alternative="less").pvalue for m in base[1:]
            ]
            n = min(len(v) for v in finals.values())
            lines.append(
                f"| {prob} | {L} | {n} | {' | '.join(cell)} | {best} | {pv[0]:.3f} | {pv[1]:.3f} |"
            )
    lines += [
        "",
        f"**BKOP alone has the lowest mean final simple regret in {wins} of {cells} cells** "
        f"(target: >= 10 of 12); {ties} cell(s) are ties (equal means, e.g. no method "
        "improved on the shared initial design).",
        "",
    ]
    (OUT / "fig1_cells.md").write_text("# BKOP paper Figure 1 cells\n\n" + "\n".join(lines) + "\n")
    return lines


def one_sided(a: list[np.ndarray] | None, b: list[np.ndarray] | None) -> str:
    """One-sided Mann-Whitney U p-value that the final values of ``a`` lie below ``b``'s."""
    if not a or not b:
        return "-"
    return f"{mannwhitneyu([c[-1] for c in a], [c[-1] for c in b], alternative='less').pvalue:.3f}"


def fig4() -> list[str]:
    runs, cfg = load("fig4_bull")
    g = group(runs)
    problems = [p.name for p in cfg.problems]
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.4))
    lines = [
        "## Figure 4: BKOP versus Bull's non-adaptive batch (§9)",
        "",
        f"Budget {cfg.budget}, seeds {cfg.seeds} (paper: 30 runs). Final simple regret, "
        "mean +- SEM; p = one-sided Mann-Whitney U p-value of BKOP < Bull.",
        "",
        "![Figure 4](fig4_bull.png)",
        "",
        "| function | L | BKOP | Bull | p |",
        "|---|---|---|---|---|",
    ]
    i = 0
    for prob in problems:
        for L in (5, 10):
            ax = axes[i]
            i += 1
            cells = []
            for m in ("BKOP", "Bull"):
                curves = g.get((prob, m, L))
                if not curves:
                    cells.append("incomplete")
                    continue
                mu, se = mean_sem(curves)
                x = np.arange(1, len(mu) + 1)
                ax.plot(x, mu, color=COLORS[m], label=f"{m} (n={len(curves)})")
                ax.fill_between(x, mu - se, mu + se, color=COLORS[m], alpha=0.2)
                cells.append(f"{mu[-1]:.4g} +- {se[-1]:.2g}")
            ax.set_title(f"{prob}, L={L}")
            ax.set_xlabel("evaluations")
            ax.set_ylabel("simple regret")
            ax.set_yscale("log")
            ax.legend(fontsize=7)
            cells.append(one_sided(g.get((prob, "BKOP", L)), g.get((prob, "Bull", L))))
            lines.append(f"| {prob} | {L} | {' | '.join(cells)} |")
    fig.tight_layout()
    fig.savefig(OUT / "fig4_bull.png", dpi=100)
    plt.close(fig)
    return lines + [""]


def fig5() -> list[str]:
    lines = ["## Figure 5: robot pushing and hyperparameter tuning", ""]
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.4))
    i = 0
    for name, ylabel in (("fig5_push", "distance to goal"), ("fig5_hpo", "validation error")):
        runs, cfg = load(name)
        g = group(runs)
        prob = cfg.problems[0].name
        lines += [
            f"### {cfg.problems[0].label}",
            "",
            f"Budget {cfg.budget}, seeds {cfg.seeds}. Final best {ylabel} (mean +- SEM); "
            "p = one-sided Mann-Whitney U p-value of BKOP < baseline.",
            "",
            "| L | BKOP | GP-BUCB | GP-UCB-PE | p vs GP-BUCB | p vs GP-UCB-PE |",
            "|---|---|---|---|---|---|",
        ]
        for L in (5, 10):
            ax = axes[i]
            i += 1
            cells = []
            for m in ("BKOP", "GP-BUCB", "GP-UCB-PE"):
                curves = g.get((prob, m, L))
                if not curves:
                    cells.append("incomplete")
                    continue
                mu, se = mean_sem(curves)
                x = np.arange(1, len(mu) + 1)
                ax.plot(x, mu, color=COLORS[m], label=f"{m} (n={len(curves)})")
                ax.fill_between(x, mu - se, mu + se, color=COLORS[m], alpha=0.2)
                cells.append(f"{mu[-1]:.4g} +- {se[-1]:.2g}")
            ax.set_title(f"{cfg.problems[0].label}, L={L}")
            ax.set_xlabel("evaluations")
            ax.set_ylabel(f"best {ylabel}")
            ax.legend(fontsize=7)
            for m in ("GP-BUCB", "GP-UCB-PE"):
                cells.append(one_sided(g.get((prob, "BKOP", L)), g.get((prob, m, L))))
            lines.append(f"| {L} | {' | '.join(cells)} |")
        lines.append("")
    fig.tight_layout()
    fig.savefig(OUT / "fig5.png", dpi=100)
    plt.close(fig)
    return lines + ["![Figure 5](fig5.png)", ""]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    commit = git_commit()
    lines = [
        "# Batch BO benchmarks (BKOP paper §9-10)",
        "",
        "Commands: `sh benchmarks/batch_bo/run.sh` (runs every config with "
        "`isoline bench ... --workers 2` under `nice -n 10`, then this script: "
        "`.venv/bin/python benchmarks/batch_bo/summarize.py`).  ",
        f"Summary written at commit `{commit}`; each per-config report (fig1_synthetic/, "
        "fig4_bull/, fig5_push/, fig5_hpo/, with wall times) names the commit its runs "
        "were made at.",
        "All methods: ARD Matern-5/2 GP (marginal-likelihood hyperparameters), noise-free "
        "setting, acquisition maximized by the gradient optimizer (isoline default, see "
        "acq_optimizers.md; here 10 L-BFGS-B restarts from 512 raw samples for every "
        "method), same lattice initial design per seed; BKOP w = 1; GP-BUCB and "
        "GP-UCB-PE beta_t = 2 log(d t^2 pi^2 / (6 * 0.1)).",
        "",
    ]
    lines += fig1() + fig4() + fig5()
    (OUT / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
