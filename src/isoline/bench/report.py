"""Benchmark report: convergence plots, final-value and wall-time tables in Markdown."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from isoline.bench.config import BenchConfig
from isoline.bench.formatting import file_name, fmt_number
from isoline.bench.plots import plot_convergence
from isoline.bench.report_outputs import feasibility_lines, hypervolume_section, run_problem
from isoline.bench.run_data import RunData, collect

__all__ = [
    "RunData", "collect", "copy_lines", "crash_lines", "part_lines", "version_lines",
    "write_report",
]  # fmt: skip


def crash_lines(runs: list[RunData]) -> list[str]:
    """Markdown lines naming each unfinished run that stopped on an exception."""
    crashed = [r for r in runs if r.crash is not None]
    if not crashed:
        return []
    lines = ["## Crashed runs", "", "Unfinished runs that stopped on an exception (their "
             "evaluations are kept; running the command again resumes them):", ""]  # fmt: skip
    lines += [f"- {r.spec.study} after {len(r.values)} evaluations: {r.crash}" for r in crashed]
    return lines + [""]


def copy_lines(runs: list[RunData]) -> list[str]:
    """Markdown lines counting the auto runs stored as copies of the identical run of
    their choice (:mod:`isoline.bench.twins`), by the contender copied."""
    copied = Counter(r.copied_from.split("/")[-2] for r in runs if r.copied_from)
    if not copied:
        return []
    text = ", ".join(f"{n} of {label!r}" for label, n in sorted(copied.items()))
    return [f"auto runs stored as copies of the run of the same cell with auto's choice as "
            f"method and options (the same trajectory, not run twice): {text}.", ""]  # fmt: skip


def part_lines(parts: list[dict[str, Any]]) -> list[str]:
    """Indented lines, one per entry of a store's run log (``STORE.parts.jsonl``): the
    commit, start and command of each stretch of runs, and each deletion of studies (made
    again later) with when, which, why and the command."""
    lines = []
    for p in parts:
        if "deleted" in p:
            lines.append(f"    deleted {p['deleted']}: {p['studies']} ({p['why']}): {p['command']}")
        else:
            lines.append(f"    {p['commit']} {p['started']}: {p['command']}")
    return lines


def version_lines(runs: list[RunData]) -> list[str]:
    """Markdown lines with the package versions the runs were made with: one line per
    distinct set, with its number of runs (several sets: the environment changed between
    runs, which can change model-based trajectories)."""
    sets = Counter(tuple(sorted(r.versions.items())) for r in runs)
    if not sets:
        return []
    lines = ["## Package versions", ""]
    for versions, n in sets.most_common():
        text = ", ".join(f"{k} {v}" for k, v in versions) if versions else "not recorded"
        lines.append(f"- {n} runs: {text}")
    return lines + [""]


def _fmt_point(point: Any) -> str:
    def one(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else repr(v)

    if isinstance(point, dict):
        return "{" + ", ".join(f"{k}: {one(v)}" for k, v in point.items()) + "}"
    return "[" + ", ".join(one(v) for v in point) + "]"


def final_table(runs: list[RunData]) -> list[dict[str, Any]]:
    """Per method: runs, evaluations, final mean/SEM/median, wall time, failures."""
    rows = []
    for label in dict.fromkeys(r.spec.method.label for r in runs):
        rs = [r for r in runs if r.spec.method.label == label]
        finals = np.array([r.curve()[-1] for r in rs])
        finals = finals[np.isfinite(finals)]
        rows.append(
            {
                "method": label,
                "runs": len(rs),
                "evals": int(np.mean([len(r.values) for r in rs])),
                "mean": float(np.mean(finals)) if finals.size else np.nan,
                "sem": float(np.std(finals, ddof=1) / np.sqrt(finals.size))
                if finals.size > 1
                else 0.0,
                "median": float(np.median(finals)) if finals.size else np.nan,
                "wall": float(np.mean([r.wall_time for r in rs])),
                "failed": int(sum(r.n_failed for r in rs)),
                "finals": finals,
            }
        )
    return rows


def write_report(
    cfg: BenchConfig, storage: str, out_dir: str | Path, command: str | None = None
) -> Path:
    """Write ``report.md`` and one PNG per problem into ``out_dir``; return the report path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    runs = collect(cfg, storage)
    out.mkdir(parents=True, exist_ok=True)
    finals: dict[str, dict[str, np.ndarray]] = {}
    lines = [
        f"# Benchmark report: {cfg.name}",
        "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M:%S')} from `{storage}`"
        + (f" by `{command}`" if command else "")
        + f"; commit `{git_commit()}`.",
        f"Budget {cfg.budget} evaluations, seeds {cfg.seeds}, batch size {cfg.batch_size}.",
        "Values are noise-free where the problem is noisy; with a known optimum the",
        "tables and plots show simple regret (best value so far minus the optimum).",
        "Bands and +- are one standard error of the mean over seeds.",
        "",
    ]
    if cfg.direction == "maximize":
        lines[-1:-1] = [
            "The config maximizes: best values in the tables, best points and plots are",
            "the highest ones, in the objective's own sign; the statistics compare the",
            "minimized values (the objective negated, as isoline optimizes it).",
        ]
    for prob in cfg.problems:
        pruns = [r for r in runs if r.spec.problem.label == prob.label]
        if not pruns:
            lines += [f"## {prob.label}", "", "No runs stored yet.", ""]
            continue
        if pruns[0].outputs is not None and pruns[0].objective.n_objectives > 1:
            lines += hypervolume_section(prob.label, pruns, run_problem(pruns), out)
            continue
        regret = all(r.optimum is not None for r in pruns)
        sign = pruns[0].sign  # the tables and plots show the user's values
        what = "simple regret" if regret else "best value"
        if sign < 0:
            what = "best value, maximized"
        curves: dict[str, list[np.ndarray]] = {}
        for r in pruns:
            curves.setdefault(r.spec.method.label, []).append(sign * r.curve())
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        positive = regret and all(
            np.isfinite(c).any() and np.nanmin(c) > 0 for cs in curves.values() for c in cs
        )
        plot_convergence(curves, ax=ax, title=prob.label, ylabel=what, log=positive)
        png = f"{file_name(prob.label)}.png"
        fig.tight_layout()
        fig.savefig(out / png, dpi=110)
        plt.close(fig)
        rows = final_table(pruns)
        # the best mean, compared in minimized units
        best = min((r["mean"] for r in rows if np.isfinite(r["mean"])), default=np.nan)
        lines += [f"## {prob.label}", "", f"![{prob.label}]({png})", ""]
        lines += [
            f"| method | runs | evals | final {what} (mean +- SEM) | median | wall time / run (s) | failed evals |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            mean = fmt_number(sign * row["mean"])
            if row["mean"] == best:
                mean = f"**{mean}**"
            cell, median = f"{mean} +- {fmt_number(row['sem'])}", fmt_number(sign * row["median"])
            if pruns[0].outputs is not None and not np.isfinite(row["mean"]):
                cell = median = "none feasible"  # constrained: no run of the method found one
            lines.append(
                f"| {row['method']} | {row['runs']} | {row['evals']} | {cell} | "
                f"{median} | {row['wall']:.2f} | {row['failed']} |"
            )
        lines.append("")
        if pruns[0].outputs is not None:  # one objective with constraints
            lines += feasibility_lines(pruns)
        lines += _best_points(pruns)
        finals[prob.label] = {r["method"]: r["finals"] for r in rows}
    against = cfg.report.get("against")
    if against:
        lines += _stats_section(finals, against)
    lines += crash_lines(runs) + copy_lines(runs)
    lines += version_lines(runs)
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _best_points(runs: list[RunData]) -> list[str]:
    """One line per method: its best point over all runs, with parameter names."""
    out = []
    for label in dict.fromkeys(r.spec.method.label for r in runs):
        rs = [r for r in runs if r.spec.method.label == label and r.best_point is not None]
        if not rs:
            continue
        best = min(rs, key=lambda r: float(np.nanmin(r.values)))
        value = best.sign * float(np.nanmin(best.values))  # the user's: highest if maximized
        out.append(
            f"- {label}: best value {value:.6g} (seed {best.spec.seed}) at "
            f"{_fmt_point(best.best_point)}"
        )
    return ["Best point of each method over its runs:", "", *out, ""] if out else []


def _stats_section(finals: dict[str, dict[str, np.ndarray]], against: str) -> list[str]:
    """KS normality and BH-corrected one-sided t-tests against ``against`` (NeuralBO
    paper Tables 1-2), over the problems where ``against`` has results."""
    from isoline.bench.stats import markdown_ks_table, markdown_ttest_table, ttest_table

    cells = {c: m for c, m in finals.items() if against in m and len(m) > 1}
    if not cells:
        return []
    return [
        "## Statistics",
        "",
        "Kolmogorov-Smirnov normality p-values of the final values:",
        "",
        markdown_ks_table(cells),
        "",
        f"One-sided t-tests, H0: baseline mean <= {against} mean (entry: p-value, and T when",
        "H0 is rejected at FDR 0.05 after Benjamini-Hochberg over the whole table), i.e. T",
        f"where the baseline is significantly worse than {against}:",
        "",
        markdown_ttest_table(ttest_table(cells, against)),
        "",
        f"The other direction, H0: baseline mean >= {against} mean, i.e. T where the baseline",
        f"is significantly better than {against}:",
        "",
        markdown_ttest_table(ttest_table(cells, against, alternative="less")),
        "",
    ]


def git_commit(where: str | Path | None = None) -> str:
    """Short commit of the git checkout holding ``where`` (default: this isoline package,
    so a benchmark run from a worktree names the worktree's commit), or ``"unknown"``."""
    import subprocess

    where = Path(__file__).parent if where is None else Path(where)
    try:
        return (
            subprocess.run(
                ["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                timeout=5,
            ).stdout.strip()  # fmt: skip
            or "unknown"
        )
    except Exception:  # noqa: BLE001
        return "unknown"


def suggestion_costs(
    runs: list[RunData], cells: set[tuple[str, int]], reference: str
) -> dict[str, dict[str, float]]:
    """Per contender label, over its runs in ``cells`` (``(problem label, seed)``): the
    median suggestion wall time per run, the summed wall time over ``reference``'s, and
    the same two for the method's CPU time (:attr:`RunData.suggest_cpu`; NaN when a run
    did not record it)."""
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for r in runs:
        if (r.spec.problem.label, r.spec.seed) in cells:
            wall.setdefault(r.spec.method.label, []).append(r.suggest_time)
            cpu.setdefault(r.spec.method.label, []).append(r.suggest_cpu)
    ref_wall = float(np.sum(wall[reference])) if reference in wall else np.nan
    ref_cpu = float(np.sum(cpu[reference])) if reference in cpu else np.nan
    return {
        lab: {
            "suggest s/run (median)": float(np.median(wall[lab])),
            f"time x {reference}": float(np.sum(wall[lab])) / ref_wall,
            "CPU s/run (median)": float(np.median(cpu[lab])),
            f"CPU x {reference}": float(np.sum(cpu[lab])) / ref_cpu,
        }
        for lab in wall
    }
