"""The benchmark report's sections for problems with several outputs.

Several objectives: each run's hypervolume after every evaluation (plotted, mean and
standard error over seeds) and at the end (table, with the size of the feasible Pareto
front), against the problem's reference point, or, for a problem without one, the
reference point inferred from every run's rows on that problem together
(:meth:`isoline.objective.Objective.reference_point`). One objective with constraints:
which runs found a feasible point and the share of feasible evaluations, beside the
best feasible values of the ordinary table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from isoline.bench.formatting import file_name, fmt_number
from isoline.bench.plots import plot_convergence
from isoline.bench.preflight import make_problem
from isoline.bench.run_data import RunData

__all__ = ["feasibility_lines", "hypervolume_section", "run_problem"]


def run_problem(runs: list[RunData]) -> Any:
    """The problem of the runs (its reference point and maximal hypervolume), or
    ``None`` when it cannot be built here (the report then infers a reference point)."""
    try:
        return make_problem(runs[0].spec)
    except Exception:  # noqa: BLE001 - the report still shows the runs
        return None


def _reference(runs: list[RunData], problem: Any) -> tuple[np.ndarray, str]:
    spec = runs[0].objective
    own = getattr(problem, "ref_point", None)
    if own is not None and spec == getattr(problem, "objective", None):
        return np.asarray(own, dtype=float), "the problem's reference point"
    union = np.vstack([r.outputs for r in runs if r.outputs is not None])
    if not spec.feasible(union).any():
        return np.full(spec.n_objectives, np.nan), "none (no run found a feasible point)"
    return spec.reference_point(union), "inferred from every run's front together"


def hypervolume_section(label: str, runs: list[RunData], problem: Any, out: Path) -> list[str]:
    """Markdown lines (and a PNG in ``out``) for the multi-objective runs of a problem."""
    import matplotlib.pyplot as plt

    spec = runs[0].objective
    ref, source = _reference(runs, problem)
    known = np.isfinite(ref).all()
    curves: dict[str, list[np.ndarray]] = {}
    for r in runs:
        assert r.outputs is not None
        hv = spec.hypervolume_history(r.outputs, ref) if known else np.zeros(len(r.outputs))
        curves.setdefault(r.spec.method.label, []).append(hv)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    plot_convergence(curves, ax=ax, title=label, ylabel="hypervolume")
    png = f"{file_name(label)}.png"
    fig.tight_layout()
    fig.savefig(out / png, dpi=110)
    plt.close(fig)
    point = "[" + ", ".join(f"{v:.6g}" for v in ref) + "]"
    lines = [f"## {label}", "", f"![{label}]({png})", "",
             f"{spec.n_objectives} objectives ({spec.describe()}); hypervolume against "
             f"{point}, {source}."]  # fmt: skip
    top = getattr(problem, "max_hypervolume", None)
    if top is not None and source.startswith("the problem's"):
        lines[-1] += f" The true front's hypervolume is {top:.6g}."
    lines += ["", "| method | runs | evals | final hypervolume (mean +- SEM) | median | "
              "Pareto front size (mean) | feasible evals | wall time / run (s) | failed evals |",
              "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    rows = []
    for lab, cs in curves.items():
        rs = [r for r in runs if r.spec.method.label == lab]
        Ys = [r.outputs for r in rs if r.outputs is not None]
        finals = np.array([c[-1] if len(c) else 0.0 for c in cs])
        sem = float(np.std(finals, ddof=1) / np.sqrt(len(finals))) if len(finals) > 1 else 0.0
        front = np.mean([len(spec.pareto_indices(Y)) for Y in Ys])
        share = np.mean([np.mean(spec.feasible(Y)) for Y in Ys])
        rows.append((lab, rs, finals, sem, front, share))
    best = max(float(np.mean(f)) for _, _, f, _, _, _ in rows)
    for lab, rs, finals, sem, front, share in rows:
        mean = fmt_number(float(np.mean(finals)))
        mean = f"**{mean}**" if float(np.mean(finals)) == best and known else mean
        lines.append(
            f"| {lab} | {len(rs)} | {int(np.mean([len(r.values) for r in rs]))} | {mean} +- "
            f"{fmt_number(sem)} | {fmt_number(float(np.median(finals)))} | {front:.1f} | "
            f"{share:.0%} | {np.mean([r.wall_time for r in rs]):.2f} | "
            f"{sum(r.n_failed for r in rs)} |"
        )
    return [*lines, ""]


def feasibility_lines(runs: list[RunData]) -> list[str]:
    """Per method: runs that found a feasible point and the share of feasible evaluations
    (constrained runs with one objective)."""
    out = []
    for lab in dict.fromkeys(r.spec.method.label for r in runs):
        rs = [r for r in runs if r.spec.method.label == lab]
        ok = [r.objective.feasible(r.outputs) for r in rs if r.outputs is not None]
        if not ok:
            continue
        found = sum(bool(f.any()) for f in ok)
        share = float(np.mean([f.mean() for f in ok]))
        out.append(f"- {lab}: {found} of {len(ok)} runs found a feasible point; "
                   f"{share:.0%} of evaluations feasible")  # fmt: skip
    return ["Feasibility (constraints <= 0):", "", *out, ""] if out else []
