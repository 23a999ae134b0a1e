"""Plots of runs with several objectives or constraints: the Pareto front, the
hypervolume after each evaluation, and feasibility over the run."""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.visualization.common import figure

__all__ = ["plot_feasibility", "plot_hypervolume_history", "plot_pareto_front"]


def plot_pareto_front(
    result: Any, *, objectives: tuple[int, int] | None = None, ax: Any = None
) -> Any:
    """Two objectives of every feasible evaluation (points), the infeasible ones (grey
    crosses) and the feasible Pareto front, in the user's units. With two objectives the
    front is a step line; with more, a front point may look dominated in one pair of
    objectives, so the front is drawn as points, one panel per pair of objectives.

    Args:
        result: a :class:`~isoline.Result` with two objectives or more.
        objectives: the indices of the two objectives drawn; ``None`` draws every pair
            (one panel each), or the first two into a given ``ax``.
        ax: the matplotlib axes to draw into (a new figure if ``None``).

    Raises:
        ValueError: the result has fewer than two objectives, or ``objectives`` is not a
            pair of distinct objective indices.
    """
    spec = result.objective
    m = spec.n_objectives
    if m < 2:
        raise ValueError("plot_pareto_front needs a result with two objectives or more")
    if objectives is None:
        pairs = [(i, j) for i in range(m) for j in range(i + 1, m)] if ax is None else [(0, 1)]
    else:
        i, j = objectives
        if i == j or not (0 <= i < m and 0 <= j < m):
            raise ValueError(f"objectives must be two distinct indices below {m}, got {objectives}")
        pairs = [(i, j)]
    cols = min(3, len(pairs))
    fig, axes = figure(ax, ncols=cols, nrows=-(-len(pairs) // cols))
    for extra in axes[len(pairs) :]:
        extra.set_visible(False)
    for (i, j), panel in zip(pairs, axes):
        _front_panel(panel, result, i, j)
    return fig


def _front_panel(ax: Any, result: Any, i: int, j: int) -> None:
    """Objectives ``i`` and ``j`` of ``result`` and its front, into ``ax``."""
    spec = result.objective
    Y, ok = result.values, result.feasible
    front = Y[spec.pareto_indices(Y)]
    front = front[np.argsort(front[:, i])]
    ax.scatter(Y[ok, i], Y[ok, j], s=14, alpha=0.5, label="feasible", gid="feasible")
    bad = ~ok & np.isfinite(Y[:, [i, j]]).all(axis=1)
    if bad.any():
        ax.scatter(Y[bad, i], Y[bad, j], s=14, marker="x", color="grey", label="infeasible",
                   gid="infeasible")  # fmt: skip
    if spec.n_objectives == 2:
        # sorted by objective i, each step's corner must lie where a front point dominates
        # it: after the next point's x when i is minimized, at the point's own x when maximized
        steps = "steps-post" if spec.directions[i] == "minimize" else "steps-pre"
        ax.plot(front[:, i], front[:, j], "o-", color="tab:red", drawstyle=steps,
                label=f"Pareto front ({len(front)})", gid="front")  # fmt: skip
    else:
        ax.plot(front[:, i], front[:, j], "o", color="tab:red", gid="front",
                label=f"Pareto front in all {spec.n_objectives} objectives ({len(front)})")  # fmt: skip
    names = spec.names
    ax.set_xlabel(f"{names[i]} ({spec.directions[i]})")
    ax.set_ylabel(f"{names[j]} ({spec.directions[j]})")
    ax.legend()


def plot_hypervolume_history(result: Any, *, ref: Any = None, ax: Any = None) -> Any:
    """The hypervolume of the feasible front after each evaluation, against ``ref``
    (``Result.reference_point`` if ``None``)."""
    hv = result.hypervolume_history(ref)
    fig, (ax,) = figure(ax)
    ax.plot(np.arange(1, hv.size + 1), hv, drawstyle="steps-post", gid="hypervolume")
    ax.set_xlabel("evaluation")
    ax.set_ylabel("hypervolume")
    return fig


def plot_feasibility(result: Any, *, ax: Any = None) -> Any:
    """Each evaluation feasible (1) or not (0), and the share feasible so far."""
    ok = np.asarray(result.feasible, dtype=float)
    if ok.size == 0:
        raise ValueError(f"study {result.study!r} has no evaluation to plot")
    n = np.arange(1, ok.size + 1)
    fig, (ax,) = figure(ax)
    ax.scatter(n, ok, s=14, gid="feasible")
    ax.plot(n, np.cumsum(ok) / n, color="tab:green", label="share feasible so far", gid="share")
    ax.set_xlabel("evaluation")
    ax.set_ylabel("feasible")
    ax.set_ylim(-0.05, 1.05)
    ax.legend()
    return fig
