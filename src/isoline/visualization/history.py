"""The optimization history: every value and the best so far against evaluations."""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.visualization.common import StudyResult, direction, figure

__all__ = ["plot_history", "wants_log"]

#: the ratio of the largest to the smallest positive value from which ``log=None`` draws
#: a log axis
DECADES = 100.0


def wants_log(values: np.ndarray) -> bool:
    """Whether a log axis shows ``values`` better: all finite ones positive and spanning
    at least a factor :data:`DECADES`."""
    v = values[np.isfinite(values)]
    return bool(v.size > 1 and np.all(v > 0) and v.max() / v.min() >= DECADES)


def plot_history(
    result: StudyResult,
    *,
    ax: Any = None,
    log: bool | None = None,
    optimum: float | None = None,
    label: str | None = None,
    show_values: bool = True,
) -> Any:
    """The history of a study: each evaluation's value (points), the best value so far
    (a line) and the failed evaluations (red marks on the bottom edge).

    Args:
        result: a :class:`~isoline.Result` (e.g. from :func:`isoline.load`).
        ax: the matplotlib axes to draw into (a new figure if ``None``).
        log: a logarithmic value axis; ``None`` chooses one when the values drawn are
            positive and span two decades or more.
        optimum: the best attainable value, if known: the plot then shows the regret, the
            distance of each value from it (``value - optimum`` when minimizing,
            ``optimum - value`` when maximizing).
        label: the best-so-far line's legend entry (default: the method's name).
        show_values: draw every evaluation's value as well as the best so far.

    Returns:
        The matplotlib Figure.

    Raises:
        ValueError: the study has no evaluation.
    """
    values = np.asarray(result.func_vals, dtype=float)
    if values.size == 0:
        raise ValueError(f"study {result.study!r} has no evaluation to plot")
    best = np.asarray(result.best_so_far(), dtype=float)
    ylabel = "value"
    if optimum is not None:
        sign = -1.0 if direction(result) == "maximize" else 1.0
        values, best = sign * (values - optimum), sign * (best - optimum)
        ylabel = "regret (distance from the optimum)"
    fig, (ax,) = figure(ax)
    n = np.arange(1, values.size + 1)
    ok = np.isfinite(values)
    if show_values and ok.any():
        ax.scatter(n[ok], values[ok], s=14, alpha=0.5, color="tab:blue", label="value",
                   gid="values")  # fmt: skip
    (line,) = ax.plot(n, best, lw=1.6, drawstyle="steps-post", label=label or result.method,
                      gid="best")  # fmt: skip
    failed = np.flatnonzero(np.asarray(result.status) == "failed") + 1
    if failed.size:
        ax.scatter(failed, np.zeros(failed.size), marker="|", s=80, color="tab:red",
                   transform=ax.get_xaxis_transform(), clip_on=False,
                   label=f"failed ({failed.size})", gid="failed")  # fmt: skip
    shown = np.concatenate([values[ok] if show_values else [], best[np.isfinite(best)]])
    if log if log is not None else wants_log(shown):
        ax.set_yscale("log", nonpositive="mask")
    ax.set_xlabel("evaluation")
    ax.set_ylabel(f"{ylabel}, best so far ({direction(result)})")
    ax.set_title(f"history of {result.study}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig
