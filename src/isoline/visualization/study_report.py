"""The report of one study (``isoline report STORE STUDY --out DIR``): its five plots, its
table of evaluations and a short summary in markdown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from isoline.evaluations import is_missing
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
    spec = getattr(result, "objective", None)
    if spec is None or getattr(result, "outputs", None) is None:
        return {}
    out: dict[str, Callable[..., Any]] = {}
    if spec.n_objectives > 1:
        out["pareto_front"] = plot_pareto_front
        out["hypervolume"] = plot_hypervolume_history
    if spec.n_constraints:
        out["feasibility"] = plot_feasibility
    return out


def write_study_report(result: StudyResult, out: str | Path, command: str | None = None) -> Path:
    """Write ``summary.md``, ``evaluations.csv`` (:meth:`~isoline.Result.to_dataframe`)
    and one PNG per plot of :data:`PLOTS` (and of :func:`output_plots`) into the folder ``out`` (created if missing). A
    plot the study cannot have (a contour of a one-parameter space, too few finished
    evaluations) is left out and the summary says why.

    Returns:
        The path of ``summary.md``.
    """
    import matplotlib.pyplot as plt

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    frame = result.to_dataframe()
    frame.to_csv(folder / "evaluations.csv", index=False)
    drawn, skipped = [], []
    try:  # computed once: the importance plot shows them, the contour takes the first two
        shares: dict[str, float] | None = param_importances(result)
    except ValueError:
        shares = None
    options: dict[str, dict[str, Any]] = {"importances": {"importances": shares}}
    if shares is not None and len(shares) > 2:
        options["contour"] = {"params": list(shares)[:2]}
    for stem, plot in {**PLOTS, **output_plots(result)}.items():
        try:
            fig = plot(result, **options.get(stem, {}))
        except ValueError as err:
            skipped.append(f"- {stem}: not drawn: {err}")
            continue
        fig.savefig(folder / f"{stem}.png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        drawn.append(f"![{stem}]({stem}.png)")
    lines = [f"# Study {result.study}", "", *_summary(result, frame), "", "## Plots", ""]
    lines += [*drawn, "", *skipped] if skipped else drawn
    lines += ["", "Every evaluation: [evaluations.csv](evaluations.csv)."]
    if command:
        lines += ["", f"Made with `{command}`."]
    path = folder / "summary.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _summary(result: StudyResult, frame: Any) -> list[str]:
    values = frame["value"].to_numpy(dtype=float)
    n_failed = int((frame["state"] == "failed").sum())
    lines = [f"- store: {getattr(result, 'storage', '?')}", f"- method: {result.method}"]
    choice = getattr(result, "choice", None)
    rule = getattr(choice, "rule", None) or (
        choice.get("rule") if isinstance(choice, dict) else None
    )
    if rule:
        lines[-1] += f" (chosen by auto's rule {rule!r})"
    lines += [f"- direction: {direction(result)}",
              f"- evaluations: {len(frame)} ({n_failed} failed)"]  # fmt: skip
    ok = np.flatnonzero(np.isfinite(values))
    if not ok.size:
        return [*lines, "- best: none (every evaluation failed)"]
    pick = np.argmax if direction(result) == "maximize" else np.argmin
    best = int(ok[pick(values[ok])])
    row = frame.iloc[best]
    lines += [f"- best value: {values[best]:.6g} (trial {int(row['number'])})", "",
              "| parameter | best value |", "| --- | --- |"]  # fmt: skip
    for column in frame.columns:
        if column.startswith("params_"):
            v = row[column]
            name = column.removeprefix("params_")
            if is_missing(v):
                text = "(inactive)"  # a conditional parameter its condition switched off
            else:
                text = f"{v:.6g}" if isinstance(v, float) else str(v)
            lines.append(f"| {name} | {text} |")
    return lines
