"""What the plots share: the view of a :class:`~isoline.Result` they read, the choice of
parameters, the finished evaluations and the axis of a parameter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from isoline.evaluations import Parameter, parameters
from isoline.params import Space
from isoline.space import Box

__all__ = ["StudyResult", "direction", "figure", "finished", "select", "set_axis"]


class StudyResult(Protocol):
    """What the plots read of a :class:`~isoline.Result`."""

    @property
    def space(self) -> Box | Space | None: ...
    @property
    def func_vals(self) -> np.ndarray: ...
    @property
    def status(self) -> list[str]: ...
    @property
    def method(self) -> str: ...
    @property
    def study(self) -> str: ...
    def best_so_far(self) -> np.ndarray: ...
    def to_dataframe(self) -> Any: ...


def direction(result: StudyResult) -> str:
    """``"minimize"`` or ``"maximize"``: the direction of the result's values."""
    return str(getattr(result, "direction", "minimize"))


def figure(
    ax: Any = None, ncols: int = 1, width: float = 6.0, height: float = 4.0, nrows: int = 1
) -> Any:
    """``(fig, axes)``: ``ax``'s figure and ``[ax]``, or a new figure of ``nrows`` rows of
    ``ncols`` axes each (``width`` by ``height`` inches an axes), listed row by row."""
    if ax is not None:
        return ax.figure, [ax]
    import matplotlib.pyplot as plt

    size = (width * ncols, height * nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False)
    return fig, list(axes.ravel())


def select(result: StudyResult, params: Sequence[str] | None) -> list[Parameter]:
    """The parameters named ``params`` (all of the space's if ``None``), in that order.

    Raises:
        ValueError: the result has no space, a name is not a parameter or is repeated,
            or ``params`` is empty.
    """
    if result.space is None:
        raise ValueError("this Result has no space to plot its parameters; read it with iso.load")
    every = parameters(result.space)
    if params is None:
        return every
    if isinstance(params, str):
        raise TypeError(f"params must be a sequence of names, got the string {params!r}")
    by_name = {p.name: p for p in every}
    names = list(params)
    if not names:
        raise ValueError("params is empty; name at least one parameter")
    for n in names:
        if n not in by_name:
            raise ValueError(f"{n!r} is not a parameter of the space; its parameters: "
                             f"{', '.join(map(repr, by_name))}")  # fmt: skip
    if len(set(names)) != len(names):
        raise ValueError(f"params names a parameter twice: {names}")
    return [by_name[n] for n in names]


def finished(result: StudyResult, minimum: int, what: str) -> Any:
    """The rows of ``result.to_dataframe()`` whose value is finite.

    Raises:
        ValueError: fewer than ``minimum`` such rows (naming ``what`` needs them).
    """
    frame = result.to_dataframe()
    ok = frame[np.isfinite(frame["value"].to_numpy(dtype=float))].reset_index(drop=True)
    if len(ok) < minimum:
        failed = len(frame) - len(ok)
        raise ValueError(
            f"{what} needs at least {minimum} finished evaluations; study {result.study!r} "
            f"has {len(ok)} ({len(frame)} evaluations, {failed} failed)"
        )
    return ok


def set_axis(ax: Any, p: Parameter, axis: str = "x") -> None:
    """Label ``ax``'s ``axis`` with ``p``: log scale for a log parameter, the choices as
    tick labels (at their indices) for a categorical."""
    set_label = ax.set_xlabel if axis == "x" else ax.set_ylabel
    set_label(p.name)
    if p.kind == "categorical":
        ticks = np.arange(len(p.choices))
        labels = [str(c) for c in p.choices]
        if axis == "x":
            ax.set_xticks(ticks, labels)
            ax.set_xlim(-0.5, len(p.choices) - 0.5)
        else:
            ax.set_yticks(ticks, labels)
            ax.set_ylim(-0.5, len(p.choices) - 0.5)
    elif p.log:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
