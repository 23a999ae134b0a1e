"""The report of one study (``isoline report STORE STUDY --out DIR``): its five plots, its
table of evaluations and a short summary in markdown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from isoline.evaluations import Parameter, parameters
from isoline.visualization.common import StudyResult, direction
from isoline.visualization.contour import plot_contour
from isoline.visualization.coordinates import plot_parallel_coordinates
from isoline.visualization.history import plot_history
from isoline.visualization.importance import param_importances, plot_param_importances
from isoline.visualization.outputs import (
    plot_feasibility,
    plot_hypervolume_history,
    plot_pareto_front,
)
from isoline.visualization.slices import plot_slice

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PLOTS", "output_plots", "write_study_report"]

#: file stem -> the plot drawn into it
PLOTS: dict[str, Callable[..., Any]] = {
    "history": plot_history,
    "slice": plot_slice,
    "parallel_coordinates": plot_parallel_coordinates,
    "importances": plot_param_importances,
    "contour": plot_contour,
}


def output_plots(result: StudyResult) -> dict[str, Callable[..., Any]]:
    """The plots a study with several objectives (front, hypervolume) or constraints
    (feasibility) adds to :data:`PLOTS`."""
    spec: Any = getattr(result, "objective", None)
    if spec is None or getattr(result, "outputs", None) is None:
        return {}
    out: dict[str, Callable[..., Any]] = {}
    if spec.n_objectives > 1:
        out["pareto_front"] = plot_pareto_front
        out["hypervolume"] = plot_hypervolume_history
    if spec.n_constraints:
        out["feasibility"] = plot_feasibility
    return out


def _csv_cells(frame: pd.DataFrame, result: StudyResult) -> pd.DataFrame:
    """``frame`` with a chosen ``None`` (``Categorical([None, ...])``) written as the cell
    ``None``; an inactive parameter's cell and every other missing value stay empty."""
    out = frame.copy()
    space = result.space
    for p in parameters(space) if space is not None else []:
        if p.kind == "categorical" and any(c is None for c in p.choices):
            out[p.column] = [None if p.inactive(v) else ("None" if v is None else v)
                             for v in out[p.column]]  # fmt: skip
    return out


def write_study_report(
    result: StudyResult,
    out: str | Path,
    command: str | None = None,
    *,
    ref: Any = None,
    ref_source: str = "given",
) -> Path:
    """Write ``summary.md``, ``evaluations.csv`` (:meth:`~isoline.Result.to_dataframe`;
    an inactive parameter's cell is empty, a chosen ``None`` reads ``None``) and one PNG per plot of :data:`PLOTS` (and of :func:`output_plots`) into the folder ``out`` (created if missing). A
    plot the study cannot have (a contour of a one-parameter space, too few finished
    evaluations) is left out and the summary says why.

    With several objectives the hypervolume (summary and plot) is taken against ``ref``
    (user units; the summary names it with ``ref_source``), or against the reference point
    inferred from the front (:attr:`~isoline.Result.reference_point`) if ``ref`` is ``None``.

    Returns:
        The path of ``summary.md``.
    """
    import matplotlib.pyplot as plt

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    frame = result.to_dataframe()
    _csv_cells(frame, result).to_csv(folder / "evaluations.csv", index=False)
    drawn, skipped = [], []
    try:  # computed once: the importance plot shows them, the contour takes the first two
        shares: dict[str, float] | None = param_importances(result)
    except ValueError:
        shares = None
    options: dict[str, dict[str, Any]] = {"importances": {"importances": shares}}
    if shares is not None and len(shares) > 2:
        options["contour"] = {"params": list(shares)[:2]}
    if ref is not None:
        options["hypervolume"] = {"ref": ref}
    for stem, plot in {**PLOTS, **output_plots(result)}.items():
        try:
            fig = plot(result, **options.get(stem, {}))
        except ValueError as err:
            skipped.append(f"- {stem}: not drawn: {err}")
            continue
        fig.savefig(folder / f"{stem}.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        drawn.append(f"![{stem}]({stem}.png)")
    lines = [f"# Study {result.study}", "", *_summary(result, frame, ref, ref_source), "",
             "## Plots", ""]  # fmt: skip
    lines += [*drawn, "", *skipped] if skipped else drawn
    lines += ["", "Every evaluation: [evaluations.csv](evaluations.csv)."]
    if command:
        lines += ["", f"Made with `{command}`."]
    path = folder / "summary.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _summary(result: StudyResult, frame: Any, ref: Any, ref_source: str) -> list[str]:
    n_failed = int((frame["state"] == "failed").sum())
    lines = [f"- store: {getattr(result, 'storage', '?')}", f"- method: {result.method}"]
    choice = getattr(result, "choice", None)
    rule = getattr(choice, "rule", None) or (
        choice.get("rule") if isinstance(choice, dict) else None
    )
    if rule:
        lines[-1] += f" (chosen by auto's rule {rule!r})"
    spec: Any = getattr(result, "objective", None)
    if "pareto" in frame:  # several objectives: a front, no single best value
        goals = zip(spec.names, spec.directions)
        lines.append("- objectives: " + ", ".join(f"{n} ({d})" for n, d in goals))
    else:
        lines.append(f"- direction: {direction(result)}")
    lines.append(f"- evaluations: {len(frame)} ({n_failed} failed)")
    if "feasible" in frame:
        shown = ", ".join(spec.constraints)
        lines.append(f"- feasible: {int(frame['feasible'].sum())} of {len(frame)} evaluations "
                     f"(constraints {shown}, each <= 0)")  # fmt: skip
    if "pareto" in frame:
        return [*lines, *_front(result, frame, spec, ref, ref_source)]
    return [*lines, *_best(result, frame)]


def _best(result: StudyResult, frame: Any) -> list[str]:
    """The best (feasible) evaluation and its parameters."""
    values = frame["value"].to_numpy(dtype=float)
    ok = np.isfinite(values)
    if "feasible" in frame:
        ok &= frame["feasible"].to_numpy(dtype=bool)
    idx = np.flatnonzero(ok)
    if not idx.size:
        why = (
            "no evaluation satisfied every constraint"
            if "feasible" in frame
            else ("every evaluation failed")
        )
        return [f"- best: none ({why})"]
    pick = np.argmax if direction(result) == "maximize" else np.argmin
    best = int(idx[pick(values[idx])])
    row = frame.iloc[best]
    label = "best feasible value" if "feasible" in frame else "best value"
    lines = [f"- {label}: {values[best]:.6g} (trial {int(row['number'])})", "",
             "| parameter | best value |", "| --- | --- |"]  # fmt: skip
    for p in _params(result):
        lines.append(f"| {p.name} | {_cell(row[p.column], p)} |")
    return lines


#: rows of the Pareto front the summary lists (all of them are in evaluations.csv)
FRONT_ROWS = 20


def _front(result: StudyResult, frame: Any, spec: Any, ref: Any, ref_source: str) -> list[str]:
    """The feasible Pareto front: its size, hypervolume and a table of its evaluations."""
    on_front = frame[frame["pareto"].to_numpy(dtype=bool)]
    if on_front.empty:
        return ["- Pareto front: none (no feasible evaluation)"]
    objectives = [f"values_{n}" for n in spec.names[: spec.n_objectives]]
    k = len(on_front)
    lines = [f"- Pareto front: {k} evaluation{'s' * (k != 1)}"]
    try:
        if ref is None:
            hv = result.hypervolume()  # type: ignore[attr-defined]
            ref, ref_source = result.reference_point, "inferred"  # type: ignore[attr-defined]
        else:  # 0 if no feasible evaluation dominates it, as `isoline run` reports
            hv = result.hypervolume_history(ref)[-1]  # type: ignore[attr-defined]
        shown = ", ".join(f"{v:.6g}" for v in np.asarray(ref, dtype=float))
        lines.append(
            f"- hypervolume: {hv:.6g} against the reference point [{shown}] ({ref_source})"
        )
        if hv == 0.0:
            lines.append("  (no feasible evaluation dominates that point: each coordinate is "
                         "in its objective's direction, worse than the front)")  # fmt: skip
    except (AttributeError, ValueError) as err:
        lines.append(f"- hypervolume: not computed ({err})")
    params = _params(result)
    head = ["trial", *spec.names[: spec.n_objectives], *(p.name for p in params)]
    lines += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    shown = on_front.sort_values(objectives[0]).head(FRONT_ROWS)
    for _, row in shown.iterrows():
        cells = [str(int(row["number"])), *(_cell(row[c]) for c in objectives)]
        cells += [_cell(row[p.column], p) for p in params]
        lines.append("| " + " | ".join(cells) + " |")
    if len(on_front) > FRONT_ROWS:
        lines.append(f"\n{len(on_front) - FRONT_ROWS} more front evaluations in evaluations.csv.")
    return lines


def _params(result: StudyResult) -> list[Parameter]:
    assert result.space is not None  # to_dataframe needs it
    return parameters(result.space)


def _cell(v: Any, p: Parameter | None = None) -> str:
    """A table cell: ``v`` as text, or "(inactive)" where it marks parameter ``p``
    inactive (the choice ``None`` of a categorical is a value)."""
    if p is not None and p.inactive(v):
        return "(inactive)"  # a conditional parameter its condition switched off
    return f"{v:.6g}" if isinstance(v, float) else str(v)
