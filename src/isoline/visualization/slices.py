"""The slice plot: each evaluation's value against each parameter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from isoline.visualization.common import StudyResult, direction, figure, finished, select, set_axis
from isoline.visualization.history import wants_log

__all__ = ["plot_slice"]


def plot_slice(
    result: StudyResult, params: Sequence[str] | None = None, *, log: bool | None = None
) -> Any:
    """One panel per parameter: the value of each finished evaluation against that
    parameter's value, coloured by evaluation number (later darker). A categorical
    parameter's choices are spaced evenly, a log-scaled one on a log axis.

    Args:
        result: a :class:`~isoline.Result` (e.g. from :func:`isoline.load`).
        params: the parameters to show, in order (default: all of them).
        log: a logarithmic value axis (``None``: as :func:`plot_history` chooses).

    Returns:
        The matplotlib Figure.

    Raises:
        ValueError: no finished evaluation, or a name in ``params`` is not a parameter.
    """
    chosen = select(result, params)
    ok = finished(result, 1, "a slice plot")
    values = ok["value"].to_numpy(dtype=float)
    order = ok["number"].to_numpy()
    fig, axes = figure(ncols=len(chosen), width=3.6, height=3.4)
    for ax, p in zip(axes, chosen):
        x = np.asarray(p.codes(list(ok[p.column])), dtype=float)
        points = ax.scatter(x, values, c=order, cmap="Blues", vmin=order.min(),
                            vmax=order.max(), edgecolors="grey", linewidths=0.4, s=22,
                            gid=p.name)  # fmt: skip
        if not np.isfinite(x).any():  # a conditional parameter active in no finished one
            ax.text(0.5, 0.5, "inactive in every\nfinished evaluation", ha="center",
                    va="center", color="grey", transform=ax.transAxes)  # fmt: skip
        set_axis(ax, p, "x")
        ax.grid(alpha=0.3)
        if ax is not axes[0]:  # one value axis, labelled once
            ax.sharey(axes[0])
            ax.tick_params(labelleft=False)
    if log if log is not None else wants_log(values):
        for ax in axes:
            ax.set_yscale("log")
    axes[0].set_ylabel(f"value ({direction(result)})")
    fig.colorbar(points, ax=axes, label="trial number", pad=0.01)
    n_failed = len(result.func_vals) - len(ok)
    fig.suptitle(f"slice plot of {result.study} ({len(ok)} finished, {n_failed} failed)")
    return fig
