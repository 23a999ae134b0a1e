"""The contour plot of two parameters: the mean of a Gaussian process fitted to the
study's values over those two parameters, with the evaluations on top.

The surface is scikit-learn's ``GaussianProcessRegressor`` (a Matern-5/2 kernel with one
length scale per parameter and a white-noise term that absorbs what the other parameters
do) fitted on the two parameters' positions in ``[0, 1]`` (log-scaled where the parameter
is; a categorical's choices evenly spaced). A display surface, not the model a method
optimizes with: unlike interpolation it covers the whole rectangle, and points on a line
or repeated (integer or categorical parameters) need no special case.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from isoline.evaluations import Parameter
from isoline.validation import check_int
from isoline.visualization.common import (
    StudyResult,
    direction,
    figure,
    finished,
    select,
    set_axis,
)
from isoline.visualization.importance import param_importances

__all__ = ["MIN_EVALUATIONS", "plot_contour"]

#: the fewest finished evaluations a contour is fitted to
MIN_EVALUATIONS = 4


def plot_contour(
    result: StudyResult,
    params: Sequence[str] | None = None,
    *,
    ax: Any = None,
    resolution: int = 60,
    seed: int = 0,
) -> Any:
    """Filled contours of the fitted mean value over two parameters, the finished
    evaluations as points and the best one as a star (on a conditional space, of the
    evaluations where both parameters are active; with constraints, the best feasible
    one, and no star when none is feasible).

    Args:
        result: a :class:`~isoline.Result` (e.g. from :func:`isoline.load`).
        params: the two parameters (x axis, y axis); default: the space's two, or for a
            larger space the two that :func:`param_importances` ranks first.
        ax: the matplotlib axes to draw into (a new figure if ``None``).
        resolution: grid points along each axis.
        seed: seed of the fit (and of the importance ranking).

    Returns:
        The matplotlib Figure.

    Raises:
        ValueError: the space has one parameter, ``params`` does not name two distinct
            parameters, or fewer than :data:`MIN_EVALUATIONS` evaluations finished.
    """
    resolution = check_int(resolution, "resolution", 2)
    if params is None:
        every = select(result, None)
        if len(every) < 2:
            raise ValueError(
                f"a contour plot needs two parameters; the space has one ({every[0].name!r})"
            )
        names = [p.name for p in every]
        params = names if len(names) == 2 else list(param_importances(result, seed=seed))[:2]
    chosen = select(result, params)
    if len(chosen) != 2:
        raise ValueError(f"a contour plot shows two parameters; params names {len(chosen)}")
    ok = finished(result, MIN_EVALUATIONS, "a contour plot")
    values = ok["value"].to_numpy(dtype=float)
    U = np.column_stack([p.unit(list(ok[p.column])) for p in chosen])
    both = np.all(np.isfinite(U), axis=1)  # a conditional parameter is NaN where inactive
    if both.sum() < MIN_EVALUATIONS:
        raise ValueError(
            f"a contour plot needs {MIN_EVALUATIONS} evaluations with both parameters "
            f"active; {int(both.sum())} have them"
        )
    feasible = ok["feasible"].to_numpy(dtype=bool) if "feasible" in ok else np.ones(len(ok), bool)
    U, values, feasible = U[both], values[both], feasible[both]
    grid = np.linspace(0.0, 1.0, resolution)
    G0, G1 = np.meshgrid(grid, grid)
    mean = _fit(U, values, seed).predict(np.column_stack([G0.ravel(), G1.ravel()]))
    (px, py) = chosen
    fig, (ax,) = figure(ax, width=6.0, height=4.8)
    filled = ax.contourf(_position(px, G0), _position(py, G1), mean.reshape(G0.shape),
                         levels=15, cmap="viridis", gid="mean")  # fmt: skip
    ax.scatter(_position(px, U[:, 0]), _position(py, U[:, 1]), s=16, c="white",
               edgecolors="black", linewidths=0.5, label="evaluations", gid="evaluations")  # fmt: skip
    if feasible.any():  # an infeasible evaluation is never the best, however low
        pick = np.argmax if direction(result) == "maximize" else np.argmin
        best = int(np.flatnonzero(feasible)[pick(values[feasible])])
        ax.scatter([_position(px, U[best, 0])], [_position(py, U[best, 1])], marker="*",
                   s=160, c="red", edgecolors="black", label="best", gid="best")  # fmt: skip
    set_axis(ax, px, "x")
    set_axis(ax, py, "y")
    fig.colorbar(filled, ax=ax, label=f"fitted value ({direction(result)})", pad=0.01)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(f"contour of {result.study} (Gaussian-process mean, {len(ok)} evaluations)")
    return fig


def _fit(U: np.ndarray, y: np.ndarray, seed: int) -> Any:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    kernel = ConstantKernel(1.0, (1e-3, 1e3)) * Matern(
        length_scale=[0.3, 0.3], length_scale_bounds=(1e-2, 1e2), nu=2.5
    ) + WhiteKernel(1e-2, (1e-8, 1e1))
    gp = GaussianProcessRegressor(kernel, normalize_y=True, n_restarts_optimizer=1,
                                  random_state=seed)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gp.fit(U, y)


def _position(p: Parameter, u: np.ndarray) -> np.ndarray:
    """Where the points at ``u`` in ``[0, 1]`` lie on ``p``'s axis (:func:`set_axis`)."""
    if p.kind == "categorical":
        return u * max(len(p.choices) - 1, 0)
    assert p.low is not None and p.high is not None
    if p.log:
        return np.exp(np.log(p.low) + u * (np.log(p.high) - np.log(p.low)))
    return p.low + u * (p.high - p.low)
