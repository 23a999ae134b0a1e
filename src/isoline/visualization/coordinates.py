"""The parallel-coordinate plot: every finished evaluation as a line through its value
and its parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from isoline.evaluations import Parameter
from isoline.visualization.common import StudyResult, direction, figure, finished, select

__all__ = ["plot_parallel_coordinates"]


def plot_parallel_coordinates(
    result: StudyResult, params: Sequence[str] | None = None, *, ax: Any = None
) -> Any:
    """Each finished evaluation as a line across vertical axes, the value first and then
    one axis per parameter, coloured by value (the best darkest, drawn on top; with
    constraints, the infeasible ones beneath the feasible ones). Every axis
    runs from its parameter's lower bound (bottom) to its upper bound (top), on a log
    scale for a log-scaled parameter; a categorical's choices are spaced evenly; the value
    axis runs from the lowest to the highest value. On a conditional space a line leaves a
    gap at the axis of a parameter that was inactive in its evaluation.

    Args:
        result: a :class:`~isoline.Result` (e.g. from :func:`isoline.load`).
        params: the parameters to show, in order (default: all of them).
        ax: the matplotlib axes to draw into (a new figure if ``None``).

    Returns:
        The matplotlib Figure; the lines are one ``LineCollection`` whose segments hold
        each evaluation's ``(axis index, position in [0, 1])`` points.

    Raises:
        ValueError: no finished evaluation, or a name in ``params`` is not a parameter.
    """
    from matplotlib.collections import LineCollection

    chosen = select(result, params)
    ok = finished(result, 1, "a parallel-coordinate plot")
    values = ok["value"].to_numpy(dtype=float)
    lo, hi = float(values.min()), float(values.max())
    columns = [(values - lo) / (hi - lo) if hi > lo else np.full(values.shape, 0.5)]
    columns += [p.unit(list(ok[p.column])) for p in chosen]
    Y = np.column_stack(columns)
    xs = np.arange(Y.shape[1], dtype=float)
    maximize = direction(result) == "maximize"
    # best drawn last, on top; with constraints the infeasible ones beneath the feasible
    feasible = ok["feasible"].to_numpy(dtype=bool) if "feasible" in ok else np.ones(len(ok), bool)
    order = np.lexsort((values if maximize else -values, feasible))
    fig, (ax,) = figure(ax, width=max(6.0, 1.6 * len(xs)), height=4.2)
    lines = LineCollection([np.column_stack([xs, Y[i]]) for i in order], array=values[order],
                           cmap="viridis_r" if not maximize else "viridis", lw=1.2,
                           alpha=0.8, gid="evaluations")  # fmt: skip
    ax.add_collection(lines)
    for x in xs:
        ax.axvline(x, color="black", lw=0.8)
    ax.set_xlim(-0.3, xs[-1] + 0.3 if xs.size > 1 else 0.3)
    ax.set_ylim(-0.05, 1.05)
    ax.set_yticks([])
    ax.set_xticks(xs, ["value", *(p.name for p in chosen)])
    _end_labels(ax, 0.0, f"{lo:.4g}", f"{hi:.4g}")
    for x, p in zip(xs[1:], chosen):
        _axis_labels(ax, x, p)
    fig.colorbar(lines, ax=ax, label=f"value ({direction(result)})", pad=0.01)
    ax.set_title(f"parallel coordinates of {result.study} ({len(ok)} finished evaluations)")
    return fig


def _axis_labels(ax: Any, x: float, p: Parameter) -> None:
    if p.kind == "categorical":
        k = len(p.choices)
        for i, c in enumerate(p.choices):
            y = i / (k - 1) if k > 1 else 0.5
            ax.text(x + 0.04, y, str(c), fontsize=7, va="center", ha="left")
    else:
        fmt = "{:d}" if p.kind == "integer" else "{:.3g}"
        low = int(p.low) if p.kind == "integer" else p.low  # type: ignore[arg-type]
        high = int(p.high) if p.kind == "integer" else p.high  # type: ignore[arg-type]
        _end_labels(ax, x, fmt.format(low), fmt.format(high))


def _end_labels(ax: Any, x: float, low: str, high: str) -> None:
    ax.text(x + 0.04, 0.0, low, fontsize=7, va="center", ha="left")
    ax.text(x + 0.04, 1.0, high, fontsize=7, va="center", ha="left")
